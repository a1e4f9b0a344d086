import CLICommon
import SleepCore

/// An admin command's arguments with its usage text: the options the commands share, each
/// read one way, so a usage error names the option, what it accepts and what was given,
/// and carries the command's usage.
struct AdminArguments {
    /// The parsed words.
    let arguments: Arguments
    /// The command's usage text, shown after a usage error.
    let usage: String

    /// The single HANDLE positional.
    func handle() throws(CLIError) -> String {
        guard let handle = arguments.positionals.first else { throw .usage("missing HANDLE", help: usage) }
        try expectPositionals(1)
        return handle
    }

    /// Refuses positionals beyond the first `count`.
    func expectPositionals(_ count: Int) throws(CLIError) {
        guard arguments.positionals.count > count else { return }
        throw .usage("unexpected argument '\(arguments.positionals[count])'", help: usage)
    }

    /// The option `name` as one of `Value`'s cases, if given: `--name must be one of
    /// a|b|c, not 'x'` otherwise.
    func choice<Value: RawRepresentable & CaseIterable>(_ name: String) throws(CLIError) -> Value?
    where Value.RawValue == String {
        guard let text = arguments.value(name) else { return nil }
        guard let value = Value(rawValue: text) else {
            let names = Value.allCases.map(\.rawValue).joined(separator: "|")
            throw .usage("--\(name) must be one of \(names), not '\(text)'", help: usage)
        }
        return value
    }

    /// `--horizon`, weekly when not given.
    func horizon() throws(CLIError) -> Horizon {
        try choice("horizon") ?? .weekly
    }

    /// A `YYYY-MM-DD` option, if given, within the supported dates (``Arguments/date(_:usage:)``).
    func date(_ name: String) throws(CLIError) -> LocalDate? {
        try arguments.date(name, usage: usage)
    }

    /// `--format`, one of `allowed` (text when not given).
    func format(allowed: [OutputFormat] = OutputFormat.allCases) throws(CLIError) -> OutputFormat {
        try OutputFormat.parse(arguments.value("format"), allowed: allowed, usage: usage)
    }

    /// The last value of option `name`, if given.
    func value(_ name: String) -> String? { arguments.value(name) }

    /// Whether flag `name` was given.
    func has(_ name: String) -> Bool { arguments.has(name) }
}
