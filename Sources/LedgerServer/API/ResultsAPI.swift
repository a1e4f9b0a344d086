import LedgerServices
import SleepCore
import SleepReports

/// The caller's results: summaries, nights in pages, the debt series and the charts.
/// Summaries without `as_of` are the rollup's stored ones; with `as_of`, computed now.
enum ResultsAPI {
    static let routes: [Route] = [
        Route(
            "GET", "/api/v1/summary", access: .token(.full), readsFromReplica: true,
            checksTokenItself: { storedSummaryHorizon($0) != nil },
            summaryRoute),
        Route("GET", "/api/v1/nights", access: .token(.full), readsFromReplica: true) { context in
            .respond(try nights(context))
        },
        Route("GET", "/api/v1/debt", access: .token(.full), readsFromReplica: true) { context in
            let (horizon, asOf) = try horizonAndDay(context)
            let view = try context.account().summary(horizon: horizon, asOf: asOf)
            return .respond(
                try answer(view) { summary in .json(DebtSeries(summary: summary, handle: view.user.handle)) })
        },
        Route("GET", "/api/v1/charts/duration.svg", access: .token(.full), readsFromReplica: true) { context in
            .respond(try chart(.duration, context))
        },
        Route("GET", "/api/v1/charts/debt.svg", access: .token(.full), readsFromReplica: true) { context in
            .respond(try chart(.debt, context))
        },
        Route("GET", "/api/v1/personal", access: .token(.full)) { context in .respond(try personal(context)) },
    ]

    /// `GET /api/v1/personal?horizon=&as_of=`: the need estimate, chronotype, the
    /// confidence of the horizon's nights and today's sleep-pressure curve (issue 24).
    static func personal(_ context: RequestContext) throws -> HTTPResponse {
        struct Document: Encodable {
            var handle: String
            var window: WakeDayRange
            var personal: PersonalResults
            var pressure: SleepPressureCurve?
            var pressureAbsentReason: String?

            enum CodingKeys: String, CodingKey {
                case handle, window, personal, pressure
                case pressureAbsentReason = "pressure_absent_reason"
            }
        }
        let (horizon, asOf) = try horizonAndDay(context)
        let view = try context.account().personal(horizon: horizon, asOf: asOf, now: context.server.now())
        return .json(
            Document(
                handle: view.user.handle, window: view.window, personal: view.results, pressure: view.pressure,
                pressureAbsentReason: view.pressure == nil
                    ? "no chronotype: " + (view.results.chronotype.undefinedReason ?? "") : nil))
    }

    /// `GET /api/v1/summary`; the hot path checks a token and reads the stored summary in
    /// one round trip.
    @Sendable static func summaryRoute(_ context: RequestContext) throws -> RequestPlan {
        if context.caller == nil, let token = context.request.bearerToken,
            let horizon = storedSummaryHorizon(context.request)
        {
            return .respond(try storedSummary(token: token, horizon: horizon, context.server))
        }
        return .respond(try summary(context))
    }

    /// `horizon` (weekly by default) and `as_of` of a summary, debt or chart request.
    static func horizonAndDay(_ context: RequestContext) throws -> (Horizon, LocalDate?) {
        let query = try context.query(["horizon", "as_of"])
        return (try query.horizon(default: .weekly), try query.date("as_of"))
    }

    /// `GET /api/v1/summary`: without `as_of`, the JSON text the rollup stored, sent as it
    /// is (decoding and encoding it again was most of the server's time per request); with
    /// `as_of`, the summary computed now and encoded.
    static func summary(_ context: RequestContext) throws -> HTTPResponse {
        let (horizon, asOf) = try horizonAndDay(context)
        guard asOf != nil else {
            return storedSummaryResponse(try context.account().storedSummaryText(horizon: horizon))
        }
        return try answer(try context.account().summary(horizon: horizon, asOf: asOf)) { .json($0) }
    }

    /// The horizon of a `GET /api/v1/summary` that asks for a stored summary (no `as_of`,
    /// no other parameter, a known horizon or none); `nil` for any other, which the general
    /// path answers (400 after the token is checked, or a summary computed on the fly).
    static func storedSummaryHorizon(_ request: HTTPRequest) -> Horizon? {
        try? QueryParameters(request, allowed: ["horizon"]).horizon(default: .weekly)
    }

