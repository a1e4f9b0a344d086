public import LedgerReadServices

/// The command-line layer's one error type: what went wrong, in one line a person can act
/// on, and the exit code it maps to.
public struct CLIError: Error, CustomStringConvertible, Sendable {
    /// The exit code this error maps to.
    public var exitCode: ExitCode
    /// One line for the person at the terminal.
    public var message: String
    /// Extra help text printed after the message (usage errors show the command's usage).
    public var help: String?

    /// Creates an error.
    public init(_ exitCode: ExitCode, _ message: String, help: String? = nil) {
        self.exitCode = exitCode
        self.message = message
        self.help = help
    }

    /// A usage error (exit 64) with the command's usage text.
    public static func usage(_ message: String, help: String? = nil) -> CLIError {
        CLIError(.usage, message, help: help)
    }

    /// Bad input data (exit 65).
    public static func badInput(_ message: String) -> CLIError { CLIError(.dataError, message) }

    /// An unknown user or missing file (exit 66).
    public static func notFound(_ message: String) -> CLIError { CLIError(.noInput, message) }

    /// A use case's failure with the exit code docs/cli.md gives its kind.
    public init(_ error: ServiceError) {
        self.init(ExitCode(error.kind), error.message)
    }

    /// The message.
    public var description: String { message }
}
