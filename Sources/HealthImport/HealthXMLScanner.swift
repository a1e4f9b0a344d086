/// The byte-level pre-filter of an `export.xml`: finds the `HealthData` root, skips the
/// DOCTYPE, comments, CDATA sections, processing instructions and every element that is
/// not a top-level sleep record, and hands each top-level
/// `<Record type="HKCategoryTypeIdentifierSleepAnalysis" ...>` (children included) to
/// `onSleepRecord` with the line it starts on.
///
/// It reads tags the way XML does (quoted attribute values may hold `>` or the type
/// name; tags may span lines), so for well-formed XML it keeps exactly the records a
/// full parse would find as direct children of the root. Records nested in a
/// `Correlation` are repeats of top-level ones and are skipped. Bytes of other records
/// are not inspected beyond finding where their tags end.
///
/// Memory stays bounded: the scanner keeps only the unfinished tag (at most
/// ``ReaderOptions/maximumTagBytes``) or the sleep record being collected (at most
/// ``ReaderOptions/maximumSleepRecordBytes``, nested at most
/// ``ReaderOptions/maximumSleepRecordDepth`` elements deep, so `XMLParser` never sees
/// deeper nesting either).
///
/// Time stays linear in the input whatever its shape: an unfinished construct is read
/// again only once the bytes after its start have doubled (or could pass a cap), the
/// open elements of a sleep record are a stack of offsets changed in place, and a broken
/// sleep record's bytes are read again at most once (records that were still open inside
/// it are rejected with it when the scan reaches them again, not collected anew).
final class HealthXMLScanner {
    /// The file name used in messages (zip entry name or path).
    let fileName: String
    private let maximumTagBytes: Int
    private let maximumSleepRecordBytes: Int
    private let maximumSleepRecordDepth: Int
    private let onSleepRecord: (UnsafeRawBufferPointer, Int) throws -> Void
    private let onBrokenSleepRecord: (Int, RecordRejection) -> Void

    /// Top-level `Record` elements seen.
    private(set) var recordsSeen = 0
    /// Top-level sleep-analysis records among them.
    private(set) var sleepRecordsSeen = 0
    /// Whether the `<HealthData>` start tag was seen.
    private(set) var isRootSeen = false
    /// Whether the closing `</HealthData>` was seen; nothing after it is read.
    private(set) var isRootClosed = false
    /// Bytes the scan has gone over, counting again those it goes over again (an
    /// unfinished construct read anew when more bytes arrive, a broken sleep record's
    /// content scanned again from the record nested in it). A measure of the work for the
    /// tests, which hold it to a small multiple of the input's size; not a timing.
    private(set) var bytesScanned = 0

    private var window: [UInt8] = []
    private var position = 0
    /// Bytes dropped from the front of the window so far: window index + this = offset
    /// in the file.
    private var droppedBytes = 0
    /// The window size at which the next scan starts: an unfinished construct is read
    /// again only when the bytes after its start have doubled, or could pass a cap.
    private var nextScanAt = 0
    private var countedUpTo = 0
    private var lineAtCounted = 1
    private var depth = 0
    private var pendingTerminator: [UInt8]?
    private var capture: Capture?
    /// The elements open in the sleep record being collected, innermost last: where each
    /// start tag's `<` lies, relative to ``Capture/start``. The record's own start tag is
    /// the first. Changed in place, so each tag costs the same however deep the nesting.
    private var openElements: [Int] = []
    /// File offsets of `<Record` start tags that were still open inside a broken sleep
    /// record when it was given up, in file order, from ``brokenRecordsHead`` on; each is
    /// rejected with ``brokenRecordsRejection`` when the scan reaches it again.
    private var brokenRecords: [Int] = []
    private var brokenRecordsHead = 0
    private var brokenRecordsRejection = RecordRejection(.sleepRecordNotClosed, "sleep record not closed")
    private var isAtStart = true

    /// A sleep record being collected: where it starts in the window, where its start
    /// tag ends, its line, and where the first `<Record` nested in it starts. Apple's
    /// records never nest, so if the record turns out broken (not closed), scanning
    /// resumes there and the records after it import.
    private struct Capture {
        var start: Int
        var startTagEnd: Int
        var line: Int
        var firstNestedRecord: Int?
    }

