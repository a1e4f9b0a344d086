import Foundation
import SleepReports
import Testing

@testable import LedgerCLI

/// Source names, file names and diagnostics from a hostile CSV reach the terminal as
/// visible stand-ins, never as escape sequences; CSV cells a spreadsheet would run as
/// formulas are neutralised; JSON keeps every value exactly.
@Suite("Terminal and spreadsheet injection")
struct TerminalInjectionTests {
    /// Whether a terminal could act on the scalar (C0, DEL, C1, bidirectional controls):
    /// the test's own statement of the rule, independent of the code under test.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// The control scalars of `text` other than `allowed` (the layout's).
    static func controls(in text: String, allowing allowed: Set<Unicode.Scalar> = ["\n"]) -> [String] {
        text.unicodeScalars.filter { isControl($0) && !allowed.contains($0) }.map {
            "U+" + String($0.value, radix: 16, uppercase: true)
        }
    }

    /// A value as the importer stores it: C0 controls other than tab, line feed and
    /// carriage return become U+FFFD (docs/import-formats.md), as XML 1.0 requires of
    /// exports; DEL, C1 and the bidirectional controls stay, for the output to handle.
    static func stored(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    scalar.value < 0x20 && !["\t", "\n", "\r"].contains(scalar) ? "\u{FFFD}" : scalar
                }))
    }

    static let link = "\u{1B}]8;;https://evil.example/\u{1B}\\Watch\u{1B}]8;;\u{1B}\\"
    static let clear = "\u{1B}[2J\u{1B}[HPhone"

    /// One source name per night: escape sequences, other controls, and cells a
    /// spreadsheet would run.
    static let sources = [
        link, clear, "Bell\u{07}Ring\u{08}", "\u{9B}31mC1 red", "Del\u{7F}ete", "\u{202E}exe.txt",
        "Line\nBreak\rReturn\tTab", "=HYPERLINK(\"https://evil.example\",\"click\")", "+1+1", "-2+3", "@SUM(A1:A2)",
        "-1.5", "42",
    ]

    /// The CSV rows: a night (23:00 to 07:00 UTC) per source, on consecutive days, and a
    /// record with a hostile stage value that is rejected (its diagnostic quotes it).
    static var csv: String {
        func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        var lines = ["sourceName,startDate,endDate,value,timeZone"]
        for (index, source) in sources.enumerated() {
            let day = String(format: "%02d", index + 1)
            let next = String(format: "%02d", index + 2)
            lines.append(
                "\(quoted(source)),2024-03-\(day)T23:00:00Z,2024-03-\(next)T07:00:00Z,AsleepCore,Europe/Amsterdam")
        }
        lines.append("Watch,2024-04-01T23:00:00Z,2024-04-02T07:00:00Z,\(quoted("\u{1B}[31mBOGUS\u{07}")),UTC")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The file name: an OSC 8 link (no `/`: it is one path component), a screen clear, a
    /// bell and a C1 control.
    static let fileName =
        "export \u{1B}]8;;https:evil.example\u{1B}\\x\u{1B}]8;;\u{1B}\\ \u{1B}[2J\u{07}\u{9B}0m.csv"

    @Test("import, nights and imports print stand-ins, not controls; CSV is neutralised; JSON round-trips")
    func hostileCSV() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let path = try fixture.write(Self.fileName, Self.csv)

        // The importer's own summary.
        let (code, imported) = runTool(["import", "--user", "anna", path], environment: fixture.environment)
        #expect(code == .success, "\(imported.errorText)")
        #expect(Self.controls(in: imported.printed).isEmpty, "\(Self.controls(in: imported.printed))")
        #expect(Self.controls(in: imported.errorText).isEmpty)
        #expect(imported.printed.contains("export ␛]8;;https:evil.example␛\\x␛]8;;␛\\ ␛[2J␇�0m.csv: csv"))
        #expect(imported.printed.contains("unknown sleep value \"�[31mBOGUS�\""))
        #expect(imported.printed.contains("  rejected            1\n"))

        // The JSON summary keeps the exact file name and diagnostic, without a raw control.
        let (_, dryRun) = runTool(
            ["import", "--user", "anna", "--dry-run", "--format", "json", path], environment: fixture.environment)
        #expect(Self.controls(in: dryRun.printed).isEmpty, "\(Self.controls(in: dryRun.printed))")
        struct Summaries: Decodable {
            struct Summary: Decodable {
                struct Diagnostic: Decodable { var reason: String }
                var file: String
                var diagnostics: [Diagnostic]
            }
            var imports: [Summary]
        }
        let summaries = try JSONDecoder().decode(Summaries.self, from: Data(dryRun.printed.utf8))
        #expect(summaries.imports.first?.file == path)
        #expect(
            summaries.imports.first?.diagnostics.first?.reason == "unknown sleep value \"\u{FFFD}[31mBOGUS\u{FFFD}\"")

        #expect(
            runTool(["rollup", "--user", "anna", "--as-of", "2024-04-30"], environment: fixture.environment).0
                == .success)
        var environment = fixture.environment
        environment["SLEEPLEDGER_ADMIN_DATABASE_URL"] = fixture.readOnlyURL

        // nights: text.
        let (nightsCode, nights) = runAdmin(["nights", "anna"], environment: environment)
        #expect(nightsCode == .success, "\(nights.errorText)")
        #expect(Self.controls(in: nights.printed).isEmpty, "\(Self.controls(in: nights.printed))")
        #expect(nights.printed.contains("�]8;;https://evil.example/�\\Watch�]8;;�\\"))
        #expect(nights.printed.contains("�[2J�[HPhone"))
        #expect(nights.printed.contains("Line␊Break␍Return␉Tab"))
        #expect(nights.printed.contains("Bell�Ring�"))
        #expect(nights.printed.contains("Del␡ete"))
        #expect(nights.printed.contains("�31mC1 red"))
        #expect(nights.printed.contains("�exe.txt"))
        // One line per night under the two header lines and the blank line.
        #expect(
            nights.printed.split(separator: "\n", omittingEmptySubsequences: false).count == 3 + Self.sources.count + 1)

        // nights: JSON round-trips every source exactly.
        let (_, nightsJSON) = runAdmin(["nights", "anna", "--format", "json"], environment: environment)
        #expect(Self.controls(in: nightsJSON.printed).isEmpty, "\(Self.controls(in: nightsJSON.printed))")
        struct Listing: Decodable {
            struct Night: Decodable { var source: String }
            var nights: [Night]
        }
        let listing = try JSONDecoder().decode(Listing.self, from: Data(nightsJSON.printed.utf8))
        #expect(listing.nights.map(\.source) == Self.sources.map(Self.stored))

        // nights: CSV, formulas neutralised, numbers kept, controls replaced.
        let (_, nightsCSV) = runAdmin(["nights", "anna", "--format", "csv"], environment: environment)
        #expect(Self.controls(in: nightsCSV.printed, allowing: ["\r", "\n"]).isEmpty)
        #expect(!nightsCSV.printed.replacingOccurrences(of: "\r\n", with: "").contains("\r"))
        let rows = parseCSV(nightsCSV.printed)
        let sourceColumn = try #require(rows.first?.firstIndex(of: "source"))
        let csvSources = rows.dropFirst().map { $0[sourceColumn] }
        #expect(
            csvSources == [
                "�]8;;https://evil.example/�\\Watch�]8;;�\\", "�[2J�[HPhone", "Bell�Ring�", "�31mC1 red", "Del␡ete",
                "�exe.txt", "Line\nBreak␍Return␉Tab", "'=HYPERLINK(\"https://evil.example\",\"click\")", "'+1+1",
                "'-2+3", "'@SUM(A1:A2)", "-1.5", "42",
            ])

        // imports: text, JSON and CSV.
        let (importsCode, imports) = runAdmin(["imports", "anna"], environment: environment)
        #expect(importsCode == .success, "\(imports.errorText)")
        #expect(Self.controls(in: imports.printed).isEmpty, "\(Self.controls(in: imports.printed))")
        #expect(imports.printed.contains("export ␛]8;;https:evil.example␛\\x␛]8;;␛\\ ␛[2J␇�0m.csv"))
        #expect(imports.printed.contains("unknown sleep value \"�[31mBOGUS�\""))
        let (_, importsJSON) = runAdmin(["imports", "anna", "--format", "json"], environment: environment)
        #expect(Self.controls(in: importsJSON.printed).isEmpty)
        struct Record: Decodable {
            var fileName: String
            var diagnostics: [String]
            enum CodingKeys: String, CodingKey {
                case diagnostics
                case fileName = "file_name"
            }
        }
        let records = try JSONDecoder().decode([Record].self, from: Data(importsJSON.printed.utf8))
        #expect(records.map(\.fileName) == [path])
        #expect(
            records.first?.diagnostics.first?.hasSuffix("unknown sleep value \"\u{FFFD}[31mBOGUS\u{FFFD}\"") == true)
        let (_, importsCSV) = runAdmin(["imports", "anna", "--format", "csv"], environment: environment)
        #expect(Self.controls(in: importsCSV.printed, allowing: ["\r", "\n"]).isEmpty)
        let importRows = parseCSV(importsCSV.printed)
        let fileColumn = try #require(importRows.first?.firstIndex(of: "file_name"))
        #expect(
            importRows.dropFirst().map { $0[fileColumn] } == [
                path.replacingOccurrences(
                    of: Self.fileName, with: "export ␛]8;;https:evil.example␛\\x␛]8;;␛\\ ␛[2J␇�0m.csv")
            ])
    }

    @Test("an error quoting a hostile file name is one line of escapes")
    func hostileErrorMessage() {
        let (code, captured) = runTool(
            ["import", "--user", "anna", "/nonexistent/\u{1B}[2J\nsleepledger: all good\u{07}.csv"],
            environment: ["SLEEPLEDGER_HOME": "/nonexistent"])
        #expect(code == .noInput)
        #expect(
            captured.errorText
                == "sleepledger: cannot read /nonexistent/\\u{1B}[2J\\nsleepledger: all good\\u{7}.csv: no such file\n")
    }

    @Test("text values go through SleepReports' one rule (ControlCharacters, tested in SleepReportsTests)")
    func textValues() {
        for (value, keepingLayout) in [("\u{1B}[2J\u{85}\u{202E}", false), ("a\nb\tc\r\n\u{07}", true)] {
            #expect(
                TerminalText.replacingControlCharacters(in: value, keepingLayout: keepingLayout)
                    == ControlCharacters.replacing(in: value, keepingLayout: keepingLayout))
        }
        #expect(TerminalText.replacingControlCharacters(in: "\u{1B}[2J", keepingLayout: false) == "␛[2J")
    }

    @Test("a console given a plain string keeps only its layout; styled text from literals is written as is")
    func consoleGate() {
        let captured = CapturedConsole()
        let console = captured.console
        console.print("a\u{1B}[2Jb\n\tc\u{07}")
        console.writeOutput("x,y\r\n")
        console.print("\u{1B}[1mbold\u{1B}[0m \("v\u{1B}[2J")" as TerminalText)
        #expect(captured.printed == "a␛[2Jb\n\tc␇\nx,y\r\n\u{1B}[1mbold\u{1B}[0m v␛[2J\n")
    }
}
