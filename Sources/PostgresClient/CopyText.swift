/// PostgreSQL's `COPY` text format (the default format, tab delimiter): escaping fields
/// for `COPY ... FROM STDIN` and splitting rows read from `COPY ... TO STDOUT`.
///
/// A field is written with backslash, tab, newline and carriage return escaped as `\\`,
/// `\t`, `\n`, `\r`; NULL is `\N`. NUL characters cannot be stored in `text` and are
/// rejected.
public enum CopyText {
    /// The escaped text of one field, `\N` for `nil`.
    public static func escape(_ field: String?) throws -> String {
        var bytes: [UInt8] = []
        try appendEscaped(field, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the escaped UTF-8 bytes of one field, `\N` for `nil`.
    public static func appendEscaped(_ field: String?, to bytes: inout [UInt8]) throws {
        guard let field else {
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "N"))
            return
        }
        for byte in field.utf8 {
            switch byte {
            case UInt8(ascii: "\\"):
                bytes.append(byte)
                bytes.append(byte)
            case UInt8(ascii: "\t"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "t"))
            case UInt8(ascii: "\n"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "r"))
            case 0:
                throw PostgresError(
                    .invalidValue, "a COPY field contains a NUL character, which PostgreSQL text cannot hold")
            default: bytes.append(byte)
            }
        }
    }

    /// Splits one row of `COPY ... TO STDOUT` text output (with or without its trailing
    /// newline) into fields, undoing the escapes; `\N` becomes `nil`.
    public static func splitRow(_ line: some Collection<UInt8>) -> [String?] {
        var fields: [String?] = []
        var current: [UInt8] = []
        var isNull = false
        var iterator = line.makeIterator()
        func finish() {
            fields.append(isNull ? nil : String(decoding: current, as: UTF8.self))
            current.removeAll(keepingCapacity: true)
            isNull = false
        }
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "\t"): finish()
            case UInt8(ascii: "\n"): break
            case UInt8(ascii: "\\"):
                guard let next = iterator.next() else { break }
                switch next {
                case UInt8(ascii: "N"): isNull = true
                case UInt8(ascii: "t"): current.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "n"): current.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "r"): current.append(UInt8(ascii: "\r"))
                case UInt8(ascii: "b"): current.append(8)
                case UInt8(ascii: "f"): current.append(12)
                case UInt8(ascii: "v"): current.append(11)
                default: current.append(next)
                }
            default: current.append(byte)
            }
        }
        finish()
        return fields
    }
}
