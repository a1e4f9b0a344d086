import ExportFixtures
import Foundation
import SleepCore
import Testing

@testable import HealthImport

/// ``ReaderOptions/maximumCPUSeconds``: the CPU time of a read's threads, measured with
/// `CLOCK_THREAD_CPUTIME_ID` at checkpoints, against a budget (issue 20, F2).
@Suite("CPU budget")
struct CPUBudgetTests {
    enum Layout: String, CaseIterable {
        case zip, xml, zipOnAPipe
    }

    /// Writes a small real export in `layout`; returns the source to read.
    static func source(_ layout: Layout, in directory: TemporaryDirectory) throws -> (ImportSource, Pipe?) {
        let samples = fixtureSamples(seed: 3, nights: 30)
        let spec = ExportSpec(seed: 3, approximateXMLBytes: 1 << 20)
        switch layout {
        case .xml:
            var xml: [UInt8] = []
            let sink = ByteSink { xml.append(contentsOf: $0) }
            try ExportXMLWriter.write(samples: samples, spec: spec, to: sink)
            try sink.flush()
            return (.path(try directory.write("export.xml", bytes: xml)), nil)
        case .zip, .zipOnAPipe:
            let path = directory.path("export.zip")
            try ExportZipWriter.write(samples: samples, spec: spec, toPath: path)
            guard layout == .zipOnAPipe else { return (.path(path), nil) }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let pipe = Pipe()
            Thread {
                pipe.fileHandleForWriting.write(bytes)
                try? pipe.fileHandleForWriting.close()
            }.start()
            return (.fileDescriptor(pipe.fileHandleForReading.fileDescriptor, name: "-"), pipe)
        }
    }

    @Test("a read past its CPU budget fails saying so; within it, it reads", arguments: Layout.allCases)
    func budget(layout: Layout) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A microsecond: spent by the first block read or chunk scanned, whatever the clock.
        let (tiny, tinyPipe) = try Self.source(layout, in: directory)
        let error = badFileReason(tiny, options: ReaderOptions(maximumCPUSeconds: 0.000_001))
        _ = tinyPipe?.fileHandleForReading.readDataToEndOfFile()
        guard case .badFile(_, nil, let reason) = error else {
            Issue.record("not refused: \(String(describing: error))")
            return
        }
        #expect(reason == "reading it used more than 1e-06 s of CPU time, the limit for one import; stopped")
        let (ample, amplePipe) = try Self.source(layout, in: directory)
        let outcome = try readAll(ample, options: ReaderOptions(maximumCPUSeconds: 600))
        _ = amplePipe?.fileHandleForReading.readDataToEndOfFile()
        #expect(outcome.report.accepted > 0)
    }

    @Test("the threads' times add up: each checkpoint charges only what its thread used since the last one")
    func chargesAddUp() throws {
        let budget = CPUBudget(limitSeconds: 10, fileName: "x")
        let clock = ThreadCPUClock(budget)
        var spin: UInt64 = 1
        for index in 0..<2_000_000 { spin = spin &* 6_364_136_223_846_793_005 &+ UInt64(index) }
        #expect(spin != 0)
        try clock.checkpoint()
        let first = budget.usedNanoseconds
        #expect(first > 0)
        let other = Thread {
            let clock = ThreadCPUClock(budget)
            try? clock.checkpoint()
        }
        other.start()
        while other.isExecuting || !other.isFinished { usleep(1000) }
        #expect(budget.usedNanoseconds >= first)
        #expect(budget.usedNanoseconds < first + 1_000_000_000)
    }
}
