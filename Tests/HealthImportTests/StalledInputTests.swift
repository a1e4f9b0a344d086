import ExportFixtures
import Foundation
import SleepCore
import Synchronization
import Testing

@testable import HealthImport

/// A pipe whose writing end stays open after `bytes` were written, as a client that
/// stops sending leaves it, until ``release()``.
final class StalledPipe: Sendable {
    let readingDescriptor: Int32
    private let writingDescriptor: Int32
    private let released = DispatchSemaphore(value: 0)
    private let writerDone = DispatchSemaphore(value: 0)

    /// Writes `bytes` from a thread of its own (a pipe holds only 64 KiB), then waits for
    /// ``release()`` with the writing end open.
    init(sending bytes: [UInt8]) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ImportError.io(file: "pipe", reason: "pipe(2) failed") }
        readingDescriptor = ends[0]
        writingDescriptor = ends[1]
        let descriptor = ends[1]
        let released = self.released
        let writerDone = self.writerDone
        Thread {
            StalledPipe.writeAll(bytes, to: descriptor)
            released.wait()
            close(descriptor)
            writerDone.signal()
        }.start()
    }

    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Closes the writing end (the reader then sees the end of the input) and the reading end.
    func release() {
        released.signal()
        writerDone.wait()
        close(readingDescriptor)
    }
}

/// Runs `body` on a thread of its own and waits at most `seconds` for it, so that a read
/// which never returns fails the test instead of hanging it. `nil` when it did not return
/// in time (the caller then unblocks it, for example by releasing its pipe).
func finishing<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () throws -> T) -> (
    result: Result<T, any Error>?, seconds: Double
) {
    let clock = ContinuousClock()
    let started = clock.now
    let box = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread {
        let result = Result { try body() }
        box.withLock { $0 = result }
        done.signal()
    }.start()
    guard done.wait(timeout: .now() + seconds) == .success else { return (nil, seconds) }
    let elapsed = clock.now - started
    return (
        box.withLock { $0 },
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    )
}

@Suite("Stalled inputs")
struct StalledInputTests {
    struct Planted: Error {}

    static let samples = fixtureSamples(seed: 5, nights: 30)

    /// A whole export of ``samples`` in `kind`, as bytes.
    static func export(_ kind: InputKind) throws -> [UInt8] {
        switch kind {
        case .csv:
            return Array(ExportCSVWriter.text(samples: samples).utf8)
        case .xml:
            var bytes: [UInt8] = []
            let sink = ByteSink { bytes.append(contentsOf: $0) }
            try ExportXMLWriter.write(samples: samples, spec: ExportSpec(seed: 5), to: sink)
            try sink.flush()
            return bytes
        case .zip:
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let path = directory.path("export.zip")
            try ExportZipWriter.write(
                samples: samples, spec: ExportSpec(seed: 5, approximateXMLBytes: 1 << 20), toPath: path)
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        case .healthAutoExport:
            return HealthAutoExportWriter.bytes(samples: samples)
        }
    }

    static func isStall(_ result: Result<ReadReport, any Error>?) -> Bool {
        guard case .failure(let error) = result, case ImportError.io(_, let reason) = error else { return false }
        return reason.contains("no data arrived for") && reason.contains("the input stalled")
    }

    @Test(
        "a pipe that sends part of an export and then nothing fails after the idle timeout",
        arguments: [InputKind.xml, .zip, .csv, .healthAutoExport])
    func partThenNothing(kind: InputKind) throws {
        let bytes = try Self.export(kind)
        let pipe = try StalledPipe(sending: Array(bytes.prefix(bytes.count / 2)))
        defer { pipe.release() }
        let descriptor = pipe.readingDescriptor
        let (result, seconds) = finishing(within: 20) {
            try HealthImportReader(options: ReaderOptions(idleTimeoutSeconds: 0.5)).read(
                .fileDescriptor(descriptor, name: "-"), onSample: { _, _ in })
        }
        #expect(result != nil, "the read of a stalled pipe did not end")
        #expect(Self.isStall(result), "\(String(describing: result))")
        if case .failure(let error) = result {
            #expect("\(error)" == "cannot read -: no data arrived for 0.5 s (the idle timeout); the input stalled")
        }
        #expect(seconds >= 0.5)
    }

