import Foundation
import Testing
import WebPageFixtures

@testable import WebPages

/// Every page, with ordinary and with hostile values: well-formed, within the
/// Content-Security-Policy (`default-src 'self'; style-src 'self'; script-src 'self'`: no
/// inline script, no `style` attribute or element, no inline event handler), links and
/// forms on the same origin, every field labelled, every state-changing form carrying the
/// CSRF token, and every value a person controls shown as text.
@Suite("Every page: markup, CSP, labels, CSRF, hostile values")
struct PageSafetyTests {
    static let pages = WebFixtures.allPages()
    static let hostilePages = WebFixtures.allPages(value: WebFixtures.hostileValue)
    /// Every page by its name: the log shows the name, the test renders the page.
    static let all = PageCase.Kind.allCases.flatMap { kind in kind.pages.map { PageCase(kind: kind, name: $0.name) } }

    /// One page of ``WebFixtures/allPages(value:)``, named for the test log.
    struct PageCase: Sendable, Hashable, CustomTestStringConvertible {
        enum Kind: String, Sendable, CaseIterable {
            case ordinary, hostile
            var pages: [(name: String, html: String)] { self == .ordinary ? PageSafetyTests.pages : hostilePages }
        }
        let kind: Kind
        let name: String
        var testDescription: String { "\(kind.rawValue) \(name)" }
        /// The rendered document.
        var html: String { kind.pages.first { $0.name == name }?.html ?? "" }
    }

    @Test("the pages are all there: every view, with and without data")
    func pageList() {
        #expect(Self.pages.count == 21)
        #expect(Self.hostilePages.count == Self.pages.count)
    }

    @Test("each page is one well-formed document: doctype, nesting, unique ids", arguments: all)
    func wellFormed(page: PageCase) {
        let (kind, name, html) = (page.kind.rawValue, page.name, page.html)
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"), "\(kind) \(name)")
        let scan = HTMLScan(html)
        #expect(scan.problems.isEmpty, "\(kind) \(name): \(scan.problems)")
        #expect(scan.nestingProblems.isEmpty, "\(kind) \(name): \(scan.nestingProblems)")
        let ids = scan.tags.compactMap { $0.isEnd ? nil : $0.attributes["id"] }
        #expect(Set(ids).count == ids.count, "\(kind) \(name): duplicate ids")
        #expect(scan.elements("main").count == 1 && scan.elements("h1").count == 1, "\(kind) \(name)")
    }

