import Foundation

/// Where a command writes: standard output for results, standard error for messages.
/// Injected so tests can capture what a command prints.
///
/// Everything reaches the terminal through here, made harmless in one place: a
/// ``TerminalText`` is written as it is (its values were replaced when it was built); a
/// plain `String` is treated as a whole as a value and keeps only its newlines, tabs and
/// CRLF line ends (``TerminalText/replacingControlCharacters(in:keepingLayout:)``). JSON
/// (``JSONText``) and CSV (``CSVTable``) hold no control characters of their own, so they
/// pass unchanged.
public struct Console: Sendable {
    private let output: @Sendable (String) -> Void
    private let error: @Sendable (String) -> Void
    /// Whether standard output is a terminal (colour, progress lines).
    public var isTerminal: Bool

    /// Creates a console from two writers, which receive exactly what is to be written.
    public init(
        isTerminal: Bool = false, writeOutput: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void
    ) {
        output = writeOutput
        error = writeError
        self.isTerminal = isTerminal
    }

    /// The process's standard output and standard error.
    public static var standard: Console {
        Console(
            isTerminal: isatty(STDOUT_FILENO) == 1,
            writeOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
            writeError: { FileHandle.standardError.write(Data($0.utf8)) })
    }

    /// Writes result text (no newline added), control characters other than the layout's
    /// replaced.
    public func writeOutput(_ text: String) {
        output(TerminalText.replacingControlCharacters(in: text, keepingLayout: true))
    }

    /// Writes result text made for the terminal (no newline added).
    public func writeOutput(_ text: TerminalText) { output(text.rendered) }

    /// Writes a message for the person (no newline added), control characters other than
    /// the layout's replaced.
    public func writeError(_ text: String) {
        error(TerminalText.replacingControlCharacters(in: text, keepingLayout: true))
    }

    /// Writes a message made for the terminal (no newline added).
    public func writeError(_ text: TerminalText) { error(text.rendered) }

    /// Prints one line of result.
    public func print(_ line: String) { writeOutput(line + "\n") }

    /// Prints one line of result made for the terminal.
    public func print(_ line: TerminalText) { writeOutput(line + "\n") }

    /// Prints one line to standard error.
    public func note(_ line: String) { writeError(line + "\n") }

    /// Prints one line made for the terminal to standard error.
    public func note(_ line: TerminalText) { writeError(line + "\n") }
}
