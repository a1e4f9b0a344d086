#if DEBUG || FUZZING
    import Foundation
    import Glibc
    import SleepCore

    @testable import HealthImport

    /// The readers' caps made small, so that short inputs reach the code at each cap.
    let fuzzOptions = ReaderOptions(
        maximumEntryBytes: 1 << 20, maximumTagBytes: 2048, maximumSleepRecordBytes: 2048,
        maximumSleepRecordDepth: 16, maximumCSVRecordBytes: 1024, maximumEntriesBeforeName: 64, chunkBytes: 4096,
        maximumDiagnostics: 8, idleTimeoutSeconds: 5)

    /// A session whose samples go nowhere.
    func fuzzSession(_ kind: InputKind) -> ReadSession {
        ReadSession(report: ReadReport(kind: kind, inputName: "fuzz"), options: fuzzOptions, onSample: { _, _ in })
    }

    /// The HealthImport targets.
    let readerTargets: [FuzzTarget] = [
        FuzzTarget(
            name: "xml", summary: "export.xml: the byte-level pre-filter, its tag reader and the sleep-record parser",
            run: fuzzXML),
        FuzzTarget(
            name: "start-tag", summary: "one start tag: the fast and the exact tag readers, which must agree",
            run: fuzzStartTag),
        FuzzTarget(
            name: "sleep-record",
            summary: "sleep records (split at 0xFF) through the batching parser, FoundationXML and the field checks",
            run: fuzzSleepRecords),
        FuzzTarget(
            name: "csv", summary: "a CSV: the header's recognition, the record reader, metadata and the field checks",
            run: fuzzCSV),
        FuzzTarget(
            name: "timestamp", summary: "HealthTimestamp from bytes and from a String, which must agree",
            run: fuzzTimestamp),
        FuzzTarget(
            name: "hae", summary: "a Health Auto Export payload: JSONTokenizer and the reader, read and check only",
            run: fuzzHealthAutoExport),
        FuzzTarget(
            name: "zip",
            summary: "any input through HealthImportReader: the sniffer, libarchive's zip entry, then the readers",
            run: fuzzWholeReader),
    ]

    private func fuzzXML(_ bytes: UnsafeRawBufferPointer) {
        let reader = XMLSampleReader(fileName: "export.xml", session: fuzzSession(.xml))
        do {
            var isFinished = false
            try inChunks(bytes) { chunk in
                guard !isFinished else { return }
                try reader.feed(chunk)
                if reader.isFinished {
                    try reader.finish()
                    isFinished = true
                }
            }
            if !isFinished { try reader.finish() }
        } catch {
            // Refusals are answers; only a crash, a hang or a leak is a finding.
        }
    }

    private func fuzzStartTag(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.first == UInt8(ascii: "<") else { return }
        let wanted = Array("Record".utf8)
        let fast = StartTag(bytes, at: 0, wantsTypeOf: wanted)
        let exact = StartTag(exact: bytes, at: 0, wantsTypeOf: wanted)
        // Both readers must find a complete tag in the same place, or both need more bytes;
        // the documented promise covers well-formed tags only.
        if let exact, !exact.isMalformed {
            guard let fast else { fatalError("the fast reader needs more bytes where the exact one read a tag") }
            precondition(fast.end == exact.end, "the readers end the tag at \(fast.end) and \(exact.end)")
            precondition(fast.nameRange == exact.nameRange, "the readers read different names")
            precondition(fast.isSelfClosing == exact.isSelfClosing, "the readers disagree on />")
            precondition(
                fast.typeRange == exact.typeRange,
                "the readers read different types: \(String(describing: fast.typeRange)) and \(String(describing: exact.typeRange))"
            )
        }
        if let fast { precondition(fast.end <= bytes.count && fast.nameRange.upperBound <= fast.end) }
    }

    private func fuzzSleepRecords(_ bytes: UnsafeRawBufferPointer) {
        let parser = SleepRecordParser(fileName: "export.xml", session: fuzzSession(.xml))
        do {
            var line = 1
            for record in bytes.split(separator: 0xFF, omittingEmptySubsequences: true) {
                try record.withUnsafeBytes { try parser.add(record: $0, line: line) }
                line += 1
            }
            try parser.flush()
        } catch {
            // Refusals are answers.
        }
    }

    private func fuzzCSV(_ bytes: UnsafeRawBufferPointer) {
        let prefix = Array(bytes.prefix(InputSniffer.maximumHeaderBytes))
        guard case .csv(let header) = InputSniffer.decide(prefix: prefix, isComplete: true) else { return }
        do {
            let reader = try CSVSampleReader(fileName: "sleep.csv", header: header, session: fuzzSession(.csv))
            try inChunks(bytes) { try reader.feed($0) }
            try reader.finish()
        } catch {
            // Refusals are answers.
        }
    }

    private func fuzzTimestamp(_ bytes: UnsafeRawBufferPointer) {
        let fromBytes = HealthTimestamp(bytes: bytes)
        if let text = String(validating: bytes, as: UTF8.self) {
            let fromText = HealthTimestamp(parsing: text)
            precondition(fromText == fromBytes, "bytes and String disagree")
            precondition(HealthTimestamp(parsing: text[...]) == fromText, "String and Substring disagree")
        }
        if let fromBytes {
            precondition(abs(fromBytes.utcOffsetSeconds) < 24 * 3600, "offset out of range")
        }
    }

    private func fuzzHealthAutoExport(_ bytes: UnsafeRawBufferPointer) {
        for isCheckOnly in [false, true] {
            let reader = HealthAutoExportReader(
                fileName: "payload.json", session: fuzzSession(.healthAutoExport), isCheckOnly: isCheckOnly)
            do {
                try inChunks(bytes) { try reader.feed($0) }
                try reader.finish()
            } catch {
                // Refusals are answers.
            }
        }
    }

    /// One file the whole reader reads from, rewritten for every input.
    nonisolated(unsafe) private var wholeReaderFile: Int32 = -1

    private func fuzzWholeReader(_ bytes: UnsafeRawBufferPointer) {
        if wholeReaderFile < 0 {
            let path = FileManager.default.temporaryDirectory.path + "/sleepledger-fuzz-\(getpid())"
            wholeReaderFile = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            unlink(path)
            precondition(wholeReaderFile >= 0, "cannot create \(path)")
        }
        let descriptor = wholeReaderFile
        precondition(ftruncate(descriptor, 0) == 0 && lseek(descriptor, 0, SEEK_SET) == 0)
        if let base = bytes.baseAddress {
            precondition(write(descriptor, base, bytes.count) == bytes.count)
        }
        precondition(lseek(descriptor, 0, SEEK_SET) == 0)
        let reader = HealthImportReader(options: fuzzOptions)
        _ = try? reader.read(.fileDescriptor(descriptor, name: "export.zip")) { _, _ in }
    }
#endif
