import Testing

@testable import WebPages

/// The document around every page.
@Suite("Layout")
struct LayoutTests {
    static func document(handle: String? = "anna", current: WebLayout.NavigationItem? = .nights) -> HTMLScan {
        HTMLScan(
            WebLayout.page(
                title: "Nights", signedIn: handle, csrfToken: "tok\"en<", current: current, body: "<h1>Nights</h1>\n",
                scripts: [WebAssets.uploadScript]))
    }

    @Test("head: charset, viewport, colour schemes, CSRF token, title, hashed stylesheet and icon, deferred scripts")
    func head() throws {
        let scan = Self.document()
        let meta = scan.elements("meta")
        #expect(meta.contains { $0.attributes["charset"] == "utf-8" })
        #expect(
            meta.contains {
                $0.attributes["name"] == "viewport" && $0.attributes["content"] == "width=device-width,initial-scale=1"
            })
        #expect(meta.contains { $0.attributes["name"] == "color-scheme" && $0.attributes["content"] == "light dark" })
        #expect(meta.contains { $0.attributes["name"] == "csrf-token" && $0.attributes["content"] == "tok\"en<" })
        #expect(scan.elements("title").first?.textAfter == "Nights · SleepLedger")
        let links = scan.elements("link")
        #expect(
            links.contains {
                $0.attributes["rel"] == "stylesheet" && $0.attributes["href"] == WebAssets.stylesheet.path
            })
        #expect(links.contains { $0.attributes["rel"] == "icon" && $0.attributes["href"] == WebAssets.icon.path })
        let scripts = scan.elements("script")
        #expect(scripts.count == 1)
        #expect(scripts.first?.attributes["src"] == WebAssets.uploadScript.path)
        #expect(scripts.first?.attributes["defer"] != nil)
    }

    @Test("signed in: skip link to main, every navigation item once, the current one marked, sign-out posts the token")
    func navigation() throws {
        let scan = Self.document()
        let skip = try #require(scan.elements("a").first)
        #expect(skip.attributes["href"] == "#main" && skip.attributes["class"] == "skip-link")
        #expect(scan.elements("main").first?.attributes["id"] == "main")
        let expected = [
            ("/", "Dashboard"), ("/upload", "Upload"), ("/imports", "Imports"), ("/nights", "Nights"),
            ("/settings", "Settings"), ("/tokens", "Tokens"),
        ]
        let navigation = scan.elements("a").filter { link in expected.contains { $0.0 == link.attributes["href"] } }
            .filter { $0.attributes["class"] != "brand" }
        #expect(navigation.map { $0.attributes["href"] ?? "" } == expected.map(\.0))
        #expect(navigation.map(\.textAfter) == expected.map(\.1))
        #expect(navigation.filter { $0.attributes["aria-current"] == "page" }.map(\.textAfter) == ["Nights"])
        let form = try #require(scan.elements("form").first)
        #expect(form.attributes["method"] == "post" && form.attributes["action"] == "/sign-out")
        let hidden = scan.elements("input").filter { $0.attributes["type"] == "hidden" }
        #expect(hidden.map { $0.attributes["name"] } == ["csrf_token"])
        #expect(hidden.first?.attributes["value"] == "tok\"en<")
        #expect(scan.elements("button").first?.attributes["type"] == "submit")
        #expect(scan.text.contains("Signed in as anna"))
    }

    @Test("signed out: no navigation and no sign-out form")
    func signedOut() {
        let scan = Self.document(handle: nil, current: nil)
        #expect(scan.elements("nav").isEmpty)
        #expect(scan.elements("form").isEmpty)
        #expect(scan.elements("meta").contains { $0.attributes["name"] == "csrf-token" })
    }

    @Test("a view's page renders the same as the layout called with its parts")
    func render() {
        let page = WebPage(
            title: "Nights", current: .nights, body: "<h1>Nights</h1>\n", scripts: [WebAssets.appScript])
        #expect(
            WebLayout.render(page, signedIn: "anna", csrfToken: "t")
                == WebLayout.page(
                    title: page.title, signedIn: "anna", csrfToken: "t", current: .nights, body: page.body,
                    scripts: page.scripts))
    }
}
