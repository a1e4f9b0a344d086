import Foundation
import LedgerServices
import LedgerStore
import SleepCore
import WebPages

extension ServerRoutes {
    /// A signed-in person's own pages (docs/web-pages.md): the dashboard, upload, imports,
    /// nights with their CSV, settings, password, deleting the account, and API tokens.
    /// Each reads and writes through the services as that person (``AccountService``: one
    /// transaction as the user, so row-level security shows nothing of anyone else); forms
    /// carry the session's CSRF token; after a change the answer is `303` to a page that says
    /// what was done (``PageNotice``), so reloading it changes nothing again.
    static let personalPageRoutes: [Route] = [
        Route("GET", WebPaths.dashboard) { routes, request, _ in .respond(routes.dashboardPage(request)) },
        Route("GET", WebPaths.upload) { routes, request, _ in .respond(routes.uploadPage(request)) },
        Route("POST", WebPaths.upload) { routes, request, _ in routes.planPageUpload(request) },
        Route("GET", WebPaths.imports) { routes, request, _ in .respond(routes.importsPage(request)) },
        Route("GET", WebPaths.nights) { routes, request, _ in .respond(routes.nightsPage(request)) },
        Route("GET", WebPaths.nightsCSV) { routes, request, _ in .respond(routes.nightsCSV(request)) },
        Route("GET", WebPaths.settings) { routes, request, _ in .respond(routes.settingsPage(request)) },
        Route("POST", WebPaths.settings) { routes, request, _ in
            routes.readingForm(request) { request in routes.saveSettings(request) }
        },
        Route("POST", WebPaths.password) { routes, request, _ in
            routes.readingForm(request) { request in routes.changePassword(request) }
        },
        Route("POST", WebPaths.deleteAccount) { routes, request, _ in
            routes.readingForm(request) { request in routes.deleteAccountPage(request) }
        },
        Route("GET", WebPaths.tokens) { routes, request, _ in .respond(routes.tokensPage(request)) },
        Route("POST", WebPaths.tokens) { routes, request, _ in
            routes.readingForm(request) { request in routes.createTokenPage(request) }
        },
        Route("POST", WebPaths.revokeToken("{id}")) { routes, request, captured in
            routes.readingForm(request) { request in routes.revokeTokenPage(request, id: captured["id"] ?? "") }
        },
    ]

    /// What a page says after a form changed something and sent the browser on to it
    /// (`?done=` in the address, from a fixed list: the address never carries text).
    enum PageNotice: String, CaseIterable {
        case importQueued = "import-queued"
        case importKnown = "import-known"
        case settingsSaved = "settings-saved"
        case settingsPending = "settings-pending"
        case passwordChanged = "password-changed"
        case tokenRevoked = "token-revoked"

        /// The notice shown.
        var notice: WebNotice {
            switch self {
            case .importQueued:
                return WebNotice(.success, "Your export was uploaded and waits for its import below.")
            case .importKnown:
                return WebNotice(.info, "You had uploaded exactly this file before; its import is below.")
            case .settingsSaved:
                return WebNotice(.success, "Settings saved; your summaries follow them.")
            case .settingsPending:
                return WebNotice(.success, "Settings saved; your summaries follow them within a few minutes.")
            case .passwordChanged:
                return WebNotice(.success, "Password changed. Your other sessions were signed out.")
            case .tokenRevoked:
                return WebNotice(.success, "Token revoked: it no longer works.")
            }
        }

        /// The page's address with this notice.
        func on(_ path: String) -> String { path + "?done=" + rawValue }
    }

    /// The query of a page: the parameters it takes plus `done`, and the notice `done` names.
    /// Unknown names and values are refused (400 page) like the API's.
    private func pageQuery(_ request: HTTPRequest, _ allowed: [String]) throws(QueryParameters.Refusal) -> (
        QueryParameters, WebNotice?
    ) {
        let query = try QueryParameters(request, allowed: allowed + ["done"])
        guard let done = request.query["done"] else { return (query, nil) }
        guard let notice = PageNotice(rawValue: done) else {
            throw QueryParameters.Refusal("done must be one of the server's own notices")
        }
        return (query, notice.notice)
    }

