import Foundation
import Testing
import WebPages

/// The web pages in a real browser: headless Chromium against the real server and
/// database, one browser session per script (BrowserHarness, Tests/Browser).
@Suite("Browser: sign-in", .serialized)
struct BrowserTests {
    @Test("sign in through the form, see the signed-in page with no CSP violation in the console, sign out")
    func signIn() throws {
        let server = try ServerProcess()
        try SignInServerTests.person("anna", server)
        let run = try BrowserHarness.run(
            "sign_in.py", server: server, handle: "anna", password: SignInServerTests.password)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("browser test passed"), "\(run.output)")
        for name in ["sign-in-1280", "sign-in-375", "home-1280", "home-375"] {
            let data = try Data(contentsOf: run.screenshots.appendingPathComponent(name + ".png"))
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name).png is a PNG")
        }
        // What the browser did, as the server saw it.
        #expect(server.logText.contains("\"POST /sign-in\" 403"))
        #expect(server.logText.contains("\"POST /sign-in\" 303"))
        #expect(server.logText.contains("\"PATCH /api/v1/me\" 403"))
        #expect(server.logText.contains("\"POST /sign-out\" 303"))
        #expect(server.logText.contains("\"GET \(WebAssets.stylesheet.path)\" 200"))
    }
}
