import Foundation
import Testing

@testable import WebPages

/// With `SLEEPLEDGER_PAGE_OUTPUT` set to a folder, writes every page and the static assets
/// there as the server would serve them (`<name>.html`, `static/app.<hash>.css`, ...), to
/// look at them in a browser: `python3 -m http.server -d <folder>`.
@Suite("Pages written for a look in a browser")
struct PageDumpTests {
    @Test("every page and asset is written to SLEEPLEDGER_PAGE_OUTPUT when it is set")
    func writePages() throws {
        guard let folder = ProcessInfo.processInfo.environment["SLEEPLEDGER_PAGE_OUTPUT"], !folder.isEmpty else {
            return
        }
        let root = URL(fileURLWithPath: folder)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("static"), withIntermediateDirectories: true)
        for (name, html) in WebFixtures.allPages() {
            try Data(html.utf8).write(to: root.appendingPathComponent("\(name).html"))
        }
        for (name, html) in WebFixtures.allPages(value: WebFixtures.hostileValue) {
            try Data(html.utf8).write(to: root.appendingPathComponent("hostile-\(name).html"))
        }
        for asset in WebAssets.all {
            try Data(asset.bytes).write(to: root.appendingPathComponent(String(asset.path.dropFirst())))
        }
    }
}
