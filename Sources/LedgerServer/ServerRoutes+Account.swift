import Foundation
import LedgerServices
import LedgerStore
import SleepCore
import SleepReports

extension ServerRoutes {
    /// The caller's own data: account, summaries, nights, debt, charts and tokens. Every
    /// route needs a `full` token (an `ingest` token gets 403), reads through
    /// ``AccountService`` (one transaction as the caller, so row-level security shows
    /// nothing of anyone else) and answers with `Cache-Control: no-store`.
    static let accountRoutes: [Route] = [
        Route("GET", "/api/v1/me") { routes, request, _ in
            routes.reading(request, parameters: []) { caller, _ in try routes.account(caller) }
        },
        Route("PATCH", "/api/v1/me") { routes, request, _ in
            routes.readingBody(request) { caller, body in try routes.changeSettings(caller, body) }
        },
        Route("DELETE", "/api/v1/me") { routes, request, _ in
            routes.readingBody(request) { caller, body in try routes.deleteAccount(caller, body) }
        },
        Route("GET", "/api/v1/summary") { routes, request, _ in
            // The hot path: a token and the stored summary, checked and read in one round trip.
            if let token = request.bearerToken, let horizon = storedSummaryHorizon(request) {
                return .respond(noStore(routes.storedSummary(token: token, horizon: horizon)))
            }
            return routes.reading(request, parameters: ["horizon", "as_of"]) { caller, query in
                try routes.summary(caller, query)
            }
        },
        Route("GET", "/api/v1/nights") { routes, request, _ in
            routes.reading(request, parameters: ["from", "to"]) { caller, query in
                try routes.nights(caller, query, base: routes.baseURL(for: request))
            }
        },
        Route("GET", "/api/v1/debt") { routes, request, _ in
            routes.reading(request, parameters: ["horizon", "as_of"]) { caller, query in try routes.debt(caller, query)
            }
        },
        Route("GET", "/api/v1/charts/duration.svg") { routes, request, _ in
            routes.reading(request, parameters: ["horizon", "as_of"]) { caller, query in
                try routes.chart(.duration, caller, query)
            }
        },
        Route("GET", "/api/v1/charts/debt.svg") { routes, request, _ in
            routes.reading(request, parameters: ["horizon", "as_of"]) { caller, query in
                try routes.chart(.debt, caller, query)
            }
        },
        Route("GET", "/api/v1/tokens") { routes, request, _ in
            routes.reading(request, parameters: []) { caller, _ in try routes.listTokens(caller) }
        },
        Route("POST", "/api/v1/tokens") { routes, request, _ in
            routes.readingBody(request) { caller, body in try routes.createToken(caller, body) }
        },
        Route("DELETE", "/api/v1/tokens/{id}") { routes, request, captured in
            routes.reading(request, parameters: []) { caller, _ in
                try routes.revokeToken(captured["id"] ?? "", caller)
            }
        },
    ]

    /// How long deleting an account waits for an import of it that runs.
    static let deletionLockWaitSeconds = 15.0

    // MARK: Plans

    /// A route that reads no body: authorized with the `full` scope, then its query
    /// parameters (only `parameters`) checked, then `body`.
    func reading(
        _ request: HTTPRequest, parameters: [String],
        _ body: (TokenService.Caller, QueryParameters) throws -> HTTPResponse
    ) -> Plan {
        .respond(
            Self.noStore(
                authorized(request, requiring: .full) { caller in
                    do {
                        return try body(caller, try QueryParameters(request, allowed: parameters))
                    } catch let refusal as QueryParameters.Refusal {
                        return refusal.response
                    }
                }))
    }

    /// A route that reads a JSON body: authorized with the `full` scope from the head
    /// (401 and 403 before any of the body is read), no query parameters, a body of at
    /// most ``ServerConfiguration/maximumBodyBytes``, then `body` with its bytes.
    func readingBody(
        _ request: HTTPRequest, _ body: @escaping (TokenService.Caller, [UInt8]) throws -> HTTPResponse
    ) -> Plan {
        var caller: TokenService.Caller?
        let refusal = authorized(request, requiring: .full) { found in
            caller = found
            return HTTPResponse(status: 100)
        }
        guard let caller else { return .respond(Self.noStore(refusal)) }
        do {
            _ = try QueryParameters(request, allowed: [])
        } catch {
            return .respond(Self.noStore(error.response))
        }
        let limit = configuration.maximumBodyBytes
        if let length = request.contentLength, length > Int64(limit) {
            return .respond(
                Self.noStore(.error(413, code: "too_large", message: "the body is larger than this route accepts")))
        }
        return .collect(limit: limit) { request in
            do {
                return Self.noStore(try body(caller, request.body))
            } catch let refusal as JSONBody.Refusal {
                return Self.noStore(refusal.response)
            } catch {
                return Self.noStore(Self.response(for: error))
            }
        }
    }