    /// The stored summary for a token, checked and read in one round trip
    /// (``AccountService/storedSummaryText(sessions:token:horizon:now:)``), answered as the
    /// general path answers (401, 403 for an `ingest` token, 200, 404).
    static func storedSummary(token: String, horizon: Horizon, _ server: ServerEnvironment) throws -> HTTPResponse {
        let (caller, lookup) = try AccountService.storedSummaryText(
            sessions: server.pool, token: token, horizon: horizon, now: server.now())
        guard caller.scope == .full else { throw Authentication.fullScopeRequired }
        return storedSummaryResponse(lookup)
    }

    /// The stored summary's JSON text as the answer, or why there is none.
    static func storedSummaryResponse(_ lookup: SummaryService.TextLookup) -> HTTPResponse {
        switch lookup {
        case .found(var json):
            json.append(10)
            return HTTPResponse(status: 200, headers: [.init("Content-Type", "application/json")], body: json)
        case .absent(let absence):
            return noSummary(absence)
        }
    }

    /// `render` of the view's summary, or 404 `no_summary` saying why there is none.
    static func answer(_ view: AccountService.SummaryView, _ render: (Summary) -> HTTPResponse) throws -> HTTPResponse {
        switch view.lookup {
        case .found(let summary): return render(summary)
        case .absent(let absence): return noSummary(absence)
        }
    }

    /// 404 `no_summary`: the API's words for why there is no summary, and what makes one.
    static func noSummary(_ absence: SummaryService.Absence) -> HTTPResponse {
        let message: String
        switch absence {
        case .neverRolledUp:
            message =
                "nothing has been computed for you yet: upload an export to POST /api/v1/imports; "
                + "your summary is computed right after its import"
        case .noSamples:
            message = "you have no nights yet: upload an export to POST /api/v1/imports"
        case .samplesWithoutNights:
            message =
                "your sleep samples formed no night (all too short, or naps only); upload a fuller export to "
                + "POST /api/v1/imports"
        case .noStoredSummary:
            message =
                "no summary of this horizon is stored yet; it is computed after your next import or by the "
                + "nightly rollup"
        }
        return .error(404, code: "no_summary", message: message)
    }

    /// `GET /api/v1/nights?from=&to=`: one page of nights (each with its confidence) and naps,
    /// with a `next` link.
    static func nights(_ context: RequestContext) throws -> HTTPResponse {
        struct Page: Encodable {
            var handle: String
            var from: LocalDate
            var to: LocalDate
            var nights: [NightDocument]
            var naps: [NapDocument]
            var next: String?
        }
        let query = try context.query(["from", "to"])
        let (first, last) = (try query.date("from"), try query.date("to"))
        if let first, let last, first > last {
            throw QueryParameters.Refusal("from \(first) is after to \(last)")
        }
        let page = try context.account().nights(from: first, through: last, now: context.server.now())
        let base = context.server.baseURL(for: context.request)
        let next = page.next.map { base + "/api/v1/nights?from=\($0)&to=\(page.requestedLast)" }
        return .json(
            Page(
                handle: page.user.handle, from: page.first, to: page.last,
                nights: page.nights.map { NightDocument(night: $0, confidence: page.confidences[$0.wakeDay]) },
                naps: page.naps.map(NapDocument.init), next: next),
            headers: next.map { [.init("Link", "<\($0)>; rel=\"next\"")] } ?? [])
    }

    /// The charts the API draws.
    enum Chart { case duration, debt }

    /// `GET /api/v1/charts/{duration,debt}.svg`: the chart of the summary of `horizon`.
    static func chart(_ chart: Chart, _ context: RequestContext) throws -> HTTPResponse {
        let (horizon, asOf) = try horizonAndDay(context)
        let view = try context.account().summary(
            horizon: horizon, asOf: asOf,
            includingWindowNights: chart == .duration && (horizon == .daily || horizon == .weekly))
        return try answer(view) { summary in
            let svg =
                chart == .duration
                ? DurationChart.svg(summary: summary, nights: view.windowNights, handle: view.user.handle)
                : DebtChart.svg(summary: summary, handle: view.user.handle)
            return HTTPResponse(
                status: 200, headers: [.init("Content-Type", "image/svg+xml; charset=utf-8")], body: Array(svg.utf8))
        }
    }
}
