import AdminCLI
import Foundation
import LedgerCLI
import Testing

/// Colour and Unicode bars only on a terminal, and no colour with NO_COLOR.
@Suite("sleepledger-admin on a terminal")
struct AdminTerminalTests {
    func run(_ arguments: [String], terminal: Bool, noColor: Bool) throws -> String {
        let fixture = try AdminFixture.shared()
        var environment = fixture.environment
        if noColor { environment["NO_COLOR"] = "1" }
        let captured = CapturedConsole()
        var console = captured.console
        console.isTerminal = terminal
        _ = AdminTool.run(arguments: arguments, environment: environment, console: console)
        return captured.printed
    }

    @Test("summary: ANSI colour and block bars on a terminal; blocks without colour under NO_COLOR; ASCII in a pipe")
    func summaryStyles() throws {
        let arguments = ["summary", "anna", "--as-of", "2025-02-10"]
        let coloured = try run(arguments, terminal: true, noColor: false)
        #expect(coloured.contains("\u{1B}["))
        #expect(coloured.contains("█"))
        let plainTerminal = try run(arguments, terminal: true, noColor: true)
        #expect(!plainTerminal.contains("\u{1B}["))
        #expect(plainTerminal.contains("█"))
        #expect(plainTerminal.contains("▓"))  // REM in the stage bar
        let pipe = try run(arguments, terminal: false, noColor: false)
        #expect(!pipe.contains("\u{1B}["))
        #expect(pipe.unicodeScalars.allSatisfy { $0.isASCII })
    }

    @Test("colour does not shift columns: the coloured users table without its SGR sequences is the NO_COLOR one")
    func colourKeepsColumnsAligned() throws {
        let coloured = try run(["users"], terminal: true, noColor: false)
        let plain = try run(["users"], terminal: true, noColor: true)
        #expect(coloured.contains("\u{1B}[3"))
        #expect(coloured.replacing(try Regex("\u{1B}\\[[0-9;]*m"), with: "") == plain)
    }
}
