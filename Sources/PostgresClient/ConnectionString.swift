import CLibPQ
import Foundation

/// libpq connection strings (`key=value` pairs or `postgresql://` URLs), read and
/// rewritten through libpq's own parser (`PQconninfoParse`).
public enum ConnectionString {
    /// A connection string or URL with its password replaced by `***`, for logs and
    /// messages. Unparsable input is summarised without its content.
    public static func redacted(_ conninfo: String) -> String {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &errorMessage) else {
            if let errorMessage { PQfreemem(errorMessage) }
            return "<unparsable connection string>"
        }
        defer { PQconninfoFree(options) }
        var parts: [String] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                let name = String(cString: keyword)
                let text = name == "password" ? "***" : String(cString: value)
                parts.append("\(name)=\(text)")
            }
            option += 1
        }
        return parts.joined(separator: " ")
    }

    /// Rewrites a connection string or URL as `key=value` pairs with `keyword` set to
    /// `value` (for example another `dbname`), keeping every other setting. Throws
    /// `invalidUse` for an unparsable string.
    public static func settingParameter(_ keyword: String, to value: String, in conninfo: String) throws -> String {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &errorMessage) else {
            let message = errorMessage.map { String(cString: $0) } ?? "cannot parse the connection string"
            if let errorMessage { PQfreemem(errorMessage) }
            throw PostgresError(.invalidUse, message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        defer { PQconninfoFree(options) }
        var parts: [String] = []
        var option = options
        var replaced = false
        while let keywordPointer = option.pointee.keyword {
            let name = String(cString: keywordPointer)
            if name == keyword {
                parts.append("\(name)=\(conninfoValue(value))")
                replaced = true
            } else if let current = option.pointee.val {
                parts.append("\(name)=\(conninfoValue(String(cString: current)))")
            }
            option += 1
        }
        if !replaced { parts.append("\(keyword)=\(conninfoValue(value))") }
        return parts.joined(separator: " ")
    }

    /// Quotes a value for a libpq `key=value` connection string (single quotes, with `\`
    /// and `'` escaped).
    public static func conninfoValue(_ value: String) -> String {
        var quoted = "'"
        for character in value {
            if character == "\\" || character == "'" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "'"
    }
}