    /// A signed-in person's page that takes the query parameters `allowed` (and `done`):
    /// `body` with the visitor, the parameters and the notice `done` names. A refused
    /// parameter, here or in `body`, or input a service refuses, is a 400 page saying why.
    private func personalPage(
        _ request: HTTPRequest, taking allowed: [String] = [],
        _ body: (WebSessionService.Visitor, QueryParameters, WebNotice?) throws -> HTTPResponse
    ) -> HTTPResponse {
        signedIn(request) { visitor in
            do {
                let (query, notice) = try pageQuery(request, allowed)
                return try body(visitor, query, notice)
            } catch let refusal as QueryParameters.Refusal {
                return try personalMessage(visitor, title: "Not understood", message: refusal.message, status: 400)
            } catch let error as ServiceError where error.kind == .invalidInput {
                return try personalMessage(
                    visitor, title: "Not understood", message: Self.sentence(error.message), status: 400)
            }
        }
    }

    /// A page for the visitor, wrapped in the layout with their handle and CSRF token.
    private func personal(
        _ page: WebPage, _ visitor: WebSessionService.Visitor, handle: String, status: Int = 200,
        headers: [HTTPResponse.Header] = []
    ) -> HTTPResponse {
        .page(WebLayout.render(page, signedIn: handle, csrfToken: visitor.csrfToken), status: status, headers: headers)
    }

    /// Runs `body` with the visitor's ``AccountService`` in one pooled session.
    private func account<T>(_ visitor: WebSessionService.Visitor, _ body: (AccountService) throws -> T) throws -> T {
        try pool.withSession { session in try body(AccountService(session: session, userID: visitor.userID)) }
    }

    /// A page of `title` and `message` for a signed-in person (a refused query, a token
    /// that is not theirs), answered with `status`.
    private func personalMessage(
        _ visitor: WebSessionService.Visitor, title: String, message: String, status: Int
    ) throws -> HTTPResponse {
        let handle = try account(visitor) { try $0.account().user.handle }
        var page = MessageView.page(title: title, message: message, linkText: "Go to your dashboard", linkPath: "/")
        return personal(page, visitor, handle: handle, status: status)
    }

    // MARK: Dashboard

    /// `GET /?horizon=`: the dashboard (``DashboardView``) of the stored summary of the
    /// horizon (weekly by default) with the nights of its window, or why there is none.
    func dashboardPage(_ request: HTTPRequest) -> HTTPResponse {
        personalPage(request, taking: ["horizon"]) { visitor, query, notice in
            let horizon = try query.horizon(default: .weekly)
            let (account, view) = try account(visitor) { service in
                (try service.account(), try service.summary(horizon: horizon, asOf: nil, includingWindowNights: true))
            }
            let content: DashboardView.Content
            switch view.lookup {
            case .found(let summary): content = .summary(summary, windowNights: view.windowNights)
            case .absent(let absence): content = .absent(DashboardAbsence(absence))
            }
            let page = DashboardView.page(
                handle: account.user.handle, horizon: horizon, content: content,
                isRollupPending: account.isRollupPending, storedAt: account.lastRollupAt, notice: notice)
            return personal(page, visitor, handle: account.user.handle)
        }
    }

    // MARK: Upload and imports

    /// `GET /upload`: the upload form with the cap.
    func uploadPage(_ request: HTTPRequest) -> HTTPResponse {
        signedIn(request) { visitor in
            let handle = try account(visitor) { try $0.account().user.handle }
            let page = UploadView.page(
                maximumUploadBytes: configuration.maximumUploadBytes, csrfToken: visitor.csrfToken)
            return personal(page, visitor, handle: handle)
        }
    }

    /// `POST /upload`: the upload form sent without JavaScript (`multipart/form-data` with
    /// `csrf_token` and `file`): spooled and queued as `POST /api/v1/imports` does, then
    /// `303` to the imports page. Without a session, `303` to sign-in before any byte is
    /// read; a refusal (too large, not an export, too many waiting) is the upload page
    /// again with the reason; a wrong or missing CSRF token is `403` and nothing is queued.
    func planPageUpload(_ request: HTTPRequest) -> Plan {
        let visitor: WebSessionService.Visitor
        do {
            guard let found = try self.visitor(request) else {
                return .respond(.seeOther(WebPaths.signIn, headers: clearingSession(request)))
            }
            visitor = found
        } catch {
            return .respond(pageFailure(error))
        }
        guard request.mediaType == "multipart/form-data" else {
            return .respond(uploadRefused(visitor, .error(415, code: "unsupported_media_type", message: "")))
        }
        let cookie = request.cookies[WebCookie.session]
        switch planUpload(request, policy: exportUploadPolicy, caller: visitor.caller) {
        case .respond(let refusal):
            return .respond(uploadRefused(visitor, refusal))
        case .upload(let receiver, let finish):
            return .upload(receiver) { [self] receiver in
                guard CookieSecret.isValid(receiver.field(WebPaths.csrfField), for: cookie, purpose: .session) else {
                    receiver.abandon()
                    return csrfRefusedPage
                }
                let answer = finish(receiver)
                switch answer.status {
                case 202: return .seeOther(PageNotice.importQueued.on(WebPaths.imports))
                case 200: return .seeOther(PageNotice.importKnown.on(WebPaths.imports))
                default: return uploadRefused(visitor, answer)
                }
            }
        case let other:
            return other
        }
    }

