/// Decoding of XML character and entity references in attribute text.
enum XMLText {
    /// Replaces `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` and `&#N;` / `&#xH;` by the
    /// characters they stand for (UTF-8). Other references are left as written; they are
    /// errors in an export without entity declarations, which the XML parser reports.
    static func decodeReferences(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "&"),
                let semicolon = bytes[index...].firstIndex(of: UInt8(ascii: ";"))
            else {
                output.append(byte)
                index += 1
                continue
            }
            let name = String(decoding: bytes[(index + 1)..<semicolon], as: UTF8.self)
            var scalar: Unicode.Scalar?
            switch name {
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "amp": scalar = "&"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default:
                if name.hasPrefix("#x"), let value = UInt32(name.dropFirst(2), radix: 16) {
                    scalar = Unicode.Scalar(value)
                } else if name.hasPrefix("#"), let value = UInt32(name.dropFirst(1)) {
                    scalar = Unicode.Scalar(value)
                }
            }
            if let scalar {
                output.append(contentsOf: Array(String(Character(scalar)).utf8))
                index = semicolon + 1
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }
}
