import Foundation
import HealthImport
import LedgerServices
import LedgerStore
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
        let anna = try UserService(session: fixture.session).add(
            handle: "anna", timeZone: "Europe/Berlin", targetSeconds: nil, minimumSeconds: nil)
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

        let history = try service.history(for: anna)
        #expect(history.map(\.status) == ["succeeded", "succeeded"])
        #expect(history.map(\.samplesInserted) == [0, Int64(first.report.accepted)])
        #expect(history.allSatisfy { $0.kind == "zip" && $0.fileName == zip })
    }

    @Test("a refused input stores nothing, is recorded as failed, and says where and why")
    func refusedInput() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try UserService(session: fixture.session).add(
            handle: "anna", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        let notes = try fixture.write("notes.txt", "just some notes\n")
        let service = ImportService(session: fixture.session)
        let error = #expect(throws: ServiceError.self) { try service.importInput(.path(notes), for: anna) }
        #expect(error?.kind == .refusedInput)
        #expect(error?.message.hasPrefix(notes) == true)
        let history = try service.history(for: anna)
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
        let anna = try UserService(session: fixture.session).add(
            handle: "anna", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
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
        #expect(try service.history(for: anna).isEmpty)

        let strict = #expect(throws: ServiceError.self) {
            try service.importInput(.path(csv), for: anna, options: ImportService.Options(isStrict: true))
        }
        #expect(strict?.kind == .refusedInput)
        #expect(strict?.message.contains("--strict: 1 record rejected, nothing imported") == true)
        #expect(try service.history(for: anna).map(\.samplesInserted) == [0])
        #expect(try SummaryService(session: fixture.session).absence(of: anna) == .neverRolledUp)
    }
}
