import LedgerServices
import LedgerStore
import SleepCore
import WebPages

/// `GET /settings`: time zone, goals, password, where the person is signed in and their
/// API tokens, and deleting the account, with the forms that change them (each answered
/// `303` back with a notice, or the page again with the reason).
enum SettingsPage {
    static let routes: [Route] = [
        Route("GET", WebPaths.settings, access: .signedIn) { context in
            let (_, notice) = try PageRendering.query(context)
            return .respond(try page(context, notice: notice))
        },
        Route("POST", WebPaths.settings, access: .signedIn) { context in
            PageRendering.form(context) { request in try save(request.form, context) }
        },
        Route("POST", WebPaths.password, access: .signedIn) { context in
            PageRendering.form(context) { request in try changePassword(request.form, context) }
        },
        Route("POST", WebPaths.endOtherSessions, access: .signedIn) { context in
            PageRendering.form(context) { _ in
                let visitor = try context.requireVisitor()
                _ = try context.server.access.endOtherSessions(userID: visitor.userID, keeping: visitor)
                return .seeOther(PageNotice.otherSessionsEnded.on(WebPaths.settings))
            }
        },
        Route("POST", WebPaths.revokeAllTokens, access: .signedIn) { context in
            PageRendering.form(context) { _ in
                _ = try context.account().revokeAllTokens(now: context.server.now())
                return .seeOther(PageNotice.tokensRevoked.on(WebPaths.settings))
            }
        },
        Route("POST", WebPaths.deleteAccount, access: .signedIn) { context in
            PageRendering.form(context) { request in try delete(request.form, context) }
        },
    ]

    /// The settings page with the stored values and `notice`, answered with `status` and `headers`.
    static func page(
        _ context: RequestContext, notice: WebNotice?, status: Int = 200, headers: [HTTPResponse.Header] = []
    ) throws -> HTTPResponse {
        let visitor = try context.requireVisitor()
        let account = try context.account()
        let user = try account.account().user
        let sessions = try context.server.access.sessions(
            userID: visitor.userID, current: visitor, now: context.server.now())
        let page = SettingsView.page(
            handle: user.handle, timeZone: user.timeZoneIdentifier, goals: user.goals, csrfToken: visitor.csrfToken,
            sessions: sessions.map(SessionRow.init), tokens: try account.tokens().map(TokenRow.init), notice: notice)
        return PageRendering.personal(page, visitor, handle: user.handle, status: status, headers: headers)
    }

    /// The page again with an error notice, answered with `status`.
    static func refused(_ context: RequestContext, _ message: String, status: Int) throws -> HTTPResponse {
        try page(context, notice: WebNotice(.error, message), status: status)
    }