    /// The upload page again with the API's refusal in words, its status and `Retry-After`.
    private func uploadRefused(_ visitor: WebSessionService.Visitor, _ refusal: HTTPResponse) -> HTTPResponse {
        let message: String
        switch refusal.status {
        case 413:
            message =
                "The file is larger than the \(WebFormat.bytes(configuration.maximumUploadBytes)) this server accepts."
        case 415, 400:
            message = "Choose a file to upload: an export.zip, export.xml or a CSV of sleep samples."
        default:
            message = refusal.problem.map { Self.sentence($0) } ?? "The upload could not be stored. Try again later."
        }
        do {
            let handle = try account(visitor) { try $0.account().user.handle }
            let page = UploadView.page(
                maximumUploadBytes: configuration.maximumUploadBytes, csrfToken: visitor.csrfToken,
                notice: WebNotice(.error, message))
            return personal(
                page, visitor, handle: handle, status: refusal.status,
                headers: refusal.headers.filter { $0.name == "Retry-After" })
        } catch {
            return pageFailure(error)
        }
    }

    /// An API message (lower-case, no full stop) as a sentence.
    static func sentence(_ message: String) -> String {
        guard let first = message.first else { return message }
        let text = first.uppercased() + message.dropFirst()
        return text.hasSuffix(".") ? text : text + "."
    }

    /// `GET /imports`: the person's last 100 imports, newest first, with counts and
    /// diagnostics.
    func importsPage(_ request: HTTPRequest) -> HTTPResponse {
        personalPage(request) { visitor, _, notice in
            let (handle, jobs) = try pool.withSession { session in
                (
                    try AccountService(session: session, userID: visitor.userID).account().user.handle,
                    try ImportQueue(session: session, host: configuration.hostName).jobs(
                        userID: visitor.userID, limit: 100)
                )
            }
            let page = ImportsView.page(imports: jobs.map(ImportRow.init), notice: notice)
            return personal(page, visitor, handle: handle)
        }
    }

    // MARK: Nights

    /// `GET /nights?from=&to=`: the nights waking in the range (the last 30 days by default),
    /// at most ``AccountService/maximumPageDays`` of them: a longer range shows its first
    /// 366 days and says so.
    func nightsPage(_ request: HTTPRequest) -> HTTPResponse {
        personalPage(request, taking: ["from", "to"]) { visitor, query, _ in
            let (first, last) = (try query.date("from"), try query.date("to"))
            let page = try account(visitor) { try $0.nights(from: first, through: last, now: now()) }
            var notice: WebNotice?
            if page.last < page.requestedLast {
                notice = WebNotice(
                    .info,
                    "A page shows at most \(AccountService.maximumPageDays) days: these are \(page.first) "
                        + "through \(page.last). The CSV download has the whole range.")
            }
            let view = NightsView.page(nights: page.nights, from: page.first, to: page.requestedLast, notice: notice)
            return personal(view, visitor, handle: page.user.handle)
        }
    }

    /// `GET /nights.csv?from=&to=`: the nights of the whole range as the admin tool's CSV
    /// (``NightsView/csv(_:)``), read page by page, as a download.
    func nightsCSV(_ request: HTTPRequest) -> HTTPResponse {
        personalPage(request, taking: ["from", "to"]) { visitor, query, _ in
            let (first, last) = (try query.date("from"), try query.date("to"))
            var page = try account(visitor) { try $0.nights(from: first, through: last, now: now()) }
            var nights = page.nights
            while let next = page.next {
                let through = page.requestedLast
                page = try account(visitor) { try $0.nights(from: next, through: through, now: now()) }
                nights += page.nights
            }
            let start = first ?? page.first
            let name = NightsView.csvFileName(from: start, to: page.requestedLast)
            return HTTPResponse(
                status: 200,
                headers: [
                    .init("Content-Type", NightsView.csvContentType),
                    .init("Content-Disposition", "attachment; filename=\"\(name)\""),
                    .init("Cache-Control", "no-store"),
                ] + HTTPResponse.pageSecurityHeaders,
                body: Array(NightsView.csv(nights).utf8))
        }
    }

