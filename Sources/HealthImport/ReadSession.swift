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
            try accept(sample, file: file, line: line)
        case .failure(let rejection):
            reject(file: file, line: line, rejection)
        }
    }

    /// Counts an accepted sample and passes it on.
    func accept(_ sample: SleepSample, file: String, line: Int) throws {
        report.accepted += 1
        report.stageCounts[sample.stage, default: 0] += 1
        report.earliestStart = min(report.earliestStart ?? sample.start, sample.start)
        report.latestEnd = max(report.latestEnd ?? sample.end, sample.end)
        try onSample(sample, SampleLocation(file: file, line: line))
    }

    /// Counts a rejected record and keeps its diagnostic, its file and reason shortened
    /// (up to ``ReaderOptions/maximumDiagnostics``; beyond it, counted by kind of reason).
    func reject(file: String, line: Int, _ rejection: RecordRejection) {
        report.rejected += 1
        note(file: file, line: line, rejection)
    }

    /// Keeps a diagnostic that rejects no record (such as an ignored Health Auto Export
    /// metric) like a rejection's, under the same limit, without counting a rejected record.
    func note(file: String, line: Int, _ rejection: RecordRejection) {
        if report.diagnostics.count < options.maximumDiagnostics {
            report.diagnostics.append(
                ImportDiagnostic(
                    file: DiagnosticText.limited(file, maximumBytes: ImportDiagnostic.maximumFileBytes), line: line,
                    reason: DiagnosticText.limited(rejection.reason, maximumBytes: ImportDiagnostic.maximumReasonBytes)
                ))
        } else {
            report.diagnosticsNotKept += 1
            report.diagnosticsNotKeptByReason[rejection.kind.rawValue, default: 0] += 1
        }
    }

    /// Adds a warning (shortened like a reason, so it stays one bounded line).
    func warn(_ warning: String) {
        report.warnings.append(DiagnosticText.limited(warning, maximumBytes: ImportDiagnostic.maximumReasonBytes))
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
        if report.diagnosticsNotKept > 0 {
            let counts = report.diagnosticsNotKeptByReason.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                .map { "\($0.value) \($0.key)" }
            report.warnings.append(
                "\(report.diagnosticsNotKept) rejected record(s) beyond the first \(options.maximumDiagnostics) diagnostics not kept: \(counts.joined(separator: ", "))"
            )
        }
    }
}