    /// `POST /settings` (`time_zone`, `target_hours`, `target_minutes`, `minimum_hours`,
    /// `minimum_minutes`): saved as `PATCH /api/v1/me` saves them, the rollup run at once.
    static func save(_ form: [String: String], _ context: RequestContext) throws -> HTTPResponse {
        guard let target = duration(form, "target"), let minimum = duration(form, "minimum") else {
            return try refused(context, "Enter the goals as whole hours (0-23) and minutes (0-59).", status: 400)
        }
        let zone = form["time_zone"].flatMap { $0.isEmpty ? nil : $0 }
        let account: UserService.Account
        do {
            // The work-day boxes and the target mode came with the form when it has them.
            let hasPersonalFields = form["target_mode"] != nil
            let workDays = WorkDays(isoWeekdays: (1...7).filter { form["work_day_\($0)"] == "on" })
            account = try context.account().changeSettings(
                timeZone: zone, targetSeconds: target, minimumSeconds: minimum,
                workDays: hasPersonalFields ? workDays : nil,
                target: form["target_mode"].flatMap(SleepTarget.init(rawValue:)),
                rollingUpWith: context.server.database, now: context.server.now())
        } catch {
            guard error.kind == .invalidInput else { throw error }
            return try refused(context, PageRendering.sentence(error.message), status: 400)
        }
        let done: PageNotice = account.isRollupPending ? .settingsPending : .settingsSaved
        return .seeOther(done.on(WebPaths.settings))
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
    /// `new_password_repeat`, `revoke_tokens`): the password changed, every other session
    /// ended and, with `revoke_tokens` checked, every API token revoked; 400 or 403 (a
    /// wrong current password) with the page again. The check of the current
    /// password is throttled as sign-ins are, per account and per client address
    /// (``SignInThrottle/beginPasswordCheck(userID:address:now:)``): 429 with `Retry-After`
    /// and the page again while refused.
    static func changePassword(_ form: [String: String], _ context: RequestContext) throws -> HTTPResponse {
        let new = form["new_password"] ?? ""
        guard new == (form["new_password_repeat"] ?? "") else {
            return try refused(context, "The two new passwords differ; nothing was changed.", status: 400)
        }
        let visitor = try context.requireVisitor()
        let isRevokingTokens = form["revoke_tokens"] == "on"
        let server = context.server
        let address = context.request.clientAddress
        let started = server.now()
        switch server.signInThrottle.beginPasswordCheck(userID: visitor.userID, address: address, now: started) {
        case .refuse(let retryAfter):
            return try page(
                context,
                notice: WebNotice(
                    .error,
                    "Too many wrong passwords. Try again in \(SignInPages.minutes(retryAfter)); nothing was changed."),
                status: 429, headers: [.init("Retry-After", String(retryAfter))])
        case .proceed(let delay):
            if delay > 0 { server.pause(delay) }
        }
        do {
            try server.access.changePassword(
                userID: visitor.userID, current: form["current_password"] ?? "", new: new, keeping: visitor,
                revokingTokens: isRevokingTokens, now: started)
        } catch {
            if error.kind != .forbidden {
                server.signInThrottle.passwordCheckAbandoned(userID: visitor.userID, address: address)
            }
            switch error.kind {
            case .forbidden:
                return try refused(context, "The current password is wrong; nothing was changed.", status: 403)
            case .invalidInput:
                return try refused(context, PageRendering.sentence(error.message), status: 400)
            default:
                throw error
            }
        }
        server.signInThrottle.passwordCheckSucceeded(userID: visitor.userID, address: address)
        let done: PageNotice = isRevokingTokens ? .passwordChangedTokensRevoked : .passwordChanged
        return .seeOther(done.on(WebPaths.settings))
    }

    /// `POST /settings/delete` (`confirm_handle`): the account and every row of it deleted
    /// when the confirmation is the handle (as `DELETE /api/v1/me`), the session cookie
    /// removed and a page saying so; the settings page again (400) otherwise.
    static func delete(_ form: [String: String], _ context: RequestContext) throws -> HTTPResponse {
        let deletion = try context.account().delete(
            confirmation: form["confirm_handle"], lockWaitSeconds: AccountAPI.deletionLockWaitSeconds,
            deletion: AccountAPI.deletion(context))
        switch deletion {
        case .notConfirmed:
            return try refused(
                context, "Type your handle exactly to delete your account; nothing was deleted.", status: 400)
        case .deleted(let deleted):
            return PageRendering.message(
                title: "Account deleted",
                message: "The account \(deleted.handle) and all of its sleep data are deleted.",
                linkText: "Sign in with another account", linkPath: WebPaths.signIn, status: 200,
                headers: [WebCookie.clear(WebCookie.session, path: "/", secure: context.server.isSecureCookie)])
        }
    }
}

extension SessionRow {
    /// The page's row of a session: never its id.
    init(_ session: WebSessionStore.Listed) {
        self.init(
            createdAt: session.createdAt, lastUsedAt: session.lastUsedAt, address: session.address,
            isCurrent: session.isCurrent)
    }
}
