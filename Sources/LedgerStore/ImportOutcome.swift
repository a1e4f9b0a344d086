public import SleepCore

/// What a committed import stored: its `imports` row, how many samples were new, and from
/// which wake day the user's rollups were marked dirty.
public struct ImportOutcome: Sendable, Hashable {
    /// The `imports.id` of the run (internal: one sequence for everybody).
    public var importID: Int64
    /// The person's import number of the run (``ImportNumbers``); `nil` for a queued
    /// upload's import, whose job has the number.
    public var number: Int64?
    /// Samples added to `sleep_samples`.
    public var inserted: Int
    /// Accepted samples that were already stored (from an earlier import or earlier in
    /// the same file) and so added nothing.
    public var duplicates: Int
    /// The day `rollup_state.dirty_from` was lowered to (the earliest wake day touched
    /// minus one day of margin); `nil` when nothing was inserted.
    public var dirtyFrom: LocalDate?

    /// Creates an outcome.
    public init(importID: Int64, number: Int64? = nil, inserted: Int, duplicates: Int, dirtyFrom: LocalDate?) {
        self.importID = importID
        self.number = number
        self.inserted = inserted
        self.duplicates = duplicates
        self.dirtyFrom = dirtyFrom
    }
}
