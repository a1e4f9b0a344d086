/// Decides what an input is from its first bytes.
enum InputSniffer {
    /// The outcome of looking at a prefix.
    enum Decision: Equatable {
        case zip
        case xml
        case csv(CSVHeader)
        /// A JSON object: a Health Auto Export payload, checked as it is read.
        case healthAutoExport
        /// The prefix is too short to decide.
        case needMoreBytes
        /// Neither zip, XML, JSON nor a recognised CSV header.
        case unrecognized
    }

    /// The longest CSV header line looked at.
    static let maximumHeaderBytes = 64 * 1024

    /// Decides from `prefix`; `isComplete` says the input has no more bytes.
    static func decide(prefix: [UInt8], isComplete: Bool) -> Decision {
        let zipMagic: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
        let emptyZipMagic: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
        if prefix.count < 4 && !isComplete && zipMagic.starts(with: prefix) {
            return .needMoreBytes
        }
        if prefix.starts(with: zipMagic) || prefix.starts(with: emptyZipMagic) {
            return .zip
        }
        var index = 0
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        if prefix.starts(with: byteOrderMark) {
            index = 3
        } else if prefix.count < 3 && !isComplete && byteOrderMark.starts(with: prefix) {
            return .needMoreBytes
        }
        let textStart = index
        while index < prefix.count, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[index]) {
            index += 1
        }
        if index < prefix.count, prefix[index] == UInt8(ascii: "<") {
            return .xml
        }
        if index < prefix.count, prefix[index] == UInt8(ascii: "{") {
            return .healthAutoExport
        }
        if index == prefix.count && !isComplete {
            return .needMoreBytes
        }
        // CSV: the first line must be a header naming known columns.
        guard
            let lineEnd = prefix[textStart...].firstIndex(of: 0x0A) ?? (isComplete ? prefix.count : nil)
        else {
            return prefix.count - textStart >= maximumHeaderBytes ? .unrecognized : .needMoreBytes
        }
        var line = Array(prefix[textStart..<lineEnd])
        if line.last == 0x0D { line.removeLast() }
        if line.contains(0) { return .unrecognized }
        guard let header = CSVHeader.recognize(line: line) else { return .unrecognized }
        return .csv(header)
    }
}
