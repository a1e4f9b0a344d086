/// A progress report, sent while a read runs (about every
/// ``ReaderOptions/progressIntervalBytes`` of input) and once at the end.
public struct ImportProgress: Sendable, Hashable {
    /// Raw input bytes read so far (compressed bytes for a zip).
    public var inputBytesRead: Int64
    /// The input's size when known (a regular file), `nil` for a pipe.
    public var inputBytesTotal: Int64?
    /// Records (XML `Record` elements at top level, or CSV rows) seen so far.
    public var recordsSeen: Int
    /// Sleep-analysis records among them.
    public var sleepRecords: Int

    /// Creates a progress report.
    public init(inputBytesRead: Int64, inputBytesTotal: Int64?, recordsSeen: Int, sleepRecords: Int) {
        self.inputBytesRead = inputBytesRead
        self.inputBytesTotal = inputBytesTotal
        self.recordsSeen = recordsSeen
        self.sleepRecords = sleepRecords
    }
}
