import SleepCore

/// The state of one read on the scanning thread: the report being built and the
/// caller's sample callback.
final class ReadSession {
    var report: ReadReport
    let options: ReaderOptions
    private let onSample: (SleepSample, SampleLocation) throws -> Void
    private var replacedCharacters = 0

    init(
        report: ReadReport, options: ReaderOptions,
        onSample: @escaping (SleepSample, SampleLocation) throws -> Void
    ) {
        self.report = report
        self.options = options
        self.onSample = onSample
    }

    /// Checks one record's fields and either passes the sample on or records why not.
    func take(_ fields: SleepRecordFields, file: String, line: Int) throws {
        switch fields.sample() {
        case .success(let sample):
            report.accepted += 1
            report.stageCounts[sample.stage, default: 0] += 1
            report.earliestStart = min(report.earliestStart ?? sample.start, sample.start)
            report.latestEnd = max(report.latestEnd ?? sample.end, sample.end)
            try onSample(sample, SampleLocation(file: file, line: line))
        case .failure(let rejection):
            reject(file: file, line: line, reason: rejection.reason)
        }
    }

    /// Counts a rejected record and keeps its diagnostic (up to the limit).
    func reject(file: String, line: Int, reason: String) {
        report.rejected += 1
        if report.diagnostics.count < options.maximumDiagnostics {
            report.diagnostics.append(ImportDiagnostic(file: file, line: line, reason: reason))
        } else {
            report.diagnosticsNotKept += 1
        }
    }

    /// Counts characters XML 1.0 forbids that were replaced by U+FFFD.
    func noteReplacedCharacters(_ count: Int) {
        replacedCharacters += count
    }

    /// Adds the summary warnings; call once at the end.
    func finishWarnings() {
        if replacedCharacters > 0 {
            report.warnings.append(
                "replaced \(replacedCharacters) character(s) XML 1.0 forbids (such as a vertical tab) with U+FFFD in sleep records"
            )
        }
    }
}
