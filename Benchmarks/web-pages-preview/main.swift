// Writes every web page and its static assets into a folder, as the server would serve them,
// for a person to look at in a browser (docs/web-pages.md, "Looking at the pages"):
//
//     swift run web-pages-preview /tmp/pages
//     python3 -m http.server -d /tmp/pages 8000    # then http://127.0.0.1:8000/dashboard-weekly.html
//
// The pages are WebPagesTests' own (`WebPageFixtures`): every view with ten years of generated
// nights and without data, and again with hostile values (`hostile-*.html`).
import Foundation
import WebPageFixtures
import WebPages

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let folder = arguments.first, !folder.hasPrefix("-") else {
    FileHandle.standardError.write(Data("usage: web-pages-preview FOLDER\n".utf8))
    exit(64)
}
do {
    let root = URL(fileURLWithPath: folder)
    try FileManager.default.createDirectory(
        at: root.appendingPathComponent("static"), withIntermediateDirectories: true)
    let pages =
        WebFixtures.allPages().map { ($0.name, $0.html) }
        + WebFixtures.allPages(value: WebFixtures.hostileValue).map { ("hostile-" + $0.name, $0.html) }
    for (name, html) in pages {
        try Data(html.utf8).write(to: root.appendingPathComponent("\(name).html"))
    }
    for asset in WebAssets.all {
        try Data(asset.bytes).write(to: root.appendingPathComponent(String(asset.path.dropFirst())))
    }
    print("Wrote \(pages.count) pages and \(WebAssets.all.count) assets to \(root.path)")
} catch {
    FileHandle.standardError.write(Data("web-pages-preview: \(error)\n".utf8))
    exit(73)
}
