import LedgerServices
import SleepCore

/// The caller's account (`/api/v1/me`): read it with its web sessions and tokens, change
/// the zone and goals (the rollup runs at once), delete it with everything in it; end the
/// caller's other web sessions (`/api/v1/me/sessions`); download all of it as a zip
/// (`/api/v1/me/export`). A `full` token or the session cookie.
enum AccountAPI {
    static let routes: [Route] = [
        Route("GET", "/api/v1/me", access: .token(.full)) { context in
            _ = try context.query([])
            return .respond(.json(try document(try context.account().account(), context)))
        },
        Route("PATCH", "/api/v1/me", access: .token(.full)) { context in
            let account = try context.account()
            return try JSONBody.plan(context) { body in try changeSettings(body, account, context) }
        },
        Route("DELETE", "/api/v1/me", access: .token(.full)) { context in
            let account = try context.account()
            let host = context.server.configuration.hostName
            return try JSONBody.plan(context) { body in try delete(body, account, host: host) }
        },
        // Heavy new work: a stopping server turns it away (503), as it does uploads.
        Route("GET", "/api/v1/me/export", access: .token(.full), isNewWork: true) { context in
            .respond(try export(context))
        },
        Route("DELETE", "/api/v1/me/sessions", access: .token(.full)) { context in
            struct Ended: Encodable {
                var endedSessions: Int
                enum CodingKeys: String, CodingKey { case endedSessions = "ended_sessions" }
            }
            _ = try context.query([])
            let caller = try context.requireCaller()
            let ended = try context.server.access.endOtherSessions(userID: caller.userID, keeping: caller.visitor)
            return .respond(.json(Ended(endedSessions: ended)))
        },
    ]

    /// The document of `account` with the caller's valid web sessions (the one asking
    /// marked) and tokens.
    static func document(_ account: UserService.Account, _ context: RequestContext) throws -> AccountDocument {
        let caller = try context.requireCaller()
        let server = context.server
        return AccountDocument(
            account,
            sessions: try server.access.sessions(userID: caller.userID, current: caller.visitor, now: server.now()),
            tokens: try context.account().tokens())
    }

    /// How long deleting an account waits for an import of it that runs.
    static let deletionLockWaitSeconds = 15.0

    static func changeSettings(_ body: [UInt8], _ account: AccountService, _ context: RequestContext) throws
        -> HTTPResponse
    {
        let server = context.server
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
        let changed = try account.changeSettings(
            timeZone: change.timeZone, targetSeconds: change.targetSeconds, minimumSeconds: change.minimumSeconds,
            rollingUpWith: server.database, now: server.now())
        return .json(try document(changed, context))
    }

    static func delete(_ body: [UInt8], _ account: AccountService, host: String) throws -> HTTPResponse {
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
        let deletion = try account.delete(
            confirmation: confirmation.confirmHandle, lockWaitSeconds: deletionLockWaitSeconds, spoolHost: host)
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

    /// `GET /api/v1/me/export`: the zip of all the caller's data (``DataExport``), streamed
    /// as it is read (``StreamedBody``), at most one per person and
    /// ``ServerConfiguration/maximumConcurrentExports`` at once (429 beyond). A refusal
    /// found before the first bytes (no such account) is answered as an error; a failure
    /// after them ends the download incomplete, and is logged.
    static func export(_ context: RequestContext) throws -> HTTPResponse {
        _ = try context.query([])
        let userID = try context.requireCaller().userID
        let server = context.server
        let now = server.now()
        let headers: [HTTPResponse.Header] = [
            .init("Content-Type", "application/zip"),
            .init(
                "Content-Disposition",
                "attachment; filename=\"\(DataExport.fileName(on: LocalDate(daysSinceEpoch: Int(now / 86_400))))\""),
        ]
        // A HEAD asks for the headers only: nothing is read.
        guard context.request.method == "GET" else { return HTTPResponse(status: 200, headers: headers) }
        let admission = try server.exports.admit(userID: userID)
        let (pool, log) = (server.pool, server.log)
        let body = StreamedBody(
            onFailure: { error in
                log(
                    "export of user \(userID) ended incomplete: \(MessageText.escaped(ServiceError(error).description))"
                )
            },
            produce: { write in
                defer { admission.end() }
                _ = try AccountService(sessions: pool, userID: userID).export(now: now, to: write)
            })
        try body.awaitStart()
        var response = HTTPResponse(status: 200, headers: headers)
        response.stream = body
        return response
    }
}
