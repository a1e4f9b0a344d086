import Foundation
public import LedgerStore
import PostgresClient
public import SleepCore

/// A person's own data, as the API serves it to the holder of their token: the account
/// and its settings, summaries, nights and debt, tokens, and the account's deletion.
///
/// Every call runs in one transaction as the user (``LedgerSession/asUser(_:_:)``): on the
/// server's role, row-level security shows it that user's rows and nobody else's, whatever
/// the statements inside ask for. The rollup after a change of settings is the one step
/// that runs elsewhere: as every rollup does, on the operator's database configuration
/// (``RollupService``).
public struct AccountService {
    /// Where every call finds its session: one session (a command's) or the server's pool.
    public let sessions: any SessionSource
    /// The user whose data this is (the token's owner).
    public let userID: Int64
    /// The rules summaries computed on the fly use.
    public let rules: MetricRules

    /// Creates the service for user `userID` over `sessions`: each call takes one session
    /// from it for its length.
    public init(sessions: any SessionSource, userID: Int64, rules: MetricRules = .standard) {
        self.sessions = sessions
        self.userID = userID
        self.rules = rules
    }

    /// Creates the service for user `userID` over `session`.
    public init(session: LedgerSession, userID: Int64, rules: MetricRules = .standard) {
        self.init(sessions: session, userID: userID, rules: rules)
    }

    /// Runs `body` with a session and the user's row in one transaction as the user;
    /// ``ServiceError/Kind/notFound`` when the user no longer exists.
    private func asUser<T>(_ body: (LedgerSession, User) throws -> T) throws(ServiceError) -> T {
        try ServiceError.wrapping { try sessions.withSession { session in try Self.asUser(userID, on: session, body) } }
    }

    private static func asUser<T>(_ userID: Int64, on session: LedgerSession, _ body: (LedgerSession, User) throws -> T)
        throws -> T
    {
        try session.asUser(userID) {
            guard let user = try UserStore(connection: session.connection).find(id: userID) else {
                throw ServiceError(.notFound, "this account no longer exists")
            }
            return try body(session, user)
        }
    }

    // MARK: Account

    /// The account: settings and bookkeeping times.
    public func account() throws(ServiceError) -> UserService.Account {
        try ServiceError.wrapping { try sessions.withSession { try UserService(session: $0).account(id: userID) } }
    }

    /// Changes the zone and goals (`nil` keeps a value) under ``UserService``'s rules and
    /// messages, then, with `database`, runs the user's rollup at once so that the stored
    /// results follow the new settings (a rollup another runner holds is waited for, a few
    /// seconds at most). Returns the account afterwards; when the rollup could not run,
    /// its ``UserService/Account/isRollupPending`` says so and the next rollup catches up.
    public func changeSettings(
        timeZone: String?, targetSeconds: Int64?, minimumSeconds: Int64?, rollingUpWith database: LedgerDatabase?,
        now: Int64
    ) throws(ServiceError) -> UserService.Account {
        _ = try asUser { session, user in
            try UserService(session: session).update(
                handle: user.handle, timeZone: timeZone, targetSeconds: targetSeconds, minimumSeconds: minimumSeconds)
        }
        if let database { rollUp(database, now: now) }
        return try account()
    }

    /// How often, and how long apart, a rollup skipped because another runner held the
    /// user is tried again.
    static let rollupAttempts = 20
    static let rollupRetryMicroseconds: UInt32 = 250_000

    private func rollUp(_ database: LedgerDatabase, now: Int64) {
        let rollup = RollupService(database: database, settings: RollupSettings(userID: userID))
        for _ in 0..<Self.rollupAttempts {
            guard let report = try? rollup.run(now: now), report.usersSkipped > 0 else { return }
            usleep(Self.rollupRetryMicroseconds)
        }
    }

    // MARK: Results

    /// A summary with what a view of it needs.
    public struct SummaryView: Sendable, Hashable {
        /// The user.
        public var user: User
        /// The summary, or why there is none.
        public var lookup: SummaryService.Lookup
        /// The stored nights of the summary's window when asked for (the bars of a daily
        /// or weekly duration chart); empty otherwise.
        public var windowNights: [Night]
    }