    private static let commentOpen = Array("<!--".utf8)
    private static let commentClose = Array("-->".utf8)
    private static let cdataOpen = Array("<![CDATA[".utf8)
    private static let cdataClose = Array("]]>".utf8)
    private static let doctypeOpen = Array("<!DOCTYPE".utf8)
    private static let entityOpen = Array("<!ENTITY".utf8)
    private static let instructionClose = Array("?>".utf8)
    private static let rootName = Array("HealthData".utf8)
    private static let recordName = Array("Record".utf8)
    private static let sleepType = Array(SleepRecordFields.sleepAnalysisType.utf8)
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    init(
        fileName: String, options: ReaderOptions,
        onSleepRecord: @escaping (UnsafeRawBufferPointer, Int) throws -> Void,
        onBrokenSleepRecord: @escaping (Int, RecordRejection) -> Void
    ) {
        self.fileName = fileName
        self.maximumTagBytes = options.maximumTagBytes
        self.maximumSleepRecordBytes = options.maximumSleepRecordBytes
        self.maximumSleepRecordDepth = options.maximumSleepRecordDepth
        self.onSleepRecord = onSleepRecord
        self.onBrokenSleepRecord = onBrokenSleepRecord
    }

    /// Scans the next bytes of the file.
    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        guard !isRootClosed, !bytes.isEmpty else { return }
        window.append(contentsOf: bytes)
        guard window.count >= nextScanAt else { return }
        try window.withUnsafeBytes { try scan($0, isFinal: false) }
        // Reading an unfinished construct again on every chunk would cost its length each
        // time (quadratic for a long tag fed in small chunks); waiting until the bytes
        // after its start have doubled keeps the total linear. A cap it could pass is
        // still checked as soon as it can be.
        let pending = window.count - position
        var next = position + 2 * pending
        next = min(next, position + maximumTagBytes + 1)
        if let collected = capture {
            next = min(next, collected.start + maximumSleepRecordBytes + 1)
        }
        nextScanAt = next
        compact()
    }

    /// Ends the file: scans what is left and checks the document was complete.
    func finish() throws {
        while !isRootClosed {
            try window.withUnsafeBytes { try scan($0, isFinal: true) }
            guard let unfinished = capture else { break }
            let rejection = RecordRejection(
                .sleepRecordNotClosed, "sleep record not closed before the end of the file")
            guard let nested = window.withUnsafeBytes({ abandon(unfinished, rejection, in: $0) }) else { break }
            position = nested
        }
        guard isRootSeen else {
            throw ImportError.badFile(
                file: fileName, line: nil,
                reason: "no <HealthData> root element: not an Apple Health export")
        }
        guard isRootClosed else {
            let lastLine = window.withUnsafeBytes { lineNumber(at: $0.count, in: $0) }
            throw ImportError.badFile(
                file: fileName, line: lastLine,
                reason: "the export ends before its closing </HealthData>: the file is truncated or damaged"
            )
        }
    }

    // MARK: - Scanning

    private func scan(_ buffer: UnsafeRawBufferPointer, isFinal: Bool) throws {
        let count = buffer.count
        if isAtStart {
            guard
                let hasMark = ByteSearch.hasPrefix(Self.byteOrderMark, in: buffer, at: 0)
                    ?? (isFinal ? false : nil)
            else { return }
            if hasMark { position = 3 }
            isAtStart = false
        }
        while true {
            try scanConstructs(buffer, isFinal: isFinal)
            if let collected = capture, count - collected.start > maximumSleepRecordBytes {
                giveUpLongRecord(collected, in: buffer)
                continue
            }
            return
        }
    }

    /// Rejects a sleep record that grew past the size limit.
    private func giveUpLongRecord(_ collected: Capture, in buffer: UnsafeRawBufferPointer) {
        giveUp(
            collected,
            RecordRejection(
                .sleepRecordNotClosed, "sleep record not closed within \(maximumSleepRecordBytes) bytes"),
            in: buffer)
    }

    /// Rejects a sleep record that is not closed within a limit. Scanning resumes at the
    /// first record nested in it, or else after its start tag with the record counted as
    /// an open element, so its own end tag still balances.
    private func giveUp(_ collected: Capture, _ rejection: RecordRejection, in buffer: UnsafeRawBufferPointer) {
        if let nested = abandon(collected, rejection, in: buffer) {
            position = nested
        } else {
            position = collected.startTagEnd
            depth += 1
        }
    }

    /// Ends the collection of a broken sleep record: rejects it, and marks the `<Record`
    /// start tags still open inside it, which would break the same way, to be rejected
    /// when the scan reaches them again instead of being collected anew (so no byte is
    /// read more than twice however the records nest). Returns the first record nested
    /// in it, where scanning resumes, if any.
    private func abandon(_ collected: Capture, _ rejection: RecordRejection, in buffer: UnsafeRawBufferPointer)
        -> Int?
    {
        capture = nil
        onBrokenSleepRecord(collected.line, rejection)
        if brokenRecordsHead == brokenRecords.count {
            brokenRecords.removeAll(keepingCapacity: true)
            brokenRecordsHead = 0
        }
        for element in openElements.dropFirst() {
            let open = collected.start + element
            let nameEnd = Self.nameEnd(buffer, at: open)
            if ByteSearch.equals(Self.recordName, in: buffer, from: open + 1, to: nameEnd) {
                brokenRecords.append(droppedBytes + open)
            }
        }
        brokenRecordsRejection = rejection
        openElements.removeAll(keepingCapacity: openElements.count <= 1024)
        return collected.firstNestedRecord
    }

    /// Whether the sleep record starting at window index `open` was marked broken by
    /// ``abandon(_:_:in:)``; marks behind the scan are dropped on the way.
    private func isMarkedBroken(at open: Int) -> Bool {
        let offset = droppedBytes + open
        while brokenRecordsHead < brokenRecords.count, brokenRecords[brokenRecordsHead] < offset {
            brokenRecordsHead += 1
        }
        guard brokenRecordsHead < brokenRecords.count, brokenRecords[brokenRecordsHead] == offset else {
            return false
        }
        brokenRecordsHead += 1
        return true
    }

    /// The index just after the element name of the start tag whose `<` is at `open`.
    private static func nameEnd(_ buffer: UnsafeRawBufferPointer, at open: Int) -> Int {
        var index = open + 1
        while index < buffer.count {
            let byte = buffer[index]
            if ByteSearch.isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") { break }
            index += 1
        }
        return index
    }

    /// Scans from `position` until the bytes run out (leaving `position` at the start of
    /// the unfinished construct) or the root closes.
    private func scanConstructs(_ buffer: UnsafeRawBufferPointer, isFinal: Bool) throws {
        let count = buffer.count
        var index = position
        // The scan has gone over the bytes before `passed` since the last count; an
        // unfinished construct it stops at was looked at up to the end of the buffer.
        var passed = index
        defer {
            position = index
            bytesScanned += max(0, (isRootClosed ? index : count) - passed)
        }
        while !isRootClosed {
            bytesScanned += max(0, index - passed)
            passed = index
            if let collected = capture, index - collected.start > maximumSleepRecordBytes {
                giveUpLongRecord(collected, in: buffer)
                index = position
                continue
            }
            if let terminator = pendingTerminator {
                guard let end = ByteSearch.first(terminator, in: buffer, from: index, to: count) else {
                    index = max(index, count - terminator.count + 1)
                    return
                }
                index = end + terminator.count
                pendingTerminator = nil
            }
            guard let open = ByteSearch.first(UInt8(ascii: "<"), in: buffer, from: index, to: count)
            else {
                index = count
                return
            }
            index = open
            guard open + 1 < count else { return }
            let marker = buffer[open + 1]
            if marker == UInt8(ascii: "!") {
                guard let next = try skipDeclaration(buffer, at: open, isFinal: isFinal) else { return }
                index = next
            } else if marker == UInt8(ascii: "?") {
                guard
                    let next = skipDelimited(
                        buffer, at: open, contentStart: open + 2, close: Self.instructionClose)
                else { return }
                index = next
            } else if marker == UInt8(ascii: "/") {
                guard let close = ByteSearch.first(UInt8(ascii: ">"), in: buffer, from: open + 2, to: count)
                else {
                    try checkTagLength(buffer, at: open)
                    return
                }
                index = try endTag(buffer, at: open, close: close)
            } else {
                let wantedName = capture == nil && depth == 1 ? Self.recordName : nil
                guard var tag = StartTag(buffer, at: open, wantsTypeOf: wantedName) else {
                    try checkTagLength(buffer, at: open)
                    return
                }
                if !tag.isExact, let typeRange = tag.typeRange,
                    Self.isSleepType(UnsafeRawBufferPointer(rebasing: buffer[typeRange]))
                {
                    // A sleep record's start tag is judged by the exact reader.
                    guard let exact = StartTag(exact: buffer, at: open, wantsTypeOf: wantedName) else {
                        try checkTagLength(buffer, at: open)
                        return
                    }
                    tag = exact
                }
                index = try startTag(tag, buffer, at: open)
            }
        }
    }

    /// Handles `<!...`: comment, CDATA, DOCTYPE or another declaration. Returns the
    /// index after it, or `nil` to wait for more bytes.
    private func skipDeclaration(_ buffer: UnsafeRawBufferPointer, at open: Int, isFinal: Bool) throws
        -> Int?
    {
        guard let isComment = ByteSearch.hasPrefix(Self.commentOpen, in: buffer, at: open) else {
            return nil
        }
        if isComment {
            return skipDelimited(buffer, at: open, contentStart: open + 4, close: Self.commentClose)
        }
        guard let isCDATA = ByteSearch.hasPrefix(Self.cdataOpen, in: buffer, at: open) else {
            return nil
        }
        if isCDATA {
            return skipDelimited(buffer, at: open, contentStart: open + 9, close: Self.cdataClose)
        }
        guard let isDoctype = ByteSearch.hasPrefix(Self.doctypeOpen, in: buffer, at: open) else {
            return nil
        }
        if isDoctype {
            guard !isRootSeen else {
                throw ImportError.badFile(
                    file: fileName, line: lineNumber(at: open, in: buffer),
                    reason: "a DOCTYPE inside the document")
            }
            if let end = try doctypeEnd(buffer, at: open) { return end }
            if isFinal || buffer.count - open > maximumTagBytes {
                throw ImportError.badFile(
                    file: fileName, line: lineNumber(at: open, in: buffer),
                    reason: "the DOCTYPE is never closed (no \"]>\")")
            }
            return nil
        }
        guard
            let close = ByteSearch.first(UInt8(ascii: ">"), in: buffer, from: open + 2, to: buffer.count)
        else {
            try checkTagLength(buffer, at: open)
            return nil
        }
        return close + 1
    }

    /// Skips a comment, CDATA section or processing instruction. Outside a sleep record
    /// an unfinished one is skipped as bytes arrive; inside one it is kept whole.
    private func skipDelimited(
        _ buffer: UnsafeRawBufferPointer, at open: Int, contentStart: Int, close: [UInt8]
    ) -> Int? {
        if let end = ByteSearch.first(close, in: buffer, from: contentStart, to: buffer.count) {
            return end + close.count
        }
        if capture != nil { return nil }
        pendingTerminator = close
        return contentStart
    }

    /// Finds the end of `<!DOCTYPE ...>`, with or without an internal subset, tolerating
    /// declarations that lack their closing `>` (iOS 16). Throws for `<!ENTITY`.
    private func doctypeEnd(_ buffer: UnsafeRawBufferPointer, at open: Int) throws -> Int? {
        let count = buffer.count
        var index = open + Self.doctypeOpen.count
        var isInSubset = false
        while index < count {
            let byte = buffer[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                guard let close = ByteSearch.first(byte, in: buffer, from: index + 1, to: count) else {
                    return nil
                }
                index = close + 1
                continue
            }
            if !isInSubset {
                if byte == UInt8(ascii: "[") { isInSubset = true }
                if byte == UInt8(ascii: ">") { return index + 1 }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "]") {
                var next = index + 1
                while next < count, ByteSearch.isSpace(buffer[next]) { next += 1 }
                guard next < count else { return nil }
                if buffer[next] == UInt8(ascii: ">") { return next + 1 }
                index = next
                continue
            }
            if byte == UInt8(ascii: "<") {
                guard let isComment = ByteSearch.hasPrefix(Self.commentOpen, in: buffer, at: index) else {
                    return nil
                }
                if isComment {
                    guard
                        let end = ByteSearch.first(Self.commentClose, in: buffer, from: index + 4, to: count)
                    else { return nil }
                    index = end + 3
                    continue
                }
                guard let isEntity = ByteSearch.hasPrefix(Self.entityOpen, in: buffer, at: index) else {
                    return nil
                }
                if isEntity {
                    throw ImportError.badFile(
                        file: fileName, line: lineNumber(at: index, in: buffer),
                        reason:
                            "the DOCTYPE declares entities (<!ENTITY>); refused: entity expansion and external entities are never processed"
                    )
                }
            }
            index += 1
        }
        return nil
    }

    private func checkTagLength(_ buffer: UnsafeRawBufferPointer, at open: Int) throws {
        if buffer.count - open > maximumTagBytes {
            throw ImportError.badFile(
                file: fileName, line: lineNumber(at: open, in: buffer),
                reason: "a tag longer than \(maximumTagBytes) bytes")
        }
    }

    /// Handles `</name>`; returns the index to continue at.
    private func endTag(_ buffer: UnsafeRawBufferPointer, at open: Int, close: Int) throws -> Int {
        if let collected = capture {
            var nameEnd = open + 2
            while nameEnd < close, !ByteSearch.isSpace(buffer[nameEnd]) { nameEnd += 1 }
            let expectedOpen = collected.start + (openElements.last ?? 0)
            let expectedEnd = Self.nameEnd(buffer, at: expectedOpen)
            if !openElements.isEmpty,
                ByteSearch.equalBytes(in: buffer, (expectedOpen + 1)..<expectedEnd, (open + 2)..<nameEnd)
            {
                openElements.removeLast()
                if openElements.isEmpty {
                    capture = nil
                    try onSleepRecord(
                        UnsafeRawBufferPointer(rebasing: buffer[collected.start..<(close + 1)]), collected.line)
                }
                return close + 1
            }
            // Broken markup inside a sleep record: reject it and carry on at this end tag,
            // unless the tag is the record's own end.
            let name = UnsafeRawBufferPointer(rebasing: buffer[(open + 2)..<nameEnd])
            let expected = UnsafeRawBufferPointer(rebasing: buffer[(expectedOpen + 1)..<expectedEnd])
            let rejection = RecordRejection(
                .brokenMarkup,
                "broken markup in sleep record: </\(DiagnosticText.name(name))> where </\(DiagnosticText.name(expected))> belongs"
            )
            let isRecordEnd = ByteSearch.equals(Self.recordName, in: buffer, from: open + 2, to: nameEnd)
            if let nested = abandon(collected, rejection, in: buffer) { return nested }
            return isRecordEnd ? close + 1 : open
        }
        depth -= 1
        if depth == 0 {
            if !isRootSeen {
                throw ImportError.badFile(
                    file: fileName, line: lineNumber(at: open, in: buffer),
                    reason: "an end tag before the <HealthData> root element")
            }
            isRootClosed = true
        }
        return close + 1
    }

    /// Handles a start tag; returns the index to continue at.
    private func startTag(_ tag: StartTag, _ buffer: UnsafeRawBufferPointer, at open: Int) throws
        -> Int
    {
        if let collected = capture {
            if collected.firstNestedRecord == nil,
                ByteSearch.equals(
                    Self.recordName, in: buffer, from: tag.nameRange.lowerBound, to: tag.nameRange.upperBound)
            {
                capture?.firstNestedRecord = open
            }
            if !tag.isSelfClosing {
                guard openElements.count < maximumSleepRecordDepth else {
                    giveUp(
                        collected,
                        RecordRejection(
                            .sleepRecordTooDeep,
                            "sleep record nested deeper than \(maximumSleepRecordDepth) elements"),
                        in: buffer)
                    return position
                }
                openElements.append(open - collected.start)
            }
            return tag.end
        }
        if depth == 0 {
            guard
                ByteSearch.equals(
                    Self.rootName, in: buffer, from: tag.nameRange.lowerBound, to: tag.nameRange.upperBound)
            else {
                let name = DiagnosticText.name(UnsafeRawBufferPointer(rebasing: buffer[tag.nameRange]))
                throw ImportError.badFile(
                    file: fileName, line: lineNumber(at: open, in: buffer),
                    reason: "the root element is <\(name)>, not <HealthData>: not an Apple Health export")
            }
            isRootSeen = true
            if tag.isSelfClosing {
                isRootClosed = true
            } else {
                depth = 1
            }
            return tag.end
        }
        if let typeRange = tag.typeRange {
            recordsSeen += 1
            if Self.isSleepType(UnsafeRawBufferPointer(rebasing: buffer[typeRange])) {
                sleepRecordsSeen += 1
                let line = lineNumber(at: open, in: buffer)
                if let stray = ByteSearch.first(UInt8(ascii: "<"), in: buffer, from: open + 1, to: tag.end) {
                    onBrokenSleepRecord(
                        line,
                        RecordRejection(.brokenMarkup, "broken markup in sleep record: '<' inside the Record start tag")
                    )
                    return stray
                }
                if tag.isMalformed {
                    onBrokenSleepRecord(
                        line, RecordRejection(.brokenMarkup, "broken markup in sleep record: malformed attributes"))
                    return tag.end
                }
                if tag.isSelfClosing {
                    try onSleepRecord(UnsafeRawBufferPointer(rebasing: buffer[open..<tag.end]), line)
                } else if isMarkedBroken(at: open) {
                    onBrokenSleepRecord(line, brokenRecordsRejection)
                } else {
                    capture = Capture(start: open, startTagEnd: tag.end, line: line, firstNestedRecord: nil)
                    openElements.removeAll(keepingCapacity: true)
                    openElements.append(0)
                }
                return tag.end
            }
        } else if tag.isTypeWanted {
            recordsSeen += 1
        }
        if !tag.isSelfClosing { depth += 1 }
        return tag.end
    }

    /// Whether a raw `type` attribute value names sleep analysis, decoding character and
    /// entity references the way an XML parser would.
    static func isSleepType(_ raw: UnsafeRawBufferPointer) -> Bool {
        if ByteSearch.equals(sleepType, in: raw, from: 0, to: raw.count) { return true }
        guard ByteSearch.first(UInt8(ascii: "&"), in: raw, from: 0, to: raw.count) != nil else { return false }
        return XMLText.decodeReferences(Array(raw)) == sleepType
    }

    // MARK: - Lines and memory

    /// The 1-based line of a window index.
    private func lineNumber(at index: Int, in buffer: UnsafeRawBufferPointer) -> Int {
        if index >= countedUpTo {
            lineAtCounted += ByteSearch.countNewlines(in: buffer, from: countedUpTo, to: index)
        } else {
            lineAtCounted -= ByteSearch.countNewlines(in: buffer, from: index, to: countedUpTo)
        }
        countedUpTo = index
        return lineAtCounted
    }

    /// Drops the bytes no longer needed, counting their lines first.
    private func compact() {
        let keepFrom = min(position, capture?.start ?? position)
        guard keepFrom > 0 else { return }
        window.withUnsafeBytes { _ = lineNumber(at: keepFrom, in: $0) }
        window.removeSubrange(0..<keepFrom)
        droppedBytes += keepFrom
        position -= keepFrom
        nextScanAt -= keepFrom
        countedUpTo -= keepFrom
        if capture != nil {
            capture?.start -= keepFrom
            capture?.startTagEnd -= keepFrom
            capture?.firstNestedRecord? -= keepFrom
        }
    }
}
