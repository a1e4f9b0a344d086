import CLICommon
import LedgerReadServices
import LedgerStore
import SleepCore

/// What every admin command works with: the read-only session (already inside a
/// read-only transaction), where to print, and how text looks; plus the lookups and
/// explanations the commands share.
struct AdminContext {
    /// The read-only session.
    let session: LedgerSession
    /// Where results and messages go.
    let console: Console
    /// Text styling (ASCII, Unicode, colour).
    let style: AdminStyle

    /// The users.
    var users: UserService { UserService(session: session) }
    /// The users' results.
    var results: SummaryService { SummaryService(session: session) }

    /// The user with `handle`, or exit 66 with a one-line message.
    func user(_ handle: String) throws -> User {
        try users.user(handle: handle)
    }

    /// Explains why there is nothing to show and what to run: on standard output for text
    /// (so a person never sees an empty result unexplained), on standard error for JSON and
    /// CSV (so their output stays parseable). Exit status stays 0.
    func explain(_ message: String, format: OutputFormat) {
        if format == .text { console.print(message) } else { console.note("sleepledger-admin: " + message) }
    }

    /// What to tell a person about a user without a summary.
    static func message(for absence: SummaryService.Absence, user: User) -> String {
        switch absence {
        case .neverRolledUp:
            return
                "\(user.handle) has never been rolled up: run `sleepledger rollup` to compute their nights and summaries."
        case .noSamples:
            return
                "\(user.handle) has no nights yet: import an export with `sleepledger import --user \(user.handle) FILE`, then run `sleepledger rollup`."
        case .samplesWithoutNights:
            return
                "\(user.handle) has sleep samples but no nights: none of them formed a night (docs/sleep-rules.md); import a fuller export with `sleepledger import --user \(user.handle) FILE`, then run `sleepledger rollup`."
        case .noStoredSummary:
            return "\(user.handle) has no stored summary for this horizon: run `sleepledger rollup`."
        }
    }

    /// The summary to show: the stored one, or with `asOf` one computed now from the stored
    /// nights (nothing is written). `nil`, after printing why, when there is none.
    func summary(for user: User, horizon: Horizon, asOf: LocalDate?, format: OutputFormat) throws -> Summary? {
        switch try results.summary(for: user, horizon: horizon, asOf: asOf) {
        case .found(let summary):
            return summary
        case .absent(let absence):
            explain(Self.message(for: absence, user: user), format: format)
            return nil
        }
    }
}
