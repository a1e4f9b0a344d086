import LedgerStore
import SleepCore

/// What every admin command works with: the read-only connection (already inside a
/// read-only transaction), where to print, and how text looks; plus the lookups and
/// explanations the commands share.
struct AdminContext {
    /// The read-only connection.
    let connection: Connection
    /// Where results and messages go.
    let console: Console
    /// Text styling (ASCII, Unicode, colour).
    let style: AdminStyle

    /// The user with `handle`, or exit 66 with a one-line message.
    func user(_ handle: String) throws -> User {
        guard let user = try UserStore(connection: connection).find(handle: handle) else {
            throw CLIError.notFound("no user with handle '\(handle)'")
        }
        return user
    }

    /// Explains why there is nothing to show and what to run: on standard output for text
    /// (so a person never sees an empty result unexplained), on standard error for JSON and
    /// CSV (so their output stays parseable). Exit status stays 0.
    func explain(_ message: String, format: OutputFormat) {
        if format == .text { console.print(message) } else { console.note("sleepledger-admin: " + message) }
    }

    /// Why `user` has no summary to show: no stored nights (import, then roll up) or no
    /// rollup yet.
    func missingSummaryMessage(for user: User) throws -> String {
        let queries = AdminQueries(connection: connection)
        let state = try queries.rollupState(userID: user.id)
        if state.lastRollupAt == nil {
            return
                "\(user.handle) has never been rolled up: run `sleepledger rollup` to compute their nights and summaries."
        }
        if try !queries.hasNights(userID: user.id) {
            return
                "\(user.handle) has no nights yet: import an export with `sleepledger import \(user.handle) FILE`, then run `sleepledger rollup`."
        }
        return "\(user.handle) has no stored summary for this horizon: run `sleepledger rollup`."
    }

    /// The summary to show: the stored one, or with `asOf` one computed now from the stored
    /// nights (nothing is written). `nil`, after printing why, when there is none.
    func summary(for user: User, horizon: Horizon, asOf: LocalDate?, format: OutputFormat) throws -> Summary? {
        if let asOf {
            let nights = try nightsForSummary(user: user, horizon: horizon, asOf: asOf)
            guard let nights else {
                explain(try missingSummaryMessage(for: user), format: format)
                return nil
            }
            return SummaryBuilder(nights: nights, goals: user.goals).summary(horizon: horizon, asOf: asOf)
        }
        if let stored = try SummaryStore(connection: connection).summary(userID: user.id, horizon: horizon),
            try stored.debt.trackedNights > 0 || stored.rollingDebt != nil || stored.lastNight != nil
                || AdminQueries(connection: connection).hasNights(userID: user.id)
        {
            return stored
        }
        explain(try missingSummaryMessage(for: user), format: format)
        return nil
    }

    /// The stored nights a summary as of `asOf` needs (its window, plus the 14 days of the
    /// rolling debt); `nil` when the user has no stored nights at all.
    func nightsForSummary(user: User, horizon: Horizon, asOf: LocalDate) throws -> [Night]? {
        let first = min(horizon.window(asOf: asOf).first, asOf.adding(days: -14))
        let nights = try NightStore(connection: connection).nights(userID: user.id, from: first, through: asOf)
        if nights.isEmpty, try !AdminQueries(connection: connection).hasNights(userID: user.id) { return nil }
        return nights
    }

    // MARK: Shared option parsing

    /// `--horizon`, default `fallback`.
    static func horizon(_ arguments: Arguments, default fallback: Horizon, usage: String) throws -> Horizon {
        guard let text = arguments.value("horizon") else { return fallback }
        guard let horizon = Horizon(rawValue: text) else {
            let names = Horizon.allCases.map(\.rawValue).joined(separator: "|")
            throw CLIError.usage("--horizon must be one of \(names), not '\(text)'", help: usage)
        }
        return horizon
    }

    /// A `YYYY-MM-DD` option, if given.
    static func date(_ arguments: Arguments, _ name: String, usage: String) throws -> LocalDate? {
        guard let text = arguments.value(name) else { return nil }
        guard let date = LocalDate(text) else {
            throw CLIError.usage("--\(name) must be a date YYYY-MM-DD, not '\(text)'", help: usage)
        }
        return date
    }

    /// The single HANDLE positional.
    static func handle(_ arguments: Arguments, usage: String) throws -> String {
        guard let handle = arguments.positionals.first else { throw CLIError.usage("missing HANDLE", help: usage) }
        guard arguments.positionals.count == 1 else {
            throw CLIError.usage("unexpected argument '\(arguments.positionals[1])'", help: usage)
        }
        return handle
    }
}
