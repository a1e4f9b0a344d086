import Dispatch
import Foundation
public import SleepCore

/// Reads an Apple Health `export.zip`, a bare `export.xml`, a CSV of sleep samples or a
/// Health Auto Export JSON payload and passes each sleep sample to a callback, returning a ``ReadReport`` with counts,
/// SHA-256 and per-record diagnostics.
///
/// The kind is decided by content. Two threads share the work: one reads the input
/// (hashing it, and inflating the zip entry with libarchive), the calling thread scans
/// the XML with a byte-level pre-filter and parses only the sleep records with
/// `XMLParser`; a bounded queue of chunks between them keeps memory flat.
///
/// ```swift
/// let reader = HealthImportReader()
/// let report = try reader.read(.path("export.zip")) { sample, location in
///     samples.append(sample)
/// }
/// ```
public struct HealthImportReader: Sendable {
    /// The limits in force.
    public let options: ReaderOptions

    /// Creates a reader.
    public init(options: ReaderOptions = .standard) {
        self.options = options
    }

    /// Reads one input.
    ///
    /// - Parameters:
    ///   - source: a path, standard input or a descriptor.
    ///   - onSample: called on the calling thread for every accepted sample, in file
    ///     order, with the record's location. An error it throws stops the read and is
    ///     rethrown.
    ///   - onProgress: called on the calling thread about every
    ///     ``ReaderOptions/progressIntervalBytes`` of input and once at the end.
    /// - Returns: the report; rejected records are in its diagnostics.
    /// - Throws: ``ImportError`` when the input is refused as a whole (bad file) or cannot
    ///   be read (``ImportError/io(file:reason:)`` also when a pipe, FIFO or standard input
    ///   sent nothing for ``ReaderOptions/idleTimeoutSeconds``), or whatever `onSample`
    ///   threw.
    public func read(
        _ source: ImportSource,
        onSample: (SleepSample, SampleLocation) throws -> Void,
        onProgress: (ImportProgress) -> Void = { _ in }
    ) throws -> ReadReport {
        let input = try open(source)
        let decision = try sniff(input)
        return try withoutActuallyEscaping(onSample) { onSample in
            try run(input: input, decision: decision, onSample: onSample, onProgress: onProgress)
        }
    }

    /// Whether `source` will import, found without building a sample, as the upload
    /// server checks a push before it queues it: the kind from the first bytes (as
    /// ``kind(of:)``), and for a Health Auto Export payload a read to its end that checks
    /// its JSON, that it is a payload, and that its sleep entries are samples rather than
    /// per-night summaries. Throws the ``ImportError`` a read would throw for these; the
    /// entries themselves (dates, values) are checked only by the read. Reads a payload
    /// about twice as fast as ``read(_:onSample:onProgress:)``.
    public func check(_ source: ImportSource) throws -> InputKind {
        let input = try open(source)
        let decision = try sniff(input)
        let kind = Self.kind(of: decision)
        guard kind == .healthAutoExport else { return kind }
        _ = try run(input: input, decision: decision, onSample: { _, _ in }, onProgress: { _ in }, isCheckOnly: true)
        return kind
    }

    private func open(_ source: ImportSource) throws -> RawInput {
        switch source {
        case .path(let path):
            return try RawInput.open(path: path, idleTimeoutSeconds: options.idleTimeoutSeconds)
        case .standardInput:
            return RawInput.borrowing(fileDescriptor: 0, name: "-", idleTimeoutSeconds: options.idleTimeoutSeconds)
        case .fileDescriptor(let descriptor, let name):
            return RawInput.borrowing(
                fileDescriptor: descriptor, name: name, idleTimeoutSeconds: options.idleTimeoutSeconds)
        }
    }

    /// What kind of input `source` is (zip, XML, CSV or Health Auto Export JSON), decided
    /// from its first bytes as ``read(_:onSample:onProgress:)`` decides it; throws the same
    /// ``ImportError`` for an input that is none of them. Reads only the first bytes (a
    /// JSON text is not checked further: ``read(_:onSample:onProgress:)`` checks it).
    public func kind(of source: ImportSource) throws -> InputKind {
        let input: RawInput
        switch source {
        case .path(let path): input = try RawInput.open(path: path)
        case .standardInput: input = RawInput.borrowing(fileDescriptor: 0, name: "-")
        case .fileDescriptor(let descriptor, let name):
            input = RawInput.borrowing(fileDescriptor: descriptor, name: name)
        }
        return Self.kind(of: try sniff(input))
    }

    private static func kind(of decision: InputSniffer.Decision) -> InputKind {
        switch decision {
        case .zip: return .zip
        case .xml: return .xml
        case .healthAutoExport: return .healthAutoExport
        default: return .csv
        }
    }