    /// `response` with `Cache-Control: no-store`: personal data stays out of caches.
    static func noStore(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.append(.init("Cache-Control", "no-store"))
        return response
    }

    private func service<T>(_ caller: TokenService.Caller, _ body: (AccountService) throws -> T) throws -> T {
        try pool.withSession { session in try body(AccountService(session: session, userID: caller.userID)) }
    }

    // MARK: Account

    func account(_ caller: TokenService.Caller) throws -> HTTPResponse {
        .json(AccountDocument(try service(caller) { try $0.account() }))
    }

    func changeSettings(_ caller: TokenService.Caller, _ body: [UInt8]) throws -> HTTPResponse {
        struct Change: Decodable {
            var timeZone: String?
            var targetSeconds: Int64?
            var minimumSeconds: Int64?

            enum CodingKeys: String, CodingKey {
                case timeZone = "time_zone"
                case targetSeconds = "target_seconds"
                case minimumSeconds = "minimum_seconds"
            }
        }
        let fields = ["time_zone", "target_seconds", "minimum_seconds"]
        let change = try JSONBody.decode(Change.self, from: body, fields: fields)
        guard change.timeZone != nil || change.targetSeconds != nil || change.minimumSeconds != nil else {
            throw JSONBody.Refusal("send at least one of \(fields.joined(separator: ", "))")
        }
        let account = try service(caller) { service in
            try service.changeSettings(
                timeZone: change.timeZone, targetSeconds: change.targetSeconds, minimumSeconds: change.minimumSeconds,
                rollingUpWith: database, now: now())
        }
        return .json(AccountDocument(account))
    }

    func deleteAccount(_ caller: TokenService.Caller, _ body: [UInt8]) throws -> HTTPResponse {
        struct Confirmation: Decodable {
            var confirmHandle: String?
            enum CodingKeys: String, CodingKey { case confirmHandle = "confirm_handle" }
        }
        struct Deleted: Encodable {
            struct Body: Encodable {
                var handle: String
                var cancelledImports: Int
                var removedSpoolFiles: Int
                enum CodingKeys: String, CodingKey {
                    case handle
                    case cancelledImports = "cancelled_imports"
                    case removedSpoolFiles = "removed_spool_files"
                }
            }
            var deleted: Body
        }
        let confirmation = try JSONBody.decode(Confirmation.self, from: body, fields: ["confirm_handle"])
        let deletion = try service(caller) { service in
            try service.delete(
                confirmation: confirmation.confirmHandle, lockWaitSeconds: Self.deletionLockWaitSeconds,
                spoolHost: configuration.hostName)
        }
        switch deletion {
        case .notConfirmed:
            return .error(
                400, code: "confirmation_required",
                message:
                    "deleting your account removes all of its data and cannot be undone; to confirm, send "
                    + "{\"confirm_handle\": \"<your handle>\"} with your handle exactly as GET /api/v1/me shows it")
        case .deleted(let deleted):
            return .json(
                Deleted(
                    deleted: .init(
                        handle: deleted.handle, cancelledImports: deleted.cancelledImports,
                        removedSpoolFiles: deleted.removedSpoolFiles)))
        }
    }

    // MARK: Results

