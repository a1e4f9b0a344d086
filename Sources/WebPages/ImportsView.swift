import SleepReports

/// The import history (issue 14, item 4): every upload and push, newest first, with its
/// state, counts, the importer's reason when it failed, and its diagnostics.
public enum ImportsView {
    /// The history of `imports` (newest first); at most `diagnosticsShown` diagnostics of each
    /// are listed, the rest counted.
    public static func page(imports: [ImportRow], diagnosticsShown: Int = 50, notice: WebNotice? = nil) -> WebPage {
        var body: HTML = "<h1>Imports</h1>\n\(notice.html)"
        guard !imports.isEmpty else {
            body += """
                <p class="card">No imports yet. <a href="\(WebPaths.upload)">Upload an export</a>, or set up Health \
                Auto Export with a token from the <a href="\(WebPaths.tokens)">Tokens</a> page.</p>

                """
            return WebPage(title: "Imports", current: .imports, body: body)
        }
        if imports.contains(where: { $0.state == .queued || $0.state == .running }) {
            body +=
                "<p>Some imports are still on their way: <a href=\"\(WebPaths.imports)\">reload</a> to follow them.</p>\n"
        }
        body += "<ol class=\"imports\">\n"
        for item in imports {
            body += row(item, diagnosticsShown: max(0, diagnosticsShown))
        }
        body += "</ol>\n"
        return WebPage(title: "Imports", current: .imports, body: body)
    }

    static func stateName(_ state: ImportRow.State) -> String {
        switch state {
        case .queued: return "Queued"
        case .running: return "Running"
        case .done: return "Done"
        case .failed: return "Failed"
        case .cancelled: return "Cancelled"
        }
    }

    static func row(_ item: ImportRow, diagnosticsShown: Int) -> HTML {
        var html: HTML = """
            <li class="card import state-\(item.state.rawValue)" id="import-\(item.id)">
            <h2><span class="file-name">\(item.fileName)</span> \
            <span class="badge state">\(stateName(item.state))</span></h2>
            <p class="meta">Import \(item.id)\(item.isCommandLine ? ", made with sleepledger import" : "") · \
            \(WebFormat.bytes(item.sizeBytes)) · \(item.isCommandLine ? "started" : "uploaded") \
            \(ReportFormat.utcTime(item.createdAt))\(item.finishedAt.map { " · ended \(ReportFormat.utcTime($0))" } ?? "")</p>

            """
        if let error = item.error {
            html += "<p class=\"import-error\">\(error)</p>\n"
        }
        if let counts = item.counts {
            html += """
                <dl class="counts"><div><dt>Read</dt><dd>\(counts.read)</dd></div>\
                <div><dt>New</dt><dd>\(counts.inserted)</dd></div>\
                <div><dt>Already stored</dt><dd>\(counts.duplicate)</dd></div>\
                <div><dt>Rejected</dt><dd>\(counts.rejected)</dd></div></dl>

                """
        }
        if !item.diagnostics.isEmpty {
            let shown = item.diagnostics.prefix(diagnosticsShown).map { line -> HTML in "<li>\(line)</li>" }
            let more = item.diagnostics.count - shown.count
            let moreLine: HTML = more > 0 ? "<li>and \(more) more</li>" : .empty
            html += """
                <details><summary>\(item.diagnostics.count) diagnostic\(item.diagnostics.count == 1 ? "" : "s")</summary>
                <ul class="diagnostics">\(shown.joined(separator: "\n"))\(moreLine)</ul></details>

                """
        }
        html += "</li>\n"
        return html
    }
}
