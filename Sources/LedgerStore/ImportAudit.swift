public import SleepCore

/// What one import run records about its input in the `imports` table: identity (name,
/// size, SHA-256, kind), counts, the date range, warnings and diagnostics. Filled in by the
/// caller from the reader's report; the loader adds inserted and duplicate counts.
public struct ImportAudit: Sendable, Hashable {
    /// The input as given on the command line (`-` for standard input).
    public var fileName: String
    /// Whether the input came from standard input.
    public var isFromStandardInput: Bool
    /// Raw input bytes (compressed bytes for a zip); `nil` when unknown (a refused input).
    public var sizeBytes: Int64?
    /// SHA-256 of the raw input, 64 lowercase hex digits; `nil` when unknown.
    public var sha256: String?
    /// `zip`, `xml` or `csv`; `nil` when the input was refused before its kind was known.
    public var kind: String?
    /// The zip entry holding the Health export, for a zip.
    public var entryName: String?
    /// Top-level records (or CSV rows) seen.
    public var recordsSeen: Int
    /// Sleep records read: accepted plus rejected.
    public var samplesRead: Int
    /// Sleep records that became samples.
    public var samplesAccepted: Int
    /// Sleep records rejected with a diagnostic.
    public var samplesRejected: Int
    /// Accepted samples per stage.
    public var stageCounts: [SleepStage: Int]
    /// Earliest start of an accepted sample, seconds since 1970 UTC.
    public var earliestStart: Int64?
    /// Latest end of an accepted sample, seconds since 1970 UTC.
    public var latestEnd: Int64?
    /// Warnings as a JSON array of strings.
    public var warningsJSON: String
    /// Diagnostics as a JSON array of `{"file", "line", "reason"}` objects.
    public var diagnosticsJSON: String
    /// Rejections beyond the diagnostics kept.
    public var diagnosticsNotKept: Int
    /// Wall-clock seconds of the run so far.
    public var durationSeconds: Double
    /// Whether the run's record takes the person's next import number (``ImportNumbers``,
    /// `imports.number`): an import made with `sleepledger import` does; a queued upload's
    /// import does not, its job has the number. Default `true`.
    public var takesNumber: Bool

    /// Creates an audit with nothing known but the input's name; every count starts at 0.
    public init(fileName: String, isFromStandardInput: Bool) {
        self.fileName = fileName
        self.isFromStandardInput = isFromStandardInput
        sizeBytes = nil
        sha256 = nil
        kind = nil
        entryName = nil
        recordsSeen = 0
        samplesRead = 0
        samplesAccepted = 0
        samplesRejected = 0
        stageCounts = [:]
        earliestStart = nil
        latestEnd = nil
        warningsJSON = "[]"
        diagnosticsJSON = "[]"
        diagnosticsNotKept = 0
        durationSeconds = 0
        takesNumber = true
    }

    /// The stage counts as a JSON object with SleepStage raw values as keys, in stage order.
    var stageCountsJSON: String {
        let pairs = SleepStage.allCases.compactMap { stage in
            stageCounts[stage].map { "\"\(stage.rawValue)\":\($0)" }
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }
}
