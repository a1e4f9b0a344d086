import Foundation

/// Where a command writes: standard output for results, standard error for messages.
/// Injected so tests can capture what a command prints.
public struct Console: Sendable {
    /// Writes result text (no newline added).
    public var writeOutput: @Sendable (String) -> Void
    /// Writes a message for the person (no newline added).
    public var writeError: @Sendable (String) -> Void
    /// Whether standard output is a terminal (colour, progress lines).
    public var isTerminal: Bool

    /// Creates a console from two writers.
    public init(
        isTerminal: Bool = false, writeOutput: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void
    ) {
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.isTerminal = isTerminal
    }

    /// The process's standard output and standard error.
    public static var standard: Console {
        Console(
            isTerminal: isatty(STDOUT_FILENO) == 1,
            writeOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
            writeError: { FileHandle.standardError.write(Data($0.utf8)) })
    }

    /// Prints one line of result.
    public func print(_ line: String) { writeOutput(line + "\n") }

    /// Prints one line to standard error.
    public func note(_ line: String) { writeError(line + "\n") }
}