    /// The summary of `horizon`: as the last rollup stored it, or with `asOf` computed
    /// from the stored nights (``SummaryService/summary(for:horizon:asOf:)``), with the
    /// nights of its window when `includingWindowNights`.
    public func summary(horizon: Horizon, asOf: LocalDate?, includingWindowNights: Bool = false)
        throws(ServiceError) -> SummaryView
    {
        try SupportedDates.check(asOf, "the as-of day")
        return try asUser { session, user in
            let results = SummaryService(session: session, rules: rules)
            let lookup = try results.summary(for: user, horizon: horizon, asOf: asOf)
            var nights: [Night] = []
            if includingWindowNights, case .found(let summary) = lookup {
                nights = try results.nights(for: user, from: summary.window.first, through: summary.window.last)
            }
            return SummaryView(user: user, lookup: lookup, windowNights: nights)
        }
    }

    /// The summary of `horizon` as the last rollup stored it, as its JSON text: what
    /// ``summary(horizon:asOf:includingWindowNights:)`` finds without `asOf`, neither
    /// decoded nor encoded again (``SummaryService/storedText(for:horizon:)``).
    ///
    /// The user's row and the summary are read in one round trip to the database
    /// (``LedgerSession/readAsUser(_:_:)``: one read-only transaction as the user). When
    /// that shows no summary with nights, the answer is decided as the decoded read
    /// decides it (are there nights at all? why not?) in a transaction of its own.
    public func storedSummaryText(horizon: Horizon) throws(ServiceError) -> SummaryService.TextLookup {
        try ServiceError.wrapping { try sessions.withSession { try storedSummaryText(horizon: horizon, on: $0) } }
    }

    private func storedSummaryText(horizon: Horizon, on session: LedgerSession) throws(ServiceError)
        -> SummaryService.TextLookup
    {
        let results = try session.readAsUser(
            userID,
            [UserStore.findStatement(id: userID), SummaryStore.storedTextStatement(userID: userID, horizon: horizon)])
        let (user, stored) = try ServiceError.wrapping {
            (try UserStore.user(in: results[0]), try SummaryStore.storedText(in: results[1]))
        }
        guard user != nil else { throw ServiceError(.notFound, "this account no longer exists") }
        if let stored, SummaryService.isWorthShowing(hasNightData: stored.hasNightData, { false }) {
            return .found(stored.json)
        }
        let rules = rules
        return try ServiceError.wrapping {
            try Self.asUser(userID, on: session) { session, user in
                try SummaryService(session: session, rules: rules).storedText(for: user, horizon: horizon)
            }
        }
    }

    /// The stored summary of `horizon` for the bearer of API token `token`, with the caller
    /// it speaks for: the token checked as ``TokenService/authenticate(_:now:)`` checks it,
    /// the summary as ``storedSummaryText(horizon:)`` finds it, and both in one round trip
    /// to the database when the session knows the token's owner (two the first time: the
    /// owner, then the reads as that owner), the summary is stored and the token's use needs
    /// no recording
    /// (``LedgerSession/readAsTokenOwner(id:hash:_:)``). The caller's scope is for the
    /// caller to check. ``ServiceError/Kind/unauthorized`` for a token that is malformed,
    /// unknown, revoked or wrong.
    public static func storedSummaryText(sessions: any SessionSource, token: String, horizon: Horizon, now: Int64)
        throws(ServiceError) -> (caller: TokenService.Caller, lookup: SummaryService.TextLookup)
    {
        try ServiceError.wrapping {
            try sessions.withSession { session in
                try storedSummaryText(session: session, token: token, horizon: horizon, now: now)
            }
        }
    }

