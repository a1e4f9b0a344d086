import LedgerServices
import LedgerStore
import WebPages

/// `GET /imports`: the person's last 100 imports, newest first, with counts and diagnostics:
/// their uploads and the imports made for them with `sleepledger import`.
enum ImportsPage {
    static let routes: [Route] = [
        Route("GET", WebPaths.imports, access: .signedIn) { context in
            let (_, notice) = try PageRendering.query(context)
            let handle = try context.account().account().user.handle
            let history = try context.server.uploads.history(userID: try context.requireCaller().userID)
            let page = ImportsView.page(imports: history.map(ImportRow.init), notice: notice)
            return .respond(PageRendering.personal(page, try context.requireVisitor(), handle: handle))
        }
    ]
}

extension ImportRow {
    /// The history's row of an import (``LedgerReadServices/ImportView``), under the person's
    /// import number (the history lists only numbered imports).
    init(_ view: ImportView) {
        let counts = view.counts.map {
            Counts(read: $0.read, inserted: $0.inserted, duplicate: $0.duplicate, rejected: $0.rejected)
        }
        self.init(
            id: view.number ?? 0, isCommandLine: view.origin == .command,
            state: State(rawValue: view.state.rawValue) ?? .failed,
            fileName: view.fileName, sizeBytes: view.sizeBytes, createdAt: view.createdAt,
            finishedAt: view.finishedAt, counts: counts, diagnostics: view.diagnostics, error: view.error)
    }
}
