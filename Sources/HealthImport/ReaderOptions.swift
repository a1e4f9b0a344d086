/// Limits and knobs of ``HealthImportReader``, fixed before a read starts.
public struct ReaderOptions: Sendable, Hashable {
    /// The largest inflated size accepted for one zip entry, in bytes.
    /// Default 16 GiB (the largest real exports seen are a few GiB).
    public var maximumEntryBytes: Int64
    /// The most bytes inflated from one zip, over all its entries: the Health entry, the
    /// first 16 KiB of every other entry (read to recognise the export) and, on a stream
    /// (standard input, a pipe), the entries skipped, which a stream can only skip by
    /// inflating them. Past it the zip is refused. Default 32 GiB: twice
    /// ``maximumEntryBytes``, so an export at that cap fits beside an `export_cda.xml` of
    /// the same size read from a pipe. A file on disk skips entries without inflating them.
    public var maximumInflatedBytes: Int64
    /// The largest accepted ratio of inflated to compressed bytes, checked while reading:
    /// of the Health entry, and of the whole zip (every byte inflated from any entry,
    /// against the compressed bytes reached so far). Default 1000 (real exports compress
    /// about 15:1; deflate cannot exceed about 1032:1, so only degenerate data such as a
    /// zip bomb passes it).
    public var maximumCompressionRatio: Double
    /// The ratio check starts once this many bytes were inflated, so a tiny entry whose
    /// headers dominate is never refused. Default 1 MiB.
    public var compressionRatioGraceBytes: Int64
    /// The longest single tag (or DOCTYPE declaration) the XML scanner holds in memory.
    /// Default 16 MiB; real tags are under 2 KiB.
    public var maximumTagBytes: Int
    /// The longest sleep record, children included, kept for parsing. A sleep record
    /// longer than this is rejected as not closed. Default 1 MiB.
    public var maximumSleepRecordBytes: Int
    /// The deepest nesting of elements in a sleep record, the `Record` itself counted: a
    /// deeper one is rejected (`sleep record nested deeper than N elements`) before
    /// `XMLParser` sees it. Default 64; Apple's records hold at most two levels of
    /// children. At least 1.
    public var maximumSleepRecordDepth: Int
    /// The longest CSV record (a row, with the line breaks inside its quoted fields; its
    /// own line feed not counted) the CSV reader holds, and so the longest field. A longer
    /// one, such as a line that never ends or a quote never closed, refuses the file
    /// (``ImportError/badFile(file:line:reason:)`` naming the line the record starts on
    /// and the cap). Default 1 MiB, the cap of one XML sleep record; real rows are about
    /// 150 bytes.
    public var maximumCSVRecordBytes: Int
    /// The most entries of one Health Auto Export metric held while the metric's name is
    /// still unknown (its `data` came before its `name`, so whether they are sleep is not
    /// known yet); past it the payload is refused (``ImportError/badFile(file:line:reason:)``).
    /// Default 1 000 000, 40 MB held (and at most 16 MiB of distinct source names); a 64 MiB
    /// payload of the shortest real sleep entries holds about 650 000. At least 1.
    public var maximumEntriesBeforeName: Int
    /// Size of the chunks passed from the reading (inflating) thread to the scanning
    /// thread. Default 1 MiB; at least 1.
    public var chunkBytes: Int
    /// How many chunks may wait between the two threads. Default 8; at least 1.
    public var queuedChunks: Int
    /// How many bytes of an input pass between two progress reports. Default 64 MiB.
    public var progressIntervalBytes: Int64
    /// The most diagnostics kept in the report; further ones are only counted, by kind of
    /// reason (``ReadReport/diagnosticsNotKeptByReason``). Default 1 000. Each kept
    /// diagnostic is at most ``ImportDiagnostic/maximumFileBytes`` plus
    /// ``ImportDiagnostic/maximumReasonBytes``, so what a report (and the importer's audit
    /// row) holds is bounded whatever the input.
    public var maximumDiagnostics: Int
    /// How long a read of a pipe, FIFO, socket or terminal (standard input included) may
    /// wait for its next byte before the input counts as stalled and the read fails with
    /// ``ImportError/io(file:reason:)``, in seconds. Default 300 (5 minutes); kept between
    /// 0.01 and 10⁹. A regular file never waits, so the limit does not apply to it. The limit is
    /// on each wait, not on the whole read: a slow input that keeps sending is never cut off.
    public var idleTimeoutSeconds: Double
    /// The most CPU time a read may use, in seconds, summed over its threads (the one that
    /// reads and inflates, and the calling one that scans and receives the samples), each
    /// measured with `CLOCK_THREAD_CPUTIME_ID` at checkpoints (every block read or
    /// inflated, every chunk scanned): time spent waiting does not count. Past it the read
    /// fails with ``ImportError/badFile(file:line:reason:)`` saying so. Default `nil`, no
    /// limit (the command line's import); the server's and `sleepledger worker`'s jobs
    /// pass `--job-cpu` (default 10 minutes). Kept between 0 and 10⁹.
    public var maximumCPUSeconds: Double?

    /// Creates options; every parameter defaults to the documented default.
    public init(
        maximumEntryBytes: Int64 = 16 << 30,
        maximumInflatedBytes: Int64 = 32 << 30,
        maximumCompressionRatio: Double = 1000,
        compressionRatioGraceBytes: Int64 = 1 << 20,
        maximumTagBytes: Int = 16 << 20,
        maximumSleepRecordBytes: Int = 1 << 20,
        maximumSleepRecordDepth: Int = 64,
        maximumCSVRecordBytes: Int = 1 << 20,
        maximumEntriesBeforeName: Int = 1_000_000,
        chunkBytes: Int = 1 << 20,
        queuedChunks: Int = 8,
        progressIntervalBytes: Int64 = 64 << 20,
        maximumDiagnostics: Int = 1_000,
        idleTimeoutSeconds: Double = 300,
        maximumCPUSeconds: Double? = nil
    ) {
        self.maximumEntryBytes = maximumEntryBytes
        self.maximumInflatedBytes = maximumInflatedBytes
        self.maximumCompressionRatio = maximumCompressionRatio
        self.compressionRatioGraceBytes = compressionRatioGraceBytes
        self.maximumTagBytes = maximumTagBytes
        self.maximumSleepRecordBytes = maximumSleepRecordBytes
        self.maximumSleepRecordDepth = max(maximumSleepRecordDepth, 1)
        self.maximumCSVRecordBytes = max(maximumCSVRecordBytes, 1)
        self.maximumEntriesBeforeName = max(maximumEntriesBeforeName, 1)
        self.chunkBytes = max(chunkBytes, 1)
        self.queuedChunks = max(queuedChunks, 1)
        self.progressIntervalBytes = progressIntervalBytes
        self.maximumDiagnostics = max(maximumDiagnostics, 0)
        self.idleTimeoutSeconds = idleTimeoutSeconds.isNaN ? 300 : min(max(idleTimeoutSeconds, 0.01), 1e9)
        self.maximumCPUSeconds = maximumCPUSeconds.map { $0.isNaN ? 0 : min(max($0, 0), 1e9) }
    }

    /// The defaults.
    public static let standard = ReaderOptions()
}
