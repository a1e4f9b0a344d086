import Foundation

/// Reads a CSV of sleep samples as bytes arrive: RFC 4180 quoting (delimiters, `""`
/// and line breaks inside quotes), comma, semicolon or tab as sniffed from the header,
/// UTF-8 with or without a byte-order mark, LF or CRLF line ends.
///
/// Rows whose `type` column names another HealthKit type are counted and skipped; an
/// empty `type` counts as sleep. A bad row becomes a diagnostic with the line it starts
/// on; the rest imports.
///
/// Memory stays bounded: a record (a row, with the line breaks inside its quoted fields)
/// longer than ``ReaderOptions/maximumCSVRecordBytes`` refuses the file, and only the
/// columns up to the last one read are kept (further ones are counted, not stored).
final class CSVSampleReader {
    private let fileName: String
    private let header: CSVHeader
    private let session: ReadSession
    private let maximumRecordBytes: Int
    private let keptColumnCount: Int
    private var field: [UInt8] = []
    private var fields: [[UInt8]] = []
    /// Fields ended in the current row, kept or not.
    private var fieldCount = 0
    /// Bytes of the current record in earlier chunks.
    private var recordBytesBefore = 0
    private var isInQuotes = false
    private var isQuotePending = false
    private var isFieldQuoted = false
    private var line = 1
    private var rowStartLine = 1
    private var isHeaderRead = false
    private var isAtStart = true
    /// Per metadata column: rows whose metadata could not be read, and the first one's line.
    private var unreadableMetadata: [(rows: Int, firstLine: Int)]

    init(fileName: String, header: CSVHeader, session: ReadSession) throws {
        let missing = header.missingRequiredColumns
        guard missing.isEmpty else {
            throw ImportError.badFile(
                file: fileName, line: 1,
                reason:
                    "the CSV header lacks the column(s) \(missing.joined(separator: ", ")); required: sourceName, startDate, endDate, value"
            )
        }
        self.fileName = fileName
        self.header = header
        self.session = session
        maximumRecordBytes = session.options.maximumCSVRecordBytes
        keptColumnCount = header.keptColumnCount
        unreadableMetadata = Array(repeating: (0, 0), count: header.metadataColumns.count)
    }

