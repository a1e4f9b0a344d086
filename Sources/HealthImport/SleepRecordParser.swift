import Foundation
import FoundationXML

/// Parses the sleep records the scanner kept with Foundation's `XMLParser`, a batch at a
/// time: the records are wrapped in a synthetic root and parsed with
/// `XMLParser(data:)`. If a batch fails, its records are parsed one by one so only the
/// broken ones are rejected.
///
/// Before parsing, each record is checked for valid UTF-8 (invalid: the record is
/// rejected) and characters XML 1.0 forbids are replaced by U+FFFD (`XMLParser` would
/// otherwise silently drop the attributes after them).
final class SleepRecordParser {
    private let fileName: String
    private let session: ReadSession
    private var batch: [UInt8] = []
    private var batchLines: [Int] = []
    private var batchRanges: [Range<Int>] = []
    private static let rootOpen = Array("<r>\n".utf8)
    private static let rootClose = Array("\n</r>".utf8)
    private let maximumBatchRecords = 512
    private let maximumBatchBytes = 1 << 20

    init(fileName: String, session: ReadSession) {
        self.fileName = fileName
        self.session = session
        batch.reserveCapacity(maximumBatchBytes + 64 * 1024)
    }

    /// Adds one kept record (its bytes from `<Record` to its end) starting at `line`.
    func add(record: UnsafeRawBufferPointer, line: Int) throws {
        if batch.isEmpty {
            batch.append(contentsOf: Self.rootOpen)
        }
        let start = batch.count
        switch Self.appendSanitized(record, to: &batch) {
        case .failure(let rejection):
            batch.removeSubrange(start...)
            session.reject(file: fileName, line: line, rejection)
            if batchRanges.isEmpty { batch.removeAll(keepingCapacity: true) }
            return
        case .success(let replaced):
            session.noteReplacedCharacters(replaced)
        }
        batchRanges.append(start..<batch.count)
        batchLines.append(line)
        batch.append(0x0A)
        if batchRanges.count >= maximumBatchRecords || batch.count >= maximumBatchBytes {
            try flush()
        }
    }

    /// Parses what is batched.
    func flush() throws {
        guard !batchRanges.isEmpty else {
            batch.removeAll(keepingCapacity: true)
            return
        }
        batch.append(contentsOf: Self.rootClose)
        let collector = RecordCollector()
        let parsedWhole = collector.parse(Data(batch)) && collector.records.count == batchRanges.count
        if parsedWhole {
            for (fields, line) in zip(collector.records, batchLines) {
                try session.take(fields, file: fileName, line: line)
            }
        } else {
            for (range, line) in zip(batchRanges, batchLines) {
                let single = RecordCollector()
                let data = Data(Self.rootOpen + batch[range] + Self.rootClose)
                if single.parse(data), let fields = single.records.first {
                    try session.take(fields, file: fileName, line: line)
                } else {
                    session.reject(
                        file: fileName, line: line, RecordRejection(.malformedXML, single.failureReason))
                }
            }
        }
        batch.removeAll(keepingCapacity: true)
        batchRanges.removeAll(keepingCapacity: true)
        batchLines.removeAll(keepingCapacity: true)
    }

    /// Appends a record, replacing characters XML 1.0 forbids by U+FFFD; returns how
    /// many were replaced, or a rejection for invalid UTF-8.
    static func appendSanitized(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) -> Result<
        Int, RecordRejection
    > {
        let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
        var replaced = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x80 {
                // Copy a run of printable ASCII at once.
                var runEnd = index + 1
                while runEnd < count, bytes[runEnd] >= 0x20, bytes[runEnd] < 0x80 { runEnd += 1 }
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<runEnd]))
                index = runEnd
                continue
            }
            if byte < 0x20 {
                if byte == 0x09 || byte == 0x0A || byte == 0x0D {
                    output.append(byte)
                } else {
                    output.append(contentsOf: replacement)
                    replaced += 1
                }
                index += 1
                continue
            }
            let length: Int
            var scalar: UInt32
            switch byte {
            case 0xC2...0xDF:
                length = 2
                scalar = UInt32(byte & 0x1F)
            case 0xE0...0xEF:
                length = 3
                scalar = UInt32(byte & 0x0F)
            case 0xF0...0xF4:
                length = 4
                scalar = UInt32(byte & 0x07)
            default: return .failure(RecordRejection(.invalidUTF8, "invalid UTF-8 (byte 0x\(String(byte, radix: 16)))"))
            }
            guard index + length <= count else {
                return .failure(RecordRejection(.invalidUTF8, "invalid UTF-8 (truncated sequence)"))
            }
            for offset in 1..<length {
                let continuation = bytes[index + offset]
                guard continuation & 0xC0 == 0x80 else {
                    return .failure(
                        RecordRejection(.invalidUTF8, "invalid UTF-8 (byte 0x\(String(byte, radix: 16)) not continued)")
                    )
                }
                scalar = scalar << 6 | UInt32(continuation & 0x3F)
            }
            let isOverlong = (length == 3 && scalar < 0x800) || (length == 4 && scalar < 0x10000)
            if isOverlong || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) {
                return .failure(RecordRejection(.invalidUTF8, "invalid UTF-8 (overlong, surrogate or out of range)"))
            }
            if scalar == 0xFFFE || scalar == 0xFFFF {
                output.append(contentsOf: replacement)
                replaced += 1
            } else {
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<index + length]))
            }
            index += length
        }
        return .success(replaced)
    }
}
