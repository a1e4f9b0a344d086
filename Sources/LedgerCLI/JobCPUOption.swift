import HealthImport

/// `--job-cpu DURATION`, an option of `serve` and `worker`: the most CPU time the threads
/// of one import job may use (``HealthImport/ReaderOptions/maximumCPUSeconds``) before the
/// job fails with a reason saying so. Default 10 minutes.
enum JobCPUOption {
    /// The option's name.
    static let name = "job-cpu"
    /// The budget when the option is not given, in seconds.
    static let defaultSeconds: Double = 600
    /// The option's lines in a usage text.
    static let usageLines = """
          --job-cpu DURATION        Fail an import job whose threads use more CPU time than
                                    this (default 10m; such as 90s, 10m, 1h, or seconds)
        """

    /// The reader options of a job: the default limits and the CPU budget from
    /// `--job-cpu`; a duration that is not one is a usage error naming `usage`.
    static func readerOptions(_ arguments: Arguments, usage: String) throws -> ReaderOptions {
        var seconds = defaultSeconds
        if let text = arguments.value(name) {
            guard let parsed = Self.seconds(text) else {
                throw CLIError.usage(
                    "--\(name) must be a duration above zero such as 90s, 10m or 1h, not '\(text)'", help: usage)
            }
            seconds = parsed
        }
        return ReaderOptions(maximumCPUSeconds: seconds)
    }

    /// `600`, `0.5s`, `250ms`, `10m`, `10min`, `1h`: seconds above zero, at most 10⁹;
    /// `nil` for anything else.
    static func seconds(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600)]
        let (digits, factor) =
            units.first { text.hasSuffix($0.0) }.map { (text.dropLast($0.0.count), $0.1) } ?? (Substring(text), 1)
        guard digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(digits) else {
            return nil
        }
        let seconds = value * factor
        return seconds > 0 && seconds <= 1e9 ? seconds : nil
    }
}