    /// Reads the next bytes.
    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        var index = 0
        if isAtStart {
            isAtStart = false
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        }
        let delimiter = header.delimiter
        let count = bytes.count
        // Where the current record starts in this chunk (its earlier bytes are counted in
        // recordBytesBefore): the cap is checked before each step and at the end.
        var recordStart = index
        defer { recordBytesBefore += count - recordStart }
        while index < count {
            if recordBytesBefore + index - recordStart > maximumRecordBytes { throw recordTooLong() }
            // Runs of ordinary bytes are copied at once: a byte at a time, the checks on
            // this object's state would cost more than the rest of the row.
            if isInQuotes && !isQuotePending {
                let quote = ByteSearch.first(UInt8(ascii: "\""), in: bytes, from: index, to: count) ?? count
                if quote > index {
                    let end = min(quote, index + maximumRecordBytes + 1)
                    line += ByteSearch.countNewlines(in: bytes, from: index, to: end)
                    field.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<end]))
                    index = end
                    continue
                }
            } else if !isInQuotes {
                var runEnd = index
                while runEnd < count {
                    let byte = bytes[runEnd]
                    if byte == delimiter || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: "\"") { break }
                    runEnd += 1
                }
                if runEnd > index {
                    let end = min(runEnd, index + maximumRecordBytes + 1)
                    field.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<end]))
                    index = end
                    continue
                }
            }
            let byte = bytes[index]
            index += 1
            if isInQuotes {
                if isQuotePending {
                    isQuotePending = false
                    if byte == UInt8(ascii: "\"") {
                        field.append(byte)
                        continue
                    }
                    isInQuotes = false
                } else if byte == UInt8(ascii: "\"") {
                    isQuotePending = true
                    continue
                } else {
                    if byte == 0x0A { line += 1 }
                    field.append(byte)
                    continue
                }
            }
            switch byte {
            case delimiter:
                endField()
            case 0x0A:
                endField()
                try endRow()
                line += 1
                rowStartLine = line
                recordBytesBefore = 0
                recordStart = index
            case 0x0D:
                break
            case UInt8(ascii: "\"") where field.isEmpty && !isFieldQuoted:
                isInQuotes = true
                isFieldQuoted = true
            default:
                field.append(byte)
            }
        }
        if recordBytesBefore + count - recordStart > maximumRecordBytes { throw recordTooLong() }
    }

    /// The error for a record over the cap, naming the line it starts on.
    private func recordTooLong() -> ImportError {
        let reason =
            isInQuotes
            ? "a quoted CSV field is still open after \(maximumRecordBytes) bytes, the configured cap for one record: is its closing quote missing?"
            : "a CSV record longer than \(maximumRecordBytes) bytes, the configured cap"
        return .badFile(file: fileName, line: rowStartLine, reason: reason)
    }

    /// Ends the input: the last row may lack its line break.
    func finish() throws {
        defer { warnAboutMetadata() }
        if isInQuotes && !isQuotePending {
            session.report.recordsSeen += 1
            session.report.sleepRecords += 1
            session.reject(
                file: fileName, line: rowStartLine,
                RecordRejection(.quotedFieldNotClosed, "a quoted field is not closed before the end of the file"))
            return
        }
        isInQuotes = false
        isQuotePending = false
        if !field.isEmpty || fieldCount > 0 || isFieldQuoted {
            endField()
            try endRow()
        }
    }

    private func endField() {
        if fields.count < keptColumnCount {
            fields.append(field)
        }
        fieldCount += 1
        field.removeAll(keepingCapacity: field.capacity <= 64 * 1024)
        isFieldQuoted = false
    }

    private func endRow() throws {
        defer {
            fields.removeAll(keepingCapacity: true)
            fieldCount = 0
        }
        if fieldCount == 1 && fields[0].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        guard isHeaderRead else {
            isHeaderRead = true
            return
        }
        session.report.recordsSeen += 1
        if let type = text(header.typeColumn), !type.isEmpty,
            type != SleepRecordFields.sleepAnalysisType, type != "SleepAnalysis"
        {
            return
        }
        session.report.sleepRecords += 1
        replaceForbiddenCharacters()
        var timeZone = text(header.timeZoneColumn)
        if timeZone?.isEmpty ?? true {
            timeZone = metadataTimeZone()
        }
        let record = SleepRecordFields(
            type: text(header.typeColumn), sourceName: nonEmpty(header.sourceColumn),
            startDate: nonEmpty(header.startColumn), endDate: nonEmpty(header.endColumn),
            value: nonEmpty(header.valueColumn), timeZone: timeZone)
        try session.take(record, file: fileName, line: rowStartLine)
    }

    /// Replaces the control characters XML 1.0 forbids (NUL, vertical tab...) in the kept
    /// fields by U+FFFD and counts them, as for an XML export: PostgreSQL text cannot hold
    /// a NUL, and none belongs in a sample.
    private func replaceForbiddenCharacters() {
        func isForbidden(_ byte: UInt8) -> Bool { byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D }
        for index in fields.indices where fields[index].contains(where: isForbidden) {
            var replaced = 0
            fields[index] = fields[index].flatMap { byte -> [UInt8] in
                guard isForbidden(byte) else { return [byte] }
                replaced += 1
                return [0xEF, 0xBF, 0xBD]
            }
            session.noteReplacedCharacters(replaced)
        }
    }

    /// `HKTimeZone` from the first metadata column that names one; a column that cannot
    /// be read is counted for a warning.
    private func metadataTimeZone() -> String? {
        for (slot, column) in header.metadataColumns.enumerated() {
            guard let metadata = text(column), !metadata.isEmpty else { continue }
            switch CSVMetadata.timeZone(in: metadata) {
            case .timeZone(let zone):
                return zone
            case .noTimeZone:
                continue
            case .unreadable:
                if unreadableMetadata[slot].rows == 0 { unreadableMetadata[slot].firstLine = rowStartLine }
                unreadableMetadata[slot].rows += 1
            }
        }
        return nil
    }

    private func warnAboutMetadata() {
        for (slot, unreadable) in unreadableMetadata.enumerated() where unreadable.rows > 0 {
            let name = DiagnosticText.quoted(header.metadataColumnNames[slot])
            session.warn(
                "the metadata column \(name) could not be read on \(unreadable.rows) row(s), the first on line \(unreadable.firstLine) (read are a JSON or Python object, a list of key/value entries, or KEY=VALUE pairs): no HKTimeZone was taken from it"
            )
        }
    }

    private func text(_ column: Int?) -> String? {
        guard let column, column < fields.count else { return nil }
        let field = fields[column]
        // Spaces and tabs are trimmed byte by byte (Foundation's trimming costs more than
        // the rest of the row); a field that starts or ends with another byte outside
        // ASCII may hold other Unicode white space, which Foundation trims.
        var start = field.startIndex
        var end = field.endIndex
        while start < end, field[start] == 0x20 || field[start] == 0x09 { start += 1 }
        while end > start, field[end - 1] == 0x20 || field[end - 1] == 0x09 { end -= 1 }
        let trimmed = String(decoding: field[start..<end], as: UTF8.self)
        guard start < end, field[start] >= 0x80 || field[end - 1] >= 0x80 else { return trimmed }
        return trimmed.trimmingCharacters(in: .whitespaces)
    }

    private func nonEmpty(_ column: Int?) -> String? {
        text(column).flatMap { $0.isEmpty ? nil : $0 }
    }
}
