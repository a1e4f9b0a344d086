public import SleepCore

/// What one read found: the input's identity (kind, entry, size, SHA-256), the counts,
/// the date range of accepted samples, warnings and per-record diagnostics.
public struct ReadReport: Sendable, Hashable {
    /// Zip, XML or CSV, decided by content.
    public var kind: InputKind
    /// The input path as given (`-` for standard input).
    public var inputName: String
    /// The zip entry holding the Health export (e.g. `apple_health_export/导出.xml`);
    /// `nil` for a plain XML or CSV input.
    public var entryName: String?
    /// Raw input bytes read (the whole input, compressed bytes for a zip).
    public var inputBytes: Int64
    /// Bytes inflated from the zip's entries, every entry counted: the Health entry, the
    /// first bytes of others read to recognise it, and skipped entries a stream had to
    /// inflate (``ReaderOptions/maximumInflatedBytes``); 0 for an input that is not a zip.
    public var inflatedBytes: Int64
    /// SHA-256 of the raw input bytes, lowercase hex (64 characters).
    public var sha256: String
    /// XML `Record` elements at top level (records nested in a `Correlation` are repeats
    /// and not counted), or CSV data rows.
    public var recordsSeen: Int
    /// Sleep-analysis records among ``recordsSeen``.
    public var sleepRecords: Int
    /// Sleep records turned into samples and passed to `onSample`.
    public var accepted: Int
    /// Sleep records rejected, each with a diagnostic (see ``diagnostics``).
    public var rejected: Int
    /// Accepted samples per stage.
    public var stageCounts: [SleepStage: Int]
    /// Earliest start of an accepted sample, seconds since 1970 UTC.
    public var earliestStart: Int64?
    /// Latest end of an accepted sample, seconds since 1970 UTC.
    public var latestEnd: Int64?
    /// Problems that changed nothing imported or were repaired, e.g. replaced characters
    /// XML 1.0 forbids.
    public var warnings: [String]
    /// One entry per rejected record (up to ``ReaderOptions/maximumDiagnostics``).
    public var diagnostics: [ImportDiagnostic]
    /// Diagnostics counted in ``rejected`` but not kept because of the limit.
    public var diagnosticsNotKept: Int
    /// The diagnostics not kept, counted by the kind of reason (`unknown sleep value`,
    /// `unreadable startDate`, `broken markup in sleep record`...; the labels are listed in
    /// docs/import-formats.md). The counts add up to ``diagnosticsNotKept``; a warning
    /// repeats them.
    public var diagnosticsNotKeptByReason: [String: Int]

    /// Creates an empty report for an input.
    public init(kind: InputKind, inputName: String) {
        self.kind = kind
        self.inputName = inputName
        self.entryName = nil
        self.inputBytes = 0
        self.inflatedBytes = 0
        self.sha256 = ""
        self.recordsSeen = 0
        self.sleepRecords = 0
        self.accepted = 0
        self.rejected = 0
        self.stageCounts = [:]
        self.earliestStart = nil
        self.latestEnd = nil
        self.warnings = []
        self.diagnostics = []
        self.diagnosticsNotKept = 0
        self.diagnosticsNotKeptByReason = [:]
    }
}