    /// `GET /api/v1/summary`: without `as_of`, the JSON text the rollup stored, sent as
    /// it is (decoding and encoding it again was most of the server's time per request);
    /// with `as_of`, the summary computed now and encoded.
    func summary(_ caller: TokenService.Caller, _ query: QueryParameters) throws -> HTTPResponse {
        let (horizon, asOf) = (try query.horizon(default: .weekly), try query.date("as_of"))
        if asOf == nil {
            return Self.storedSummaryResponse(try service(caller, { try $0.storedSummaryText(horizon: horizon) }))
        }
        let view = try service(caller) { try $0.summary(horizon: horizon, asOf: asOf) }
        switch view.lookup {
        case .found(let summary): return .json(summary)
        case .absent(let absence): return Self.noSummary(absence)
        }
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

    /// The horizon of a `GET /api/v1/summary` that asks for a stored summary (no `as_of`,
    /// no other parameter, a known horizon or none); `nil` for any other, which the general
    /// route answers (400 after the token is checked, or a summary computed on the fly).
    static func storedSummaryHorizon(_ request: HTTPRequest) -> Horizon? {
        try? QueryParameters(request, allowed: ["horizon"]).horizon(default: .weekly)
    }

    /// `GET /api/v1/summary` with a token, for a stored summary: the token checked and the
    /// summary read in one round trip (``AccountService/storedSummaryText(session:token:horizon:now:)``),
    /// answered as the general route answers (401, 403 for an `ingest` token, 200, 404).
    func storedSummary(token: String, horizon: Horizon) -> HTTPResponse {
        do {
            let (caller, lookup) = try pool.withSession { session in
                try AccountService.storedSummaryText(session: session, token: token, horizon: horizon, now: now())
            }
            guard caller.scope == .full else { return HTTPResponse(Self.fullScopeRequired) }
            return Self.storedSummaryResponse(lookup)
        } catch {
            return Self.response(for: error)
        }
    }

    func debt(_ caller: TokenService.Caller, _ query: QueryParameters) throws -> HTTPResponse {
        let (horizon, asOf) = (try query.horizon(default: .weekly), try query.date("as_of"))
        let view = try service(caller) { try $0.summary(horizon: horizon, asOf: asOf) }
        switch view.lookup {
        case .found(let summary): return .json(DebtSeries(summary: summary, handle: view.user.handle))
        case .absent(let absence): return Self.noSummary(absence)
        }
    }

    /// The charts the API draws.
    enum Chart { case duration, debt }

    func chart(_ chart: Chart, _ caller: TokenService.Caller, _ query: QueryParameters) throws -> HTTPResponse {
        let (horizon, asOf) = (try query.horizon(default: .weekly), try query.date("as_of"))
        let view = try service(caller) { service in
            try service.summary(
                horizon: horizon, asOf: asOf,
                includingWindowNights: chart == .duration && (horizon == .daily || horizon == .weekly))
        }
        guard case .found(let summary) = view.lookup else {
            if case .absent(let absence) = view.lookup { return Self.noSummary(absence) }
            return Self.noSummary(.noStoredSummary)
        }
        let svg =
            chart == .duration
            ? DurationChart.svg(summary: summary, nights: view.windowNights, handle: view.user.handle)
            : DebtChart.svg(summary: summary, handle: view.user.handle)
        return HTTPResponse(
            status: 200, headers: [.init("Content-Type", "image/svg+xml; charset=utf-8")], body: Array(svg.utf8))
    }

    /// 404 `no_summary`: why there is no summary to show, and what makes one.
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

    func nights(_ caller: TokenService.Caller, _ query: QueryParameters, base: String) throws -> HTTPResponse {
        struct Page: Encodable {
            var handle: String
            var from: LocalDate
            var to: LocalDate
            var nights: [NightDocument]
            var naps: [NapDocument]
            var next: String?
        }
        let (first, last) = (try query.date("from"), try query.date("to"))
        if let first, let last, first > last {
            throw QueryParameters.Refusal("from \(first) is after to \(last)")
        }
        let page = try service(caller) { try $0.nights(from: first, through: last, now: now()) }
        let next = page.next.map { base + "/api/v1/nights?from=\($0)&to=\(page.requestedLast)" }
        return .json(
            Page(
                handle: page.user.handle, from: page.first, to: page.last, nights: page.nights.map(NightDocument.init),
                naps: page.naps.map(NapDocument.init), next: next),
            headers: next.map { [.init("Link", "<\($0)>; rel=\"next\"")] } ?? [])
    }

    // MARK: Tokens

    func listTokens(_ caller: TokenService.Caller) throws -> HTTPResponse {
        struct Listing: Encodable { var tokens: [TokenDocument] }
        return .json(Listing(tokens: try service(caller) { try $0.tokens() }.map(TokenDocument.init)))
    }

    func createToken(_ caller: TokenService.Caller, _ body: [UInt8]) throws -> HTTPResponse {
        struct Request: Decodable {
            var name: String?
            var scope: String?
        }
        struct Created: Encodable {
            var token: String
            var record: TokenDocument
            func encode(to encoder: any Encoder) throws {
                try record.encode(to: encoder)
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(token, forKey: .token)
            }
            enum Key: String, CodingKey { case token }
        }
        let request = try JSONBody.decode(Request.self, from: body, fields: ["name", "scope"])
        let scopeText = request.scope ?? TokenStore.Scope.full.rawValue
        guard let scope = TokenStore.Scope(rawValue: scopeText) else {
            throw JSONBody.Refusal("field 'scope' must be ingest or full, not \(MessageText.quoted(scopeText))")
        }
        let issued = try service(caller) { try $0.createToken(name: request.name ?? "token", scope: scope) }
        return .json(Created(token: issued.token, record: TokenDocument(issued.record)), status: 201)
    }

    func revokeToken(_ id: String, _ caller: TokenService.Caller) throws -> HTTPResponse {
        try service(caller) { try $0.revokeToken(id: id, now: now()) }
        return HTTPResponse(status: 204)
    }
}