    // MARK: Settings

    /// `GET /settings`: time zone, goals, password and deleting the account.
    func settingsPage(_ request: HTTPRequest) -> HTTPResponse {
        personalPage(request) { visitor, _, notice in try settings(visitor, notice: notice) }
    }

    /// The settings page with the stored values and `notice`, answered with `status`.
    private func settings(_ visitor: WebSessionService.Visitor, notice: WebNotice?, status: Int = 200) throws
        -> HTTPResponse
    {
        let user = try account(visitor) { try $0.account().user }
        let page = SettingsView.page(
            handle: user.handle, timeZone: user.timeZoneIdentifier,
            goals: user.goals,
            csrfToken: visitor.csrfToken, notice: notice)
        return personal(page, visitor, handle: user.handle, status: status)
    }

    /// `POST /settings` (`time_zone`, `target_hours`, `target_minutes`, `minimum_hours`,
    /// `minimum_minutes`): saved as `PATCH /api/v1/me` saves them, the rollup run at once;
    /// `303` back with a notice, or the page again with the reason (400).
    func saveSettings(_ request: HTTPRequest) -> HTTPResponse {
        signedIn(request, checkingFormToken: true) { visitor in
            let form = request.form
            guard let target = Self.duration(form, "target"), let minimum = Self.duration(form, "minimum") else {
                return try settings(
                    visitor, notice: WebNotice(.error, "Enter the goals as whole hours (0-23) and minutes (0-59)."),
                    status: 400)
            }
            let zone = form["time_zone"].flatMap { $0.isEmpty ? nil : $0 }
            do {
                let account = try account(visitor) { service in
                    try service.changeSettings(
                        timeZone: zone, targetSeconds: target, minimumSeconds: minimum, rollingUpWith: database,
                        now: now())
                }
                let done: PageNotice = account.isRollupPending ? .settingsPending : .settingsSaved
                return .seeOther(done.on(WebPaths.settings))
            } catch let error as ServiceError where error.kind == .invalidInput {
                return try settings(visitor, notice: WebNotice(.error, Self.sentence(error.message)), status: 400)
            }
        }
    }

    /// Seconds from the form's `<name>_hours` and `<name>_minutes`; `nil` unless both are
    /// whole numbers in range (an empty minutes field is 0).
    static func duration(_ form: [String: String], _ name: String) -> Int64? {
        let minutesText = form["\(name)_minutes"].map { $0.isEmpty ? "0" : $0 } ?? "0"
        guard let hours = form["\(name)_hours"].flatMap({ Int64($0) }), let minutes = Int64(minutesText),
            (0...23).contains(hours), (0...59).contains(minutes)
        else { return nil }
        return hours * 3600 + minutes * 60
    }

    /// `POST /settings/password` (`current_password`, `new_password`,
    /// `new_password_repeat`): the password changed and every other session ended; `303`
    /// back with a notice, or the page again with the reason (400, or 403 for a wrong
    /// current password).
    func changePassword(_ request: HTTPRequest) -> HTTPResponse {
        signedIn(request, checkingFormToken: true) { visitor in
            let form = request.form
            let new = form["new_password"] ?? ""
            guard new == (form["new_password_repeat"] ?? "") else {
                return try settings(
                    visitor, notice: WebNotice(.error, "The two new passwords differ; nothing was changed."),
                    status: 400)
            }
            do {
                try pool.withSession { session in
                    try PasswordService(session: session, hashing: passwordHashing).change(
                        userID: visitor.userID, current: form["current_password"] ?? "", new: new, keeping: visitor,
                        now: now())
                }
            } catch let error as ServiceError where error.kind == .forbidden {
                return try settings(
                    visitor, notice: WebNotice(.error, "The current password is wrong; nothing was changed."),
                    status: 403)
            } catch let error as ServiceError where error.kind == .invalidInput {
                return try settings(visitor, notice: WebNotice(.error, Self.sentence(error.message)), status: 400)
            }
            return .seeOther(PageNotice.passwordChanged.on(WebPaths.settings))
        }
    }

