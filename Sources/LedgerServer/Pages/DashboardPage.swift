import LedgerServices
import WebPages

/// `GET /?horizon=`: the dashboard (``DashboardView``) of the stored summary of the
/// horizon (weekly by default) with the nights of its window, or why there is none.
enum DashboardPage {
    static let routes: [Route] = [
        Route("GET", WebPaths.dashboard, access: .signedIn, readsFromReplica: true) { context in
            let (query, notice) = try PageRendering.query(context, taking: ["horizon"])
            let horizon = try query.horizon(default: .weekly)
            let service = try context.account()
            let account = try service.account()
            let view = try service.summary(horizon: horizon, asOf: nil, includingWindowNights: true)
            let content: DashboardView.Content
            var personal: PersonalCards?
            switch view.lookup {
            case .found(let summary):
                content = .summary(summary, windowNights: view.windowNights)
                let results = try service.personal(horizon: horizon, asOf: summary.asOf, now: context.server.now())
                personal = PersonalCards(
                    need: results.results.need, chronotype: results.results.chronotype,
                    confidence: results.results.confidence, nightConfidence: results.results.nightConfidence,
                    pressure: results.pressure, target: account.user.goals.target)
            case .absent(let absence): content = .absent(DashboardAbsence(absence))
            }
            let page = DashboardView.page(
                handle: account.user.handle, horizon: horizon, content: content,
                isRollupPending: account.isRollupPending, storedAt: account.lastRollupAt, notice: notice,
                personal: personal, workDays: account.user.goals.workDays)
            return .respond(PageRendering.personal(page, try context.requireVisitor(), handle: account.user.handle))
        }
    ]
}

extension DashboardAbsence {
    /// The dashboard's wording of why the summary service found no summary.
    init(_ absence: SummaryService.Absence) {
        switch absence {
        case .neverRolledUp: self = .neverRolledUp
        case .noSamples: self = .noSamples
        case .samplesWithoutNights: self = .samplesWithoutNights
        case .noStoredSummary: self = .noStoredSummary
        }
    }
}
