/// What validation made of a batch of samples: the accepted samples in input order,
/// one diagnostic per rejected sample, and how many exact duplicates were collapsed.
public struct SampleValidationResult: Sendable, Hashable {
    /// Accepted, normalised samples, first occurrence of each duplicate key, in input order.
    public var accepted: [SleepSample]
    /// One entry per rejected sample, in input order.
    public var diagnostics: [SampleDiagnostic]
    /// Samples dropped because an earlier sample had the same duplicate key
    /// (source, start, end, stage after normalisation). Not errors, so not diagnostics.
    public var duplicateCount: Int

    /// Creates a result.
    public init(accepted: [SleepSample] = [], diagnostics: [SampleDiagnostic] = [], duplicateCount: Int = 0) {
        self.accepted = accepted
        self.diagnostics = diagnostics
        self.duplicateCount = duplicateCount
    }
}
