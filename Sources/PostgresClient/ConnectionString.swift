import CLibPQ
import Foundation

/// libpq connection strings (`key=value` pairs or `postgresql://` URLs), read and
/// rewritten through libpq's own parser (`PQconninfoParse`).
///
/// A connection string may hold a password (`password=`, `sslpassword=`, or the
/// `user:password@` part of a URL). Nothing this type returns or throws shows it, whatever
/// the input: ``redacted(_:)`` for the string itself, ``logSafeMessage(_:conninfo:)`` for a
/// message libpq wrote about it (libpq quotes malformed input in its messages, password
/// included).
public enum ConnectionString {
    /// A connection string or URL as `key=value` pairs with its passwords replaced by
    /// `***`, also where a password was pasted into another setting (`sslmode=<password>`),
    /// for logs and messages. Unparsable input is summarised without its content.
    public static func redacted(_ conninfo: String) -> String {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &errorMessage) else {
            if let errorMessage { PQfreemem(errorMessage) }
            return "<unparsable connection string>"
        }
        defer { PQconninfoFree(options) }
        let secrets = secrets(in: conninfo).sorted { $0.count > $1.count }
        var parts: [String] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                let name = String(cString: keyword)
                var text = String(cString: value)
                if isSecret(option.pointee) {
                    text = "***"
                } else {
                    for secret in secrets { text = text.replacingOccurrences(of: secret, with: "***") }
                }
                parts.append("\(name)=\(text)")
            }
            option += 1
        }
        return parts.joined(separator: " ")
    }

    /// Rewrites a connection string or URL as `key=value` pairs with `keyword` set to
    /// `value` (for example another `dbname`), keeping every other setting. Throws
    /// `invalidUse` for an unparsable string, with libpq's reason made log-safe by
    /// ``logSafeMessage(_:conninfo:)``.
    public static func settingParameter(_ keyword: String, to value: String, in conninfo: String) throws -> String {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &errorMessage) else {
            let message = errorMessage.map { String(cString: $0) } ?? ""
            if let errorMessage { PQfreemem(errorMessage) }
            throw PostgresError(
                .invalidUse, "cannot parse the connection string: " + logSafeMessage(message, conninfo: conninfo))
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

    /// The value of `keyword` in a connection string or URL as libpq parses it; `nil` when
    /// it is not set or the string does not parse.
    public static func parameter(_ keyword: String, in conninfo: String) -> String? {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let options = PQconninfoParse(conninfo, &errorMessage)
        if let errorMessage { PQfreemem(errorMessage) }
        guard let options else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let keywordPointer = option.pointee.keyword {
            if String(cString: keywordPointer) == keyword { return option.pointee.val.map { String(cString: $0) } }
            option += 1
        }
        return nil
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

    // MARK: Log-safe messages

    /// `message` (what libpq said about `conninfo`, from `PQconnectdb` or
    /// `PQconninfoParse`) trimmed, on one line, and without any password, whatever
    /// `conninfo` holds:
    ///
    /// - every password ``secrets(in:)`` finds (what libpq parsed, and what the raw text
    ///   seems to hold even when libpq cannot parse it, percent-encoded or not) and the
    ///   `PGPASSWORD` of the environment are replaced by `***`;
    /// - when libpq cannot parse `conninfo` (so the password is not known for sure), every
    ///   double-quoted part of the message is replaced by `"…"` except option names and
    ///   the punctuation libpq's own wording quotes (`"="`, `"]"`, `":"`, `"/"`); if
    ///   `conninfo` itself holds a double quote, the message is cut at its first quote.
    public static func logSafeMessage(_ message: String, conninfo: String) -> String {
        var text = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        var secrets = secrets(in: conninfo)
        if let environmentPassword = ProcessInfo.processInfo.environment["PGPASSWORD"], !environmentPassword.isEmpty {
            secrets.insert(environmentPassword)
        }
        for secret in secrets.sorted(by: { $0.count > $1.count }) {
            text = text.replacingOccurrences(of: secret, with: "***")
        }
        if !isParsable(conninfo) {
            text = withoutQuotedParts(text, cutAtFirstQuote: conninfo.contains("\""))
        }
        return text.isEmpty ? "cannot use the connection string" : text
    }

    /// Every password `conninfo` may hold: the values of libpq's password options
    /// (`password`, `sslpassword`: those libpq marks `*`) when it parses, and, parsable or
    /// not, what follows `password=` or `sslpassword=` and the password part of a URL's
    /// `user:password@`, read generously (up to the first and up to the last `@`), raw and
    /// percent-decoded.
    public static func secrets(in conninfo: String) -> Set<String> {
        var found: Set<String> = []
        func add(_ candidate: Substring) {
            guard !candidate.isEmpty else { return }
            found.insert(String(candidate))
            if let decoded = candidate.removingPercentEncoding, !decoded.isEmpty { found.insert(decoded) }
        }
        // What libpq itself parses.
        var errorMessage: UnsafeMutablePointer<CChar>?
        if let options = PQconninfoParse(conninfo, &errorMessage) {
            var option = options
            while option.pointee.keyword != nil {
                if isSecret(option.pointee), let value = option.pointee.val {
                    add(Substring(String(cString: value)))
                }
                option += 1
            }
            PQconninfoFree(options)
        }
        if let errorMessage { PQfreemem(errorMessage) }

        // A URL's user information, however malformed the rest is.
        let trimmed = conninfo.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        let lowered = trimmed.lowercased()
        if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://"),
            let scheme = trimmed.firstRange(of: "://")
        {
            let rest = trimmed[scheme.upperBound...]
            for at in [rest.firstIndex(of: "@"), rest.lastIndex(of: "@")].compactMap({ $0 }) {
                let userInformation = rest[..<at]
                if let colon = userInformation.firstIndex(of: ":") {
                    add(userInformation[userInformation.index(after: colon)...])
                }
            }
        }

        // `password = value` pairs, quoted or not, even where libpq gives up.
        for keyword in ["sslpassword", "password"] {
            var searchStart = conninfo.startIndex
            while let range = conninfo.range(
                of: keyword, options: [.caseInsensitive], range: searchStart..<conninfo.endIndex)
            {
                searchStart = range.upperBound
                var index = range.upperBound
                while index < conninfo.endIndex, conninfo[index] == " " || conninfo[index] == "\t" {
                    index = conninfo.index(after: index)
                }
                guard index < conninfo.endIndex, conninfo[index] == "=" else { continue }
                index = conninfo.index(after: index)
                while index < conninfo.endIndex, conninfo[index] == " " || conninfo[index] == "\t" {
                    index = conninfo.index(after: index)
                }
                guard index < conninfo.endIndex else { continue }
                if conninfo[index] == "'" {
                    let start = conninfo.index(after: index)
                    var end = start
                    var unescaped = ""
                    while end < conninfo.endIndex, conninfo[end] != "'" {
                        if conninfo[end] == "\\", conninfo.index(after: end) < conninfo.endIndex {
                            end = conninfo.index(after: end)
                        }
                        unescaped.append(conninfo[end])
                        end = conninfo.index(after: end)
                    }
                    add(conninfo[start..<end])
                    add(Substring(unescaped))
                } else {
                    let end =
                        conninfo[index...].firstIndex { $0 == " " || $0 == "\t" || $0 == "\n" } ?? conninfo.endIndex
                    add(conninfo[index..<end])
                }
            }
        }
        return found
    }

    /// Whether libpq marks the option as a password (`dispchar` `*`).
    private static func isSecret(_ option: PQconninfoOption) -> Bool {
        if let display = option.dispchar, String(cString: display).contains("*") { return true }
        guard let keyword = option.keyword else { return false }
        let name = String(cString: keyword)
        return name == "password" || name == "sslpassword"
    }

    private static func isParsable(_ conninfo: String) -> Bool {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let options = PQconninfoParse(conninfo, &errorMessage)
        if let errorMessage { PQfreemem(errorMessage) }
        guard let options else { return false }
        PQconninfoFree(options)
        return true
    }

    /// libpq's option names (`host`, `sslmode`, ...), which its messages quote and which
    /// are no secret.
    private static let optionNames: Set<String> = {
        var names: Set<String> = []
        guard let defaults = PQconndefaults() else { return names }
        defer { PQconninfoFree(defaults) }
        var option = defaults
        while let keyword = option.pointee.keyword {
            names.insert(String(cString: keyword))
            option += 1
        }
        return names
    }()

    /// The punctuation libpq's own wording puts in quotes (`missing "=" after ...`).
    private static let quotedPunctuation: Set<String> = ["=", "]", ":", "/"]

    /// `text` with every double-quoted part replaced by `"…"`, except option names and
    /// libpq's quoted punctuation; cut at the first quote when `cutAtFirstQuote`.
    private static func withoutQuotedParts(_ text: String, cutAtFirstQuote: Bool) -> String {
        if cutAtFirstQuote {
            guard let quote = text.firstIndex(of: "\"") else { return text }
            return String(text[..<quote]) + "\"…\""
        }
        let pieces = text.split(separator: "\"", omittingEmptySubsequences: false)
        var result = ""
        for (index, piece) in pieces.enumerated() {
            let isQuoted = index % 2 == 1
            if !isQuoted {
                result += piece
                continue
            }
            let isLast = index == pieces.count - 1
            let kept = !isLast && (optionNames.contains(String(piece)) || quotedPunctuation.contains(String(piece)))
            result += "\"" + (kept ? String(piece) : "…") + "\""
        }
        return result
    }
}