    @Test(
        "nothing the Content-Security-Policy would block: scripts from /static/ only, no style, no handlers",
        arguments: all)
    func contentSecurityPolicy(page: PageCase) {
        let (kind, name, html) = (page.kind.rawValue, page.name, page.html)
        let scan = HTMLScan(html)
        for script in scan.elements("script") {
            let source = script.attributes["src"] ?? ""
            #expect(WebAssets.asset(atPath: source) != nil, "\(kind) \(name): script \(source)")
            #expect(script.textAfter.isEmpty, "\(kind) \(name): inline script")
        }
        #expect(scan.elements("style").isEmpty, "\(kind) \(name): a style element")
        for tag in scan.tags where !tag.isEnd {
            #expect(tag.attributes["style"] == nil, "\(kind) \(name): style attribute on <\(tag.name)>")
            let handlers = tag.attributes.keys.filter { $0.hasPrefix("on") }
            #expect(handlers.isEmpty, "\(kind) \(name): \(handlers) on <\(tag.name)>")
            for attribute in ["href", "src", "action", "xlink:href"] {
                guard let target = tag.attributes[attribute] else { continue }
                #expect(
                    target.hasPrefix("/") && !target.hasPrefix("//") || target.hasPrefix("#"),
                    "\(kind) \(name): \(attribute)=\(target) leaves the origin")
            }
        }
        for link in scan.elements("link") {
            #expect(WebAssets.asset(atPath: link.attributes["href"] ?? "") != nil, "\(kind) \(name)")
        }
        #expect(scan.elements("img").isEmpty && scan.elements("iframe").isEmpty, "\(kind) \(name)")
    }

    @Test("every input, select and textarea has a label for it", arguments: all)
    func labels(page: PageCase) {
        let (kind, name, html) = (page.kind.rawValue, page.name, page.html)
        let scan = HTMLScan(html)
        let labelled = Set(scan.elements("label").compactMap { $0.attributes["for"] })
        let fields =
            scan.elements("input").filter { $0.attributes["type"] != "hidden" } + scan.elements("select")
            + scan.elements("textarea")
        for field in fields {
            let id = field.attributes["id"] ?? ""
            #expect(
                !id.isEmpty && labelled.contains(id),
                "\(kind) \(name): <\(field.name) name=\(field.attributes["name"] ?? "")> has no label")
        }
        let ids = Set(scan.tags.compactMap { $0.attributes["id"] })
        #expect(labelled.isSubset(of: ids), "\(kind) \(name): a label for nothing")
    }

    @Test("every form that changes something posts the CSRF token; searches are GET", arguments: all)
    func csrf(page: PageCase) {
        let (kind, name, html) = (page.kind.rawValue, page.name, page.html)
        let scan = HTMLScan(html)
        var index = 0
        while index < scan.tags.count {
            let tag = scan.tags[index]
            index += 1
            guard tag.name == "form", !tag.isEnd else { continue }
            let method = tag.attributes["method"] ?? "get"
            var hidden: [String: String] = [:]
            while index < scan.tags.count, !(scan.tags[index].name == "form" && scan.tags[index].isEnd) {
                let field = scan.tags[index]
                if field.name == "input", field.attributes["type"] == "hidden", let fieldName = field.attributes["name"]
                {
                    hidden[fieldName] = field.attributes["value"]
                }
                index += 1
            }
            if method == "post" {
                #expect(hidden[WebPaths.csrfField] == "csrf-test-token", "\(kind) \(name): \(tag.attributes)")
            } else {
                #expect(method == "get" && hidden.isEmpty, "\(kind) \(name): \(tag.attributes)")
            }
        }
        #expect(html.contains("<meta name=\"csrf-token\" content=\"csrf-test-token\">"), "\(kind) \(name)")
    }

    @Test(
        "a hostile value shows as text wherever it goes, never as markup or controls",
        arguments: all.filter { $0.kind == .hostile })
    func hostileValues(page: PageCase) {
        let (name, html) = (page.name, page.html)
        for raw in ["<script>alert", "<img src=x", "<style>", "\u{202E}", "\u{1B}"] {
            #expect(!html.contains(raw), "\(name): \(raw.debugDescription) came through")
        }
        let scan = HTMLScan(html)
        let names = Set(scan.tags.map(\.name))
        #expect(!names.contains("img") && !names.contains("style"), "\(name)")
        #expect(scan.tags.allSatisfy { !$0.attributes.keys.contains { $0.hasPrefix("on") } }, "\(name)")
        // The value is there, as text or as an attribute's value, escaped.
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(name): the value is missing")
    }

    @Test("pages that show a person's value show all of it, escaped, in the places it belongs")
    func hostileValuesInPlace() throws {
        let pages = Dictionary(uniqueKeysWithValues: Self.hostilePages.map { ($0.name, HTMLScan($0.html)) })
        let value = WebFixtures.hostileValue
        let shown = value.replacingOccurrences(of: "\u{202E}", with: "\u{FFFD}")
            .replacingOccurrences(of: "\u{1B}", with: "\u{241B}")
        // The handle, in the sign-out area of every signed-in page.
        let dashboard = try #require(pages["dashboard-weekly"])
        #expect(dashboard.elements(withClass: "who").first?.textAfter == "Signed in as ")
        #expect(dashboard.text.contains("Signed in as \(shown)"))
        // Sources and zones in the nights table; file names and diagnostics in the imports.
        #expect(try #require(pages["nights"]).text.contains(shown))
        #expect(try #require(pages["nights"]).text.contains("Europe/Berlin\"><script>x</script>"))
        let imports = try #require(pages["imports"])
        #expect(imports.elements(withClass: "file-name").allSatisfy { $0.textAfter == HTML.escape(value) })
        #expect(imports.text.contains("not an export: \(shown)"))
        // Zones as option values, token names in a readonly field, the handle to confirm.
        let settings = try #require(pages["settings"])
        #expect(settings.elements("option").first { $0.attributes["selected"] != nil }?.attributes["value"] == shown)
        let tokens = try #require(pages["tokens"])
        #expect(tokens.text.contains("Your new token “\(shown)”"))
        #expect(
            try #require(pages["sign-in"]).elements("input").first { $0.attributes["name"] == "handle" }?.attributes[
                "value"] == shown)
    }
}