    private static func storedSummaryText(session: LedgerSession, token: String, horizon: Horizon, now: Int64)
        throws(ServiceError) -> (caller: TokenService.Caller, lookup: SummaryService.TextLookup)
    {
        guard let (id, hash) = TokenService.presented(token) else { throw TokenService.refused }
        let results = try session.readAsTokenOwner(
            id: id, hash: hash, [UserStore.findCurrentStatement, SummaryStore.storedTextStatement(horizon: horizon)])
        let credentials = try ServiceError.wrapping { try TokenStore.credentials(in: results[0]) }
        let caller = try TokenService(session: session).caller(id: id, hash: hash, among: credentials, now: now)
        let (user, stored) = try ServiceError.wrapping {
            (try UserStore.user(in: results[1]), try SummaryStore.storedText(in: results[2]))
        }
        guard let user, user.id == caller.userID else {
            throw ServiceError(.notFound, "this account no longer exists")
        }
        if let stored, SummaryService.isWorthShowing(hasNightData: stored.hasNightData, { false }) {
            return (caller, .found(stored.json))
        }
        let service = AccountService(session: session, userID: caller.userID)
        return (caller, try service.storedSummaryText(horizon: horizon, on: session))
    }

    /// One page of the user's stored nights and naps.
    public struct NightsPage: Sendable, Hashable {
        /// The user.
        public var user: User
        /// The first wake day the page covers.
        public var first: LocalDate
        /// The last wake day the page covers.
        public var last: LocalDate
        /// The nights waking from ``first`` through ``last``, by wake day.
        public var nights: [Night]
        /// The naps waking from ``first`` through ``last``, by start.
        public var naps: [Nap]
        /// Where the next page starts: the wake day of the first stored night after
        /// ``last`` within the asked range; `nil` when no night remains.
        public var next: LocalDate?
        /// The last wake day that was asked for (the next page's end).
        public var requestedLast: LocalDate
    }

    /// The most wake days one page covers.
    public static let maximumPageDays = 366
    /// The wake days a listing covers when it is not told where to start.
    public static let defaultListingDays = 30

    /// The user's nights waking from `first` through `last`, at most
    /// ``maximumPageDays`` of them a page. `last` defaults to the user's today (the date
    /// of `now` in their zone), `first` to ``defaultListingDays`` days ending on `last`.
    public func nights(from first: LocalDate?, through last: LocalDate?, now: Int64) throws(ServiceError)
        -> NightsPage
    {
        try nights(from: first, through: last, now: now, maximumDays: Self.maximumPageDays)
    }

    /// The user's nights waking from `first` through `last` (the same defaults as
    /// ``nights(from:through:now:)``), the whole range read by one statement (one snapshot),
    /// however long: for a download, never cut into pages.
    public func allNights(from first: LocalDate?, through last: LocalDate?, now: Int64) throws(ServiceError)
        -> NightsPage
    {
        try nights(from: first, through: last, now: now, maximumDays: nil)
    }

    private func nights(from first: LocalDate?, through last: LocalDate?, now: Int64, maximumDays: Int?)
        throws(ServiceError) -> NightsPage
    {
        try SupportedDates.check(first, "the first wake day")
        try SupportedDates.check(last, "the last wake day")
        return try asUser { session, user in
            let today = LocalTime.localDate(
                of: now, in: LocalTime.timeZone(identifier: user.timeZoneIdentifier) ?? TimeZone.gmt)
            let end = last ?? today
            let start = first ?? end.adding(days: -(Self.defaultListingDays - 1))
            guard start <= end else {
                throw ServiceError(
                    .invalidInput,
                    last == nil
                        ? "the first wake day \(start) is after today (\(end) in your time zone)"
                        : "the first wake day \(start) is after the last \(end)")
            }
            let pageEnd = maximumDays.map { min(end, start.adding(days: $0 - 1)) } ?? end
            let store = NightStore(connection: session.connection)
            return NightsPage(
                user: user, first: start, last: pageEnd,
                nights: try store.nights(userID: user.id, from: start, through: pageEnd),
                naps: try store.naps(userID: user.id, from: start, through: pageEnd),
                next: pageEnd < end ? try store.firstWakeDay(userID: user.id, after: pageEnd, through: end) : nil,
                requestedLast: end)
        }
    }

    // MARK: Export