    @Test("a FIFO nobody writes to fails after the idle timeout instead of waiting in open(2)")
    func fifoWithoutWriter() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("export.fifo")
        try #require(mkfifo(path, 0o600) == 0)
        let (result, _) = finishing(within: 20) {
            try HealthImportReader(options: ReaderOptions(idleTimeoutSeconds: 0.3)).read(
                .path(path), onSample: { _, _ in })
        }
        if result == nil {
            // Unblock the open(2) the read is stuck in.
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
        }
        #expect(result != nil, "the read of a FIFO without a writer did not end")
        #expect(Self.isStall(result), "\(String(describing: result))")
    }

    @Test("a FIFO whose writer sends part of an export and stops fails after the idle timeout")
    func fifoThatStalls() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("export.fifo")
        try #require(mkfifo(path, 0o600) == 0)
        let bytes = try Self.export(.xml)
        let release = DispatchSemaphore(value: 0)
        let writerDone = DispatchSemaphore(value: 0)
        Thread {
            let descriptor = open(path, O_WRONLY)
            StalledPipe.writeAll(Array(bytes.prefix(bytes.count / 3)), to: descriptor)
            release.wait()
            close(descriptor)
            writerDone.signal()
        }.start()
        let (result, _) = finishing(within: 20) {
            try HealthImportReader(options: ReaderOptions(idleTimeoutSeconds: 0.5)).read(
                .path(path), onSample: { _, _ in })
        }
        release.signal()
        writerDone.wait()
        #expect(result != nil, "the read of a stalled FIFO did not end")
        #expect(Self.isStall(result), "\(String(describing: result))")
    }

    @Test("a slow input that keeps sending is read to the end: the limit is per wait, not per read")
    func slowButSteady() throws {
        let bytes = try Self.export(.xml)
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let writing = ends[1]
        let reading = ends[0]
        defer { close(reading) }
        // Ten pieces 0.15 s apart: 1.35 s in all, three times the 0.45 s idle timeout.
        Thread {
            let piece = (bytes.count + 9) / 10
            for start in stride(from: 0, to: bytes.count, by: piece) {
                StalledPipe.writeAll(Array(bytes[start..<min(start + piece, bytes.count)]), to: writing)
                usleep(150_000)
            }
            close(writing)
        }.start()
        let (result, seconds) = finishing(within: 30) {
            var count = 0
            let report = try HealthImportReader(options: ReaderOptions(idleTimeoutSeconds: 0.45)).read(
                .fileDescriptor(reading, name: "-"), onSample: { _, _ in count += 1 })
            return (report.accepted, count)
        }
        let (accepted, count) = try #require(try result?.get())
        #expect(accepted == Self.samples.count)
        #expect(count == Self.samples.count)
        #expect(seconds >= 1.2)
    }

    @Test("a sample callback that throws ends the read at once, though the input is stalled")
    func failingCallbackDoesNotWaitForTheStall() throws {
        // CSV: every row reaches the callback as it is read (XML sleep records are parsed
        // in batches of 512).
        let bytes = try Self.export(.csv)
        let pipe = try StalledPipe(sending: Array(bytes.prefix(bytes.count / 2)))
        defer { pipe.release() }
        let descriptor = pipe.readingDescriptor
        // The idle timeout is far longer than the test waits.
        let (result, seconds) = finishing(within: 15) {
            try HealthImportReader(options: ReaderOptions(idleTimeoutSeconds: 600)).read(
                .fileDescriptor(descriptor, name: "-"), onSample: { _, _ in throw Planted() })
        }
        #expect(result != nil, "the read waited for the stalled input after the callback failed")
        #expect(throws: Planted.self) { try result?.get() }
        #expect(seconds < 5)
    }

    @Test("only inputs that can wait are watched: pipes and FIFOs, not regular files")
    func whatIsAStream() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("export.xml", "<HealthData/>\n")
        #expect(try RawInput.open(path: file).isStream == false)
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        #expect(RawInput.borrowing(fileDescriptor: ends[0], name: "-").isStream)
        let fifo = directory.path("export.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect(try RawInput.open(path: fifo).isStream)
    }

    @Test(
        "the idle timeout defaults to five minutes and stays positive",
        arguments: [
            (nil, 300.0), (0.0, 0.01), (-5.0, 0.01), (2.5, 2.5), (Double.infinity, 1e9), (Double.nan, 300.0),
        ])
    func idleTimeoutOption(given: Double?, kept: Double) {
        let options = given.map { ReaderOptions(idleTimeoutSeconds: $0) } ?? ReaderOptions()
        #expect(options.idleTimeoutSeconds == kept)
    }
}
