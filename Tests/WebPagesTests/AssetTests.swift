import Foundation
import Testing

@testable import WebPages

/// The static files: named by a hash of their bytes, found by that path only, and written
/// so that they obey the Content-Security-Policy and never hold a whole upload in memory.
@Suite("Static assets")
struct AssetTests {
    @Test(
        "the content hash is FNV-1a 64-bit, as 16 hex digits",
        arguments: [
            ("", "cbf29ce484222325"), ("a", "af63dc4c8601ec8c"), ("foobar", "85944171f73967e8"),
        ])
    func contentHash(text: String, expected: String) {
        #expect(WebAssets.contentHash(Array(text.utf8)) == expected)
    }

    @Test(
        "every asset: a path with its hash, its content type, found by that path and no other", arguments: WebAssets.all
    )
    func asset(asset: WebAssets.Asset) throws {
        #expect(!asset.bytes.isEmpty)
        #expect(asset.hash == WebAssets.contentHash(asset.bytes))
        let stem = try #require(asset.name.split(separator: ".").first)
        let suffix = try #require(asset.name.split(separator: ".").last)
        #expect(asset.path == "/static/\(stem).\(asset.hash).\(suffix)")
        #expect(WebAssets.asset(atPath: asset.path) == asset)
        #expect(WebAssets.asset(atPath: "/static/\(asset.name)") == nil)
        #expect(WebAssets.asset(atPath: "/static/\(stem).0000000000000000.\(suffix)") == nil)
        #expect(WebAssets.asset(atPath: asset.path + "x") == nil)
        let types = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml"]
        #expect(asset.contentType == types[String(suffix)])
        #expect(String(decoding: asset.bytes, as: UTF8.self).utf8.count == asset.bytes.count, "not UTF-8")
    }

    @Test("the names are stable: the same bytes give the same path every time")
    func stable() {
        for asset in WebAssets.all {
            #expect(WebAssets.contentHash(asset.bytes) == asset.hash)
        }
        #expect(Set(WebAssets.all.map(\.path)).count == WebAssets.all.count)
        #expect(WebAssets.cacheControl == "public, max-age=31536000, immutable")
    }

    @Test("the stylesheet: dark mode, visible focus, no external fonts or images")
    func stylesheet() {
        let css = String(decoding: WebAssets.stylesheet.bytes, as: UTF8.self)
        #expect(css.contains("@media (prefers-color-scheme: dark)"))
        #expect(css.contains(":focus-visible"))
        #expect(!css.contains("url(") && !css.contains("@import") && !css.contains("@font-face"))
    }

    @Test("the scripts: text only (no innerHTML, eval or document.write), the CSRF header from the meta tag")
    func scripts() {
        for asset in [WebAssets.appScript, WebAssets.uploadScript] {
            let js = String(decoding: asset.bytes, as: UTF8.self)
            for banned in [
                "innerHTML", "outerHTML", "insertAdjacentHTML", "eval(", "document.write", "new Function", "http://",
                "https://",
            ] {
                #expect(!js.contains(banned), "\(asset.name): \(banned)")
            }
            #expect(js.contains("meta[name=\"csrf-token\"]"), "\(asset.name)")
            #expect(js.contains("'X-CSRF-Token'"), "\(asset.name)")
        }
    }

    @Test("upload.js sends the File itself (streamed by the browser), with progress, cancel and the import's states")
    func uploadScript() {
        let js = String(decoding: WebAssets.uploadScript.bytes, as: UTF8.self)
        #expect(js.contains("data.append('file', file, file.name)"))
        for reading in ["FileReader", "readAsArrayBuffer", ".arrayBuffer(", ".text()", ".slice("] {
            #expect(!js.contains(reading), "\(reading)")
        }
        for needed in [
            "xhr.upload.onprogress", ".abort()", "xhr.open('POST', api)", "'queued'", "'running'", "'done'", "'failed'",
        ] {
            #expect(js.contains(needed), "\(needed)")
        }
    }
}
