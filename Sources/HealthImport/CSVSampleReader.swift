import Foundation

/// Reads a CSV of sleep samples as bytes arrive: RFC 4180 quoting (delimiters, `""`
/// and line breaks inside quotes), comma, semicolon or tab as sniffed from the header,
/// UTF-8 with or without a byte-order mark, LF or CRLF line ends.
///
/// Rows whose `type` column names another HealthKit type are counted and skipped; an
/// empty `type` counts as sleep. A bad row becomes a diagnostic with the line it starts
/// on; the rest imports.
final class CSVSampleReader {
    private let fileName: String
    private let header: CSVHeader
    private let session: ReadSession
    private var field: [UInt8] = []
    private var fields: [[UInt8]] = []
    private var isInQuotes = false
    private var isQuotePending = false
    private var isFieldQuoted = false
    private var line = 1
    private var rowStartLine = 1
    private var isHeaderRead = false
    private var isAtStart = true

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
        while index < count {
            // Runs of ordinary bytes are copied at once: a byte at a time, the checks on
            // this object's state would cost more than the rest of the row.
            if isInQuotes && !isQuotePending {
                let quote = ByteSearch.first(UInt8(ascii: "\""), in: bytes, from: index, to: count) ?? count
                if quote > index {
                    line += ByteSearch.countNewlines(in: bytes, from: index, to: quote)
                    field.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<quote]))
                    index = quote
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
                    field.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<runEnd]))
                    index = runEnd
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
            case 0x0D:
                break
            case UInt8(ascii: "\"") where field.isEmpty && !isFieldQuoted:
                isInQuotes = true
                isFieldQuoted = true
            default:
                field.append(byte)
            }
        }
    }

    /// Ends the input: the last row may lack its line break.
    func finish() throws {
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
        if !field.isEmpty || !fields.isEmpty || isFieldQuoted {
            endField()
            try endRow()
        }
    }

    private func endField() {
        fields.append(field)
        field.removeAll(keepingCapacity: true)
        isFieldQuoted = false
    }

    private func endRow() throws {
        defer { fields.removeAll(keepingCapacity: true) }
        if fields.count == 1 && fields[0].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
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
        var timeZone = text(header.timeZoneColumn)
        if timeZone?.isEmpty ?? true, let metadata = text(header.metadataColumn) {
            timeZone = Self.timeZone(inMetadata: metadata)
        }
        let record = SleepRecordFields(
            type: text(header.typeColumn), sourceName: nonEmpty(header.sourceColumn),
            startDate: nonEmpty(header.startColumn), endDate: nonEmpty(header.endColumn),
            value: nonEmpty(header.valueColumn), timeZone: timeZone)
        try session.take(record, file: fileName, line: rowStartLine)
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

    /// The value after `HKTimeZone` in a metadata text such as
    /// `{"HKTimeZone":"Europe/Paris"}` or `HKTimeZone=Europe/Paris; HKWasUserEntered=0`.
    static func timeZone(inMetadata metadata: String) -> String? {
        guard let keyRange = metadata.range(of: "HKTimeZone") else { return nil }
        let separators: Set<Character> = ["\"", "'", ":", "=", " "]
        let rest = metadata[keyRange.upperBound...].drop(while: { separators.contains($0) })
        let terminators: Set<Character> = ["\"", "'", ",", ";", "}", " ", "\n", "\t"]
        let value = rest.prefix(while: { !terminators.contains($0) })
        return value.isEmpty ? nil : String(value)
    }
}