    /// `POST /settings/delete` (`confirm_handle`): the account and every row of it deleted
    /// when the confirmation is the handle (as `DELETE /api/v1/me`), the session cookie
    /// removed and a page saying so; the settings page again (400) otherwise.
    func deleteAccountPage(_ request: HTTPRequest) -> HTTPResponse {
        signedIn(request, checkingFormToken: true) { visitor in
            let deletion = try account(visitor) { service in
                try service.delete(
                    confirmation: request.form["confirm_handle"], lockWaitSeconds: Self.deletionLockWaitSeconds,
                    spoolHost: configuration.hostName)
            }
            switch deletion {
            case .notConfirmed:
                return try settings(
                    visitor,
                    notice: WebNotice(.error, "Type your handle exactly to delete your account; nothing was deleted."),
                    status: 400)
            case .deleted(let deleted):
                return Self.messagePage(
                    title: "Account deleted",
                    message: "The account \(deleted.handle) and all of its sleep data are deleted.",
                    linkText: "Sign in with another account", linkPath: WebPaths.signIn, status: 200,
                    headers: [WebCookie.clear(WebCookie.session, path: "/", secure: isSecureCookie)])
            }
        }
    }

    // MARK: Tokens

    /// `GET /tokens`: the person's API tokens and the Health Auto Export settings.
    func tokensPage(_ request: HTTPRequest) -> HTTPResponse {
        personalPage(request) { visitor, _, notice in try tokens(visitor, request, notice: notice) }
    }

    /// The tokens page with `created` shown once and `notice`, answered with `status`.
    private func tokens(
        _ visitor: WebSessionService.Visitor, _ request: HTTPRequest, created: TokensView.CreatedToken? = nil,
        notice: WebNotice?, status: Int = 200
    ) throws -> HTTPResponse {
        let (handle, records) = try account(visitor) { service in
            (try service.account().user.handle, try service.tokens())
        }
        let page = TokensView.page(
            tokens: records.map(TokenRow.init), created: created, publicURL: baseURL(for: request),
            csrfToken: visitor.csrfToken, notice: notice)
        return personal(page, visitor, handle: handle, status: status)
    }

    /// `POST /tokens` (`name`, `scope`): a new token, shown on the page this once (the
    /// answer is the page itself, never cached: the secret is in no address).
    func createTokenPage(_ request: HTTPRequest) -> HTTPResponse {
        signedIn(request, checkingFormToken: true) { visitor in
            let name = request.form["name"].map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard let scope = request.form["scope"].flatMap(TokenStore.Scope.init(rawValue:)) else {
                return try tokens(
                    visitor, request, notice: WebNotice(.error, "Choose what the token may do."), status: 400)
            }
            do {
                let issued = try account(visitor) {
                    try $0.createToken(name: name.isEmpty ? "token" : name, scope: scope)
                }
                let row = TokenRow(issued.record)
                return try tokens(
                    visitor, request,
                    created: TokensView.CreatedToken(token: issued.token, name: row.name, scope: row.scope),
                    notice: nil, status: 201)
            } catch let error as ServiceError where [.invalidInput, .busy, .conflict].contains(error.kind) {
                return try tokens(
                    visitor, request, notice: WebNotice(.error, Self.sentence(error.message)), status: 400)
            }
        }
    }

    /// `POST /tokens/{id}/revoke`: the token revoked; `303` back with a notice; 404 when the
    /// person has no token of that id (or it is no token id at all).
    func revokeTokenPage(_ request: HTTPRequest, id: String) -> HTTPResponse {
        signedIn(request, checkingFormToken: true) { visitor in
            do {
                try account(visitor) { try $0.revokeToken(id: id, now: now()) }
            } catch let error as ServiceError where [.notFound, .invalidInput].contains(error.kind) {
                return try personalMessage(visitor, title: "Not found", message: "You have no such token.", status: 404)
            }
            return .seeOther(PageNotice.tokenRevoked.on(WebPaths.tokens))
        }
    }
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

extension ImportRow {
    /// The history's row of a queued upload and what its import did.
    init(_ job: ImportJobStore.Job) {
        let counts = job.sampleCounts.map {
            Counts(read: $0.read, inserted: $0.inserted, duplicate: $0.duplicate, rejected: $0.rejected)
        }
        self.init(
            id: job.id, state: State(rawValue: job.state.rawValue) ?? .failed, fileName: job.fileName,
            sizeBytes: job.sizeBytes, createdAt: job.createdAt, finishedAt: job.finishedAt, counts: counts,
            diagnostics: job.diagnosticsJSON.map { ImportService.diagnosticLines($0) } ?? [], error: job.error)
    }
}

extension TokenRow {
    /// The page's row of a token: its id as the API shows it, never a secret.
    init(_ record: TokenStore.Record) {
        self.init(
            id: TokenService.idText(record.id), name: record.name,
            scope: record.scope == .full ? .full : .ingest, createdAt: record.createdAt,
            lastUsedAt: record.lastUsedAt, revokedAt: record.revokedAt)
    }
}
