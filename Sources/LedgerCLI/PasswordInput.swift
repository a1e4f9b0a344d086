import Foundation
import Glibc
import LedgerServices

/// Where `sleepledger user passwd` reads a new password: from a terminal, prompted twice
/// on standard error with echo off; from anything else (a pipe, a file: scripts), the
/// first line of standard input. Never from an argument, which other users could see in
/// the process list.
enum PasswordInput {
    /// The password read from `descriptor` (standard input by default), prompting through
    /// `console` when it is a terminal.
    static func read(for handle: String, from descriptor: Int32 = STDIN_FILENO, console: Console) throws -> String {
        guard isatty(descriptor) == 1 else {
            guard let line = try line(from: descriptor, echo: true) else {
                throw CLIError.badInput("no password on standard input (give it as the first line)")
            }
            return line
        }
        console.writeError("New password for \(MessageText.escaped(handle)): ")
        let first = try line(from: descriptor, echo: false) ?? ""
        _ = try PasswordRules.newPassword(first)
        console.writeError("Again: ")
        let second = try line(from: descriptor, echo: false) ?? ""
        guard first == second else { throw CLIError.badInput("the two passwords differ; nothing was changed") }
        return first
    }

    /// The bytes a line may hold: a password's most, with room for NFKC to shrink it.
    static let maximumLineBytes = 4 * PasswordRules.maximumBytes

    /// One line from `descriptor` without its line end (`\n` or `\r\n`); `nil` at the end
    /// of input with nothing read. With `echo` off, a terminal does not show what is typed
    /// (its settings are restored afterwards, and a newline printed in place of the Enter).
    static func line(from descriptor: Int32, echo: Bool) throws -> String? {
        var saved = termios()
        let isTerminal = !echo && tcgetattr(descriptor, &saved) == 0
        if isTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(descriptor, TCSAFLUSH, &quiet)
        }
        defer { if isTerminal { tcsetattr(descriptor, TCSAFLUSH, &saved) } }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        var sawEnd = false
        while true {
            let count = Glibc.read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { break }
            if byte == UInt8(ascii: "\n") {
                sawEnd = true
                break
            }
            guard bytes.count < maximumLineBytes else {
                throw CLIError.badInput("the password is longer than \(PasswordRules.maximumBytes) bytes")
            }
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        if bytes.isEmpty && !sawEnd { return nil }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIError.badInput("the password is not UTF-8 text")
        }
        return text
    }
}
