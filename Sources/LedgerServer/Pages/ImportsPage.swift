import LedgerServices
import LedgerStore
import WebPages

/// `GET /imports`: the person's last 100 imports, newest first, with counts and diagnostics.
enum ImportsPage {
    static let routes: [Route] = [
        Route("GET", WebPaths.imports, access: .signedIn) { context in
            let (_, notice) = try PageRendering.query(context)
            let handle = try context.account().account().user.handle
            let jobs = try context.server.uploads.imports(userID: try context.requireCaller().userID)
            let page = ImportsView.page(imports: jobs.map(ImportRow.init), notice: notice)
            return .respond(PageRendering.personal(page, try context.requireVisitor(), handle: handle))
        }
    ]
}

extension ImportRow {
    /// The history's row of a queued upload and what its import did.
    init(_ job: ImportJobStore.Job) {
        let counts = job.sampleCounts.map {
            Counts(read: $0.read, inserted: $0.inserted, duplicate: $0.duplicate, rejected: $0.rejected)
        }
        self.init(
            id: job.id, state: State(rawValue: job.state.rawValue) ?? .failed, fileName: job.fileName,
            sizeBytes: job.sizeBytes, createdAt: job.createdAt, finishedAt: job.finishedAt, counts: counts,
            diagnostics: job.diagnosticsJSON.map { ImportHistory.diagnosticLines($0) } ?? [], error: job.error)
    }
}
