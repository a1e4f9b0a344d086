package import SleepCore

/// A small hand-written argument parser: positionals, `--name value`, `--name=value` and
/// boolean `--flag`s, validated against what a command declares.
public struct Arguments: Sendable {
    /// Positional arguments in order.
    public private(set) var positionals: [String] = []
    /// Option values by name (without dashes); repeated options keep every value.
    public private(set) var options: [String: [String]] = [:]
    /// Boolean flags that were given.
    public private(set) var flags: Set<String> = []

    /// Parses `words` for a command that accepts the given value-taking options and flags.
    /// `--help`/`-h` and `--version` are always accepted as flags. A lone `-` is a positional
    /// (standard input); `--` ends option parsing.
    public init(
        _ words: [String], options valueOptions: Set<String> = [], flags flagNames: Set<String> = [],
        usage: String
    ) throws(CLIError) {
        let allFlags = flagNames.union(["help", "version"])
        var index = 0
        var onlyPositionals = false
        while index < words.count {
            let word = words[index]
            index += 1
            if onlyPositionals || word == "-" || !word.hasPrefix("-") {
                positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            if word == "-h" {
                flags.insert("help")
                continue
            }
            guard word.hasPrefix("--") else {
                throw .usage("unknown option '\(word)'", help: usage)
            }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if allFlags.contains(name) {
                guard inlineValue == nil else {
                    throw .usage("option '--\(name)' takes no value", help: usage)
                }
                flags.insert(name)
            } else if valueOptions.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < words.count else {
                        throw .usage("option '--\(name)' needs a value", help: usage)
                    }
                    value = words[index]
                    index += 1
                }
                options[name, default: []].append(value)
            } else {
                throw .usage("unknown option '--\(name)'", help: usage)
            }
        }
    }

    /// The last value given for an option, if any.
    public func value(_ name: String) -> String? { options[name]?.last }

    /// Whether a flag was given.
    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// A `YYYY-MM-DD` option, if given: a usage error (exit 64) naming the supported
    /// range when it is malformed or outside `LocalDate.supportedRange`.
    package func date(_ name: String, usage: String) throws(CLIError) -> LocalDate? {
        guard let text = value(name) else { return nil }
        guard let date = LocalDate(text), date.isSupported else {
            throw .usage(
                "--\(name) must be a date YYYY-MM-DD from \(LocalDate.supportedRangeText), not '\(text)'",
                help: usage)
        }
        return date
    }
}