    /// Writes the zip of all the user's data (``DataExport``), dated `now`, to `sink` as it
    /// is read, on one session for the whole export. What `sink` throws ends the export
    /// and is rethrown as it is; anything else is a ``ServiceError``
    /// (``ServiceError/Kind/notFound`` when the account no longer exists).
    public func export(now: Int64, to sink: @escaping (UnsafeRawBufferPointer) throws -> Void) throws
        -> DataExport.Contents
    {
        try sessions.withSession { session in try DataExport(session: session).write(userID: userID, now: now, to: sink)
        }
    }

    // MARK: Tokens

    /// The user's tokens, newest first, revoked ones included; never a secret.
    public func tokens() throws(ServiceError) -> [TokenStore.Record] {
        try asUser { session, user in try TokenService(session: session).list(for: user) }
    }

    /// Creates a token under ``TokenService/create(for:name:scope:)``'s rules, defaults and cap.
    public func createToken(name: String?, scope: TokenStore.Scope?) throws(ServiceError) -> TokenService.Issued {
        try asUser { session, user in try TokenService(session: session).create(for: user, name: name, scope: scope) }
    }

    /// Revokes the user's token `id` (16 hex digits) at `now`.
    public func revokeToken(id: String, now: Int64) throws(ServiceError) {
        try asUser { session, user in try TokenService(session: session).revoke(for: user, id: id, now: now) }
    }

    /// Revokes every valid token of the user at `now`; returns how many were revoked.
    public func revokeAllTokens(now: Int64) throws(ServiceError) -> Int {
        try asUser { session, user in try TokenStore(connection: session.connection).revokeAll(userID: user.id, at: now)
        }
    }

    // MARK: Deletion

    /// What a request to delete the account did.
    public enum Deletion: Sendable, Hashable {
        /// The confirmation was not the handle: nothing was deleted.
        case notConfirmed
        /// The account and every row of it are gone.
        case deleted(Deleted)
    }

    /// What a deletion removed besides the rows.
    public struct Deleted: Sendable, Hashable {
        /// The handle the account had.
        public var handle: String
        /// Uploads that waited or ran, removed with their jobs.
        public var cancelledImports: Int
        /// Spool files of the user's jobs removed from this host's spool folder.
        public var removedSpoolFiles: Int

        /// Creates the record of a deletion.
        public init(handle: String, cancelledImports: Int, removedSpoolFiles: Int) {
            self.handle = handle
            self.cancelledImports = cancelledImports
            self.removedSpoolFiles = removedSpoolFiles
        }
    }

    /// Deletes the account and, by cascade, every row of it (samples, imports, jobs,
    /// nights, naps, summaries, tokens) when `confirmation` is exactly the handle;
    /// ``Deletion/notConfirmed`` otherwise. Waits up to `lockWaitSeconds` for an import of
    /// the user that runs (``ServiceError/Kind/busy`` after that); uploads still waiting are
    /// removed with their jobs, and their spooled files on `spoolHost` deleted once the
    /// deletion committed (files on other hosts are removed by those servers' sweeps).
    public func delete(confirmation: String?, lockWaitSeconds: Double, spoolHost: String) throws(ServiceError)
        -> Deletion
    {
        let outcome: (handle: String, jobs: [ImportJobStore.Job])?
        do {
            outcome = try asUser { session, user -> (handle: String, jobs: [ImportJobStore.Job])? in
                guard confirmation == user.handle else { return nil }
                let jobs = try UserStore(connection: session.connection).remove(
                    id: user.id, waitSeconds: lockWaitSeconds)
                return (user.handle, jobs)
            }
        } catch let error where error.kind == .busy {
            throw ServiceError(
                .busy, "an import of yours is running; try again once it has ended", debugDetail: error.debugDetail)
        }
        guard let outcome else { return .notConfirmed }
        var removed = 0
        for job in outcome.jobs where Spool.removeFile(of: job, onHost: spoolHost) { removed += 1 }
        return .deleted(
            Deleted(
                handle: outcome.handle,
                cancelledImports: outcome.jobs.count { $0.state == .queued || $0.state == .running },
                removedSpoolFiles: removed))
    }
}
