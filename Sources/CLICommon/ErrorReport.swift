import Foundation
import LedgerReadServices

/// How both executables end a run that failed: the error as one line on standard error
/// and the exit code it maps to, in one place.
package enum ErrorReport {
    /// Runs `body` and maps what it throws to an exit code, printing the error as one line
    /// that starts with `program:` (shared by both executables); with `SLEEPLEDGER_DEBUG=1`
    /// in `environment`, a second line carries everything the layer below knew.
    package static func reporting(
        program: String, environment: [String: String], console: Console, _ body: () throws -> Void
    ) -> ExitCode {
        do {
            try body()
            return .success
        } catch {
            let code = report(error, program: program, console: console)
            if Configuration.showsDebugDetail(environment), let detail = (error as? ServiceError)?.debugDetail {
                console.note("\(program): debug: " + MessageText.escaped(oneLine(detail)))
            }
            return code
        }
    }

    /// Folds a multi-line message (libpq's often are) into one line.
    package static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Prints an error the way every SleepLedger tool does, on one line, and returns its
    /// exit code. Line breaks in the server's messages become spaces; a control character
    /// anywhere else (a newline in a file name or handle, an escape sequence) is written
    /// as an escape such as `\n` (``MessageText/escaped(_:)``), so one error is always
    /// one line and never drives the terminal.
    package static func report(_ error: any Error, program: String = "sleepledger", console: Console) -> ExitCode {
        let failure: CLIError
        switch error {
        case let error as CLIError: failure = error
        case let error as ServiceError: failure = CLIError(ExitCode(error.kind), oneLine(error.message))
        default: failure = CLIError(.internalError, oneLine("internal error: \(error)"))
        }
        console.note("\(program): \(MessageText.escaped(failure.message))")
        if let help = failure.help { console.note("\n" + help) }
        return failure.exitCode
    }
}