    private func sniff(_ input: RawInput) throws -> InputSniffer.Decision {
        var wanted = 4
        while true {
            let (prefix, isComplete) = try input.sniff(atLeast: wanted)
            if prefix.isEmpty && isComplete {
                throw ImportError.badFile(file: input.name, line: nil, reason: "the input is empty")
            }
            let decision = InputSniffer.decide(prefix: prefix, isComplete: isComplete)
            switch decision {
            case .needMoreBytes:
                wanted = prefix.count + 1
            case .unrecognized:
                throw ImportError.badFile(
                    file: input.name, line: nil,
                    reason:
                        "not an Apple Health export: neither a zip archive, an XML file, a Health Auto Export JSON payload nor a CSV with a header naming sourceName, startDate, endDate and value"
                )
            default:
                return decision
            }
        }
    }

    private func run(
        input: RawInput, decision: InputSniffer.Decision,
        onSample: @escaping (SleepSample, SampleLocation) throws -> Void,
        onProgress: (ImportProgress) -> Void, isCheckOnly: Bool = false
    ) throws -> ReadReport {
        let kind = Self.kind(of: decision)
        let session = ReadSession(
            report: ReadReport(kind: kind, inputName: input.name), options: options, onSample: onSample)
        let queue = ChunkQueue(capacity: options.queuedChunks)
        let producerDone = DispatchSemaphore(value: 0)
        let options = self.options
        let budget = CPUBudget(limitSeconds: options.maximumCPUSeconds, fileName: input.name)
        let consumerClock = ThreadCPUClock(budget)
        let inflated = ByteCounter()
        let producer = Thread {
            let clock = ThreadCPUClock(budget)
            let failure: ImportError?
            if kind == .zip {
                failure = ZipExportExtractor.run(
                    input: input, options: options, queue: queue, clock: clock, inflated: inflated)
            } else {
                failure = Self.copyChunks(from: input, chunkBytes: options.chunkBytes, queue: queue, clock: clock)
            }
            queue.finish(failure: failure)
            producerDone.signal()
        }
        producer.name = "health-import-reader"
        producer.start()
        do {
            try consume(
                queue: queue, input: input, decision: decision, session: session, clock: consumerClock,
                onProgress: onProgress, isCheckOnly: isCheckOnly)
        } catch {
            // The reading thread may be waiting for a stalled stream: end that wait now
            // instead of after the idle timeout.
            queue.cancel()
            input.cancel()
            producerDone.wait()
            throw error
        }
        producerDone.wait()
        session.finishWarnings()
        session.report.diagnostics.sort { ($0.file, $0.line) < ($1.file, $1.line) }
        session.report.inputBytes = input.bytesRead
        session.report.inflatedBytes = inflated.count
        session.report.sha256 = input.finishDigest()
        onProgress(progress(input: input, report: session.report))
        return session.report
    }

    /// The scanning side: turns the queued bytes into samples.
    private func consume(
        queue: ChunkQueue, input: RawInput, decision: InputSniffer.Decision, session: ReadSession,
        clock: ThreadCPUClock, onProgress: (ImportProgress) -> Void, isCheckOnly: Bool
    ) throws {
        var textReader: (any TextSampleReader)?
        if case .csv(let header) = decision {
            textReader = try CSVSampleReader(fileName: input.name, header: header, session: session)
        } else if decision == .xml {
            textReader = XMLSampleReader(fileName: input.name, session: session)
        } else if decision == .healthAutoExport {
            textReader = HealthAutoExportReader(fileName: input.name, session: session, isCheckOnly: isCheckOnly)
        }
        var nextProgress = options.progressIntervalBytes
        while let event = try queue.pop() {
            switch event {
            case .entry(let name):
                session.report.entryName = name
                textReader = XMLSampleReader(fileName: name, session: session)
            case .bytes(let bytes):
                try bytes.withUnsafeBytes { try textReader?.feed($0) }
            }
            if input.bytesRead >= nextProgress {
                nextProgress = input.bytesRead + options.progressIntervalBytes
                onProgress(progress(input: input, report: session.report))
            }
            if textReader?.isFinished == true {
                try textReader?.finish()
                textReader = nil
            }
            // Scanning, and whatever the sample callback did (the database's share).
            try clock.checkpoint()
        }
        try textReader?.finish()
    }

    private func progress(input: RawInput, report: ReadReport) -> ImportProgress {
        ImportProgress(
            inputBytesRead: input.bytesRead, inputBytesTotal: input.totalBytes,
            recordsSeen: report.recordsSeen, sleepRecords: report.sleepRecords)
    }

    /// The reading side for XML and CSV: raw chunks as they are.
    private static func copyChunks(from input: RawInput, chunkBytes: Int, queue: ChunkQueue, clock: ThreadCPUClock)
        -> ImportError?
    {
        do {
            while true {
                try clock.checkpoint()
                var count = 0
                let chunk = try [UInt8](unsafeUninitializedCapacity: chunkBytes) {
                    (buffer, initialized) in
                    count = try input.read(into: UnsafeMutableRawBufferPointer(buffer))
                    initialized = count
                }
                if count == 0 { return nil }
                guard queue.push(.bytes(chunk)) else { return nil }
            }
        } catch let error as ImportError {
            return error
        } catch {
            return .io(file: input.name, reason: "\(error)")
        }
    }
}
