import ExportFixtures
import Foundation
import HealthImport
import LedgerServices
import LedgerStore
import PostgresClient
import SleepCore
import SleepFixtures
import Testing

@Suite("Import service")
struct ImportServiceTests {
    static let samples = SleepStreamGenerator(seed: 11).samples(
        from: LocalDate(year: 2023, month: 1, day: 1), through: LocalDate(year: 2023, month: 1, day: 14))

    @Test("an export imports once: counts, audit record, and nothing new the second time")
    func importsOnce() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser("anna", zone: "Europe/Berlin")
        let zip = try fixture.writeZip("export.zip", samples: Self.samples)
        let service = ImportService(session: fixture.session)
        var progressCalls = 0
        let first = try service.importInput(.path(zip), for: anna) { _ in progressCalls += 1 }
        #expect(first.report.kind == .zip)
        #expect(
            first.report.accepted == Set(Self.samples.map { "\($0.source)|\($0.start)|\($0.end)|\($0.stage)" }).count)
        #expect(first.outcome?.inserted == first.report.accepted)
        #expect(first.outcome?.duplicates == 0)
        #expect(progressCalls >= 1)
        let second = try service.importInput(.path(zip), for: anna)
        #expect(second.outcome?.inserted == 0)
        #expect(second.outcome?.duplicates == first.report.accepted)

        let history = try ImportHistory(session: fixture.session).imports(for: anna)
        #expect(history.map(\.status) == ["succeeded", "succeeded"])
        #expect(history.map(\.samplesInserted) == [0, Int64(first.report.accepted)])
        #expect(history.allSatisfy { $0.kind == "zip" && $0.fileName == zip })
    }

    @Test(
        "a Health Auto Export payload imports as kind hae; an overlapping later payload adds only its new samples; a summarised one is refused"
    )
    func healthAutoExport() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser("anna", zone: "Europe/Berlin")
        // Two pushes of a phone: nights 1-10, then nights 6-14 in another layout (other bytes).
        let nights = Self.samples.filter { $0.end > $0.start }
        let cut = nights.firstIndex { $0.start >= nights[nights.count / 2].start } ?? 0
        let early = Array(nights.prefix(nights.count * 2 / 3))
        let late = Array(nights.suffix(from: cut))
        let first = try fixture.write(
            "first.json", String(decoding: HealthAutoExportWriter.bytes(samples: early), as: UTF8.self))
        let second = try fixture.write(
            "second.json",
            String(
                decoding: HealthAutoExportWriter.bytes(
                    samples: late, layout: .init(isTwelveHour: true, isDataBeforeName: true, fillerBytes: 2000)),
                as: UTF8.self))
        let service = ImportService(session: fixture.session)
        let one = try service.importInput(.path(first), for: anna)
        #expect(one.report.kind == .healthAutoExport)
        #expect(one.outcome?.inserted == early.count)
        let two = try service.importInput(.path(second), for: anna)
        let shared = Set(early.map { "\($0.source)|\($0.start)|\($0.end)|\($0.stage)" })
            .intersection(late.map { "\($0.source)|\($0.start)|\($0.end)|\($0.stage)" }).count
        #expect(shared > 0)
        #expect(two.outcome?.duplicates == shared)
        #expect(two.outcome?.inserted == late.count - shared)
        #expect(
            two.report.diagnostics.map(\.reason) == [
                "data.metrics[0] \"heart_rate\": \(two.report.recordsSeen - late.count) entries ignored (only sleep_analysis is imported)"
            ])
        let history = try ImportHistory(session: fixture.session).imports(for: anna)
        #expect(history.map(\.kind) == ["hae", "hae"])
        #expect(history.map(\.samplesInserted) == [Int64(late.count - shared), Int64(early.count)])
        #expect(ImportHistory.diagnosticLines(history.first?.diagnosticsJSON ?? "").count == 1)

        let summarized = try fixture.write(
            "summary.json",
            "{\"data\":{\"metrics\":[{\"name\":\"sleep_analysis\",\"data\":[{\"asleep\":6.1,\"inBed\":6.8,\"sleepStart\":\"2021-12-18 02:21:06 +0800\"}]}]}}"
        )
        let error = #expect(throws: ServiceError.self) { try service.importInput(.path(summarized), for: anna) }
        #expect(error?.kind == .refusedInput)
        #expect(error?.message.contains("turn \"Summarize Data\" off") == true)
        #expect(try ImportHistory(session: fixture.session).imports(for: anna).first?.status == "failed")
    }

    @Test("a refused input stores nothing, is recorded as failed, and says where and why")
    func refusedInput() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser()
        let notes = try fixture.write("notes.txt", "just some notes\n")
        let service = ImportService(session: fixture.session)
        let error = #expect(throws: ServiceError.self) { try service.importInput(.path(notes), for: anna) }
        #expect(error?.kind == .refusedInput)
        #expect(error?.message.hasPrefix(notes) == true)
        let history = try ImportHistory(session: fixture.session).imports(for: anna)
        #expect(history.map(\.status) == ["failed"])
        #expect(history.first?.sizeBytes == 16)

        let missing = #expect(throws: ServiceError.self) {
            try service.importInput(.path(fixture.folder.appendingPathComponent("gone.zip").path), for: anna)
        }
        #expect(missing?.kind == .unreadableInput)
    }

    @Test("a strict import with a rejected record stores nothing; a dry run records nothing")
    func strictAndDryRun() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser()
        let csv = try fixture.write(
            "sleep.csv",
            """
            sourceName,startDate,endDate,value
            Watch,2024-03-01T23:00:00Z,2024-03-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore
            Watch,2024-03-02T23:00:00Z,2024-03-03T07:00:00Z,Snoozing

            """)
        let service = ImportService(session: fixture.session)
        let dry = try service.importInput(.path(csv), for: anna, options: ImportService.Options(isDryRun: true))
        #expect(dry.isDryRun && dry.outcome == nil)
        #expect(dry.report.accepted == 1 && dry.report.rejected == 1)
        #expect(try ImportHistory(session: fixture.session).imports(for: anna).isEmpty)

        let strict = #expect(throws: ServiceError.self) {
            try service.importInput(.path(csv), for: anna, options: ImportService.Options(isStrict: true))
        }
        #expect(strict?.kind == .refusedInput)
        #expect(strict?.message.contains("--strict: 1 record rejected, nothing imported") == true)
        #expect(try ImportHistory(session: fixture.session).imports(for: anna).map(\.samplesInserted) == [0])
        #expect(try SummaryService(session: fixture.session).absence(of: anna) == .neverRolledUp)
    }

    @Test(
        "many rejected records with long values: the good ones are stored, the audit row's diagnostics are bounded and the rest counted"
    )
    func boundedDiagnosticsInTheAuditRow() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser()
        // 1 100 sleep records rejected for 8 KiB stage values (a 4 KiB block of seeded
        // letters twice, so the zip is small but not a zip bomb), and 11 good ones.
        var state: UInt64 = 7
        let block = String(
            (0..<4096).map { _ -> Character in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Character(UnicodeScalar(UInt8(97 + (state >> 33) % 26)))
            })
        let zip = fixture.folder.appendingPathComponent("export.zip").path
        try ExportZipWriter.write(toPath: zip) { sink in
            try sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n")
            for index in 0..<1_111 {
                let day = 10 + index / 101
                let value = index % 101 == 0 ? "HKCategoryValueSleepAnalysisAsleepCore" : block + block
                try sink.write(
                    " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"Watch\" startDate=\"2024-03-\(day) 23:00:00 +0000\" endDate=\"2024-03-\(day + 1) 06:00:00 +0000\" value=\"\(value)\"/>\n"
                )
            }
            try sink.write("</HealthData>\n")
        }
        let result = try ImportService(session: fixture.session).importInput(.path(zip), for: anna)
        #expect(result.outcome?.inserted == 11)
        #expect(result.report.rejected == 1_100)

        let row = try fixture.auditRow(of: anna)
        #expect(try row.string(0) == "succeeded")
        #expect(try row.int(1) == 1_000)
        // About 150 bytes a diagnostic; before the fix the 1 100 whole values made 9 MB.
        #expect(try (row.int(2) ?? .max) <= 1_000 * 300)
        #expect(try row.int(3) == 100)
        let warnings = try JSONDecoder().decode([String].self, from: Data((row.string(4) ?? "").utf8))
        #expect(
            warnings == [
                "100 rejected record(s) beyond the first 1000 diagnostics not kept: 100 unknown sleep value"
            ])
    }

    @Test("a value with control characters is quoted without them, so its audit row stores")
    func controlCharactersInTheAuditRow() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser()
        let csv = try fixture.write(
            "sleep.csv",
            "sourceName,startDate,endDate,value\n"
                + "Watch,2024-03-01T23:00:00Z,2024-03-02T07:00:00Z,AsleepCore\n"
                + "Watch,2024-03-02T23:00:00Z,2024-03-03T07:00:00Z,Nap\u{0}\u{1B}[2J\n")
        // Before the fix the reason held the NUL itself: jsonb refuses "\u0000", so the
        // import failed and its failure could not be recorded either. The NUL and the ESC
        // now become U+FFFD, and a reason writes out any other control character.
        let result = try ImportService(session: fixture.session).importInput(.path(csv), for: anna)
        #expect(result.outcome?.inserted == 1)
        let history = try ImportHistory(session: fixture.session).imports(for: anna)
        #expect(history.map(\.status) == ["succeeded"])
        let stored = try JSONDecoder().decode(
            [ImportDiagnostic].self, from: Data((history.first?.diagnosticsJSON ?? "").utf8))
        #expect(stored.map(\.reason) == ["unknown sleep value \"Nap\u{FFFD}\u{FFFD}[2J\""])
    }

    @Test("a reader keeping more diagnostics than the audit row holds: the first ones are stored, the rest counted")
    func auditRowCapsDiagnosticsWhateverTheOptions() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser()
        // 40 000 rows rejected for a 100-byte stage value, about 250 bytes of JSON each:
        // 10 MB of diagnostics if all were stored.
        let bad = String(repeating: "Z", count: 100)
        var text = "sourceName,startDate,endDate,value\n"
        for _ in 0..<40_000 { text += "Watch,2024-03-01T23:00:00Z,2024-03-02T07:00:00Z,\(bad)\n" }
        text += "Watch,2024-03-01T23:00:00Z,2024-03-02T07:00:00Z,AsleepCore\n"
        let csv = try fixture.write("sleep.csv", text)
        let options = ImportService.Options(reader: ReaderOptions(maximumDiagnostics: 100_000))
        let result = try ImportService(session: fixture.session).importInput(.path(csv), for: anna, options: options)
        #expect(result.outcome?.inserted == 1)
        #expect(result.report.diagnostics.count == 40_000)

        let row = try fixture.auditRow(of: anna)
        #expect(try row.string(0) == "succeeded")
        let storedCount = try row.int(1) ?? 0
        #expect(storedCount > 10_000 && storedCount < 40_000)
        // jsonb's text form adds a space after each colon and comma: 6 bytes an entry.
        #expect(try (row.int(2) ?? .max) <= ImportService.maximumDiagnosticsJSONBytes + 6 * storedCount)
        #expect(try row.int(3) == 40_000 - storedCount)
        let warnings = try JSONDecoder().decode([String].self, from: Data((row.string(4) ?? "").utf8))
        #expect(
            warnings == [
                "\(40_000 - storedCount) diagnostic(s) not stored: the import's record keeps at most 4194304 bytes of them"
            ])
    }
}
