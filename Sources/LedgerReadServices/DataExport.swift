import Foundation
import LedgerStore
public import SleepCore
import SleepReports

/// "Download all my data" (issue 22, item 4): a person's whole history as one zip, written
/// as it is read, in one read-only transaction as the person (row-level security shows the
/// server's role their rows only) at `REPEATABLE READ`, so every file of it shows the same
/// moment. The API's `GET /api/v1/me/export`, the settings page's button and
/// `sleepledger-admin export` all write it here.
///
/// The zip holds, under ``folder``:
///
/// | file | what | format |
/// |---|---|---|
/// | `README.txt` | what each file is | text |
/// | `samples.csv` | every stored sleep sample | ``SleepReports/SamplesCSV``: the importer's CSV (docs/import-formats.md) |
/// | `nights.csv`, `naps.csv` | the stored nights and naps | ``SleepReports/NightsCSV``: the admin tool's and the nights page's CSV |
/// | `summaries/HORIZON.json` | each stored summary | docs/summary-json.md |
/// | `imports.json` | every import, uploads and command-line ones | the API's import document, `{"imports":[...]}` |
///
/// Memory stays the same however many samples there are: the samples come from the
/// database one at a time (``LedgerStore/SampleStore/streamCurrentUserSamples(_:)``) and go
/// out through the zip writer (``ZipStream``) in blocks; the nights and naps a year of wake
/// days at a time. The summaries (six) and the import list are read whole.
public struct DataExport {
    /// The session every read uses.
    public let session: LedgerSession

    /// Creates the use case over `session`.
    public init(session: LedgerSession) {
        self.session = session
    }

    /// The folder every file of the zip is in.
    public static let folder = "sleepledger-export"

    /// What one export held.
    public struct Contents: Sendable, Hashable {
        /// The person's handle.
        public var handle: String
        /// Samples in `samples.csv`.
        public var samples: Int
        /// Nights in `nights.csv`.
        public var nights: Int
        /// Naps in `naps.csv`.
        public var naps: Int
        /// The horizons whose stored summary is in `summaries/`.
        public var summaries: [Horizon]
        /// Imports in `imports.json`.
        public var imports: Int
    }

    /// The samples' CSV is handed to the zip in pieces of about this many bytes.
    static let samplePieceBytes = 64 << 10

    /// Writes the zip of user `userID`'s data, dated `now` (epoch seconds), to `sink` as it
    /// is made. ``ServiceError/Kind/notFound`` when the user does not exist; what `sink`
    /// throws ends the export (the transaction is rolled back) and is rethrown as it is.
    public func write(userID: Int64, now: Int64, to sink: @escaping (UnsafeRawBufferPointer) throws -> Void) throws
        -> Contents
    {
        try session.snapshotAsUser(userID) {
            guard
                let user = try ServiceError.wrapping({ try UserStore(connection: session.connection).find(id: userID) })
            else { throw ServiceError(.notFound, "this account no longer exists") }
            let zip = try ZipStream(modified: now, sink: sink)
            try zip.entry(Self.folder + "/README.txt", text: Self.readme(handle: user.handle, now: now))

            let (summaries, imports) = try ServiceError.wrapping {
                let store = SummaryStore(connection: session.connection)
                let summaries = try Horizon.allCases.compactMap { horizon in
                    try store.storedText(userID: userID, horizon: horizon).map { (horizon, $0.json) }
                }
                let imports = try ImportHistory(session: session).views(userID: userID, limit: Int(Int32.max))
                    .compactMap { ImportDocument($0, includingCommandLine: true) }
                return (summaries, imports)
            }
            for (horizon, json) in summaries {
                try zip.entry(Self.folder + "/summaries/\(horizon.rawValue).json", bytes: json + [10])
            }
            struct Imports: Encodable { var imports: [ImportDocument] }
            try zip.entry(
                Self.folder + "/imports.json",
                bytes: try ServiceError.wrapping { try StreamingJSONEncoder().encode(Imports(imports: imports)) + [10] }
            )

            // Nights and naps a year of wake days at a time (at most 366 rows held).
            let nightStore = NightStore(connection: session.connection)
            let nights = try Self.inPieces(
                zip, "nights.csv", header: NightsCSV.nightHeader,
                first: { try nightStore.firstWakeDay(userID: userID, after: $0, through: nil) },
                read: { try nightStore.nights(userID: userID, from: $0, through: $1) }, render: NightsCSV.nights)
            let naps = try Self.inPieces(
                zip, "naps.csv", header: NightsCSV.napHeader,
                first: { try nightStore.firstNapWakeDay(userID: userID, after: $0) },
                read: { try nightStore.naps(userID: userID, from: $0, through: $1) }, render: NightsCSV.naps)

            var samples = 0
            try zip.entry(Self.folder + "/samples.csv") { write in
                var piece = SamplesCSV.headerLine
                func flush() throws {
                    try piece.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
                    piece.removeAll(keepingCapacity: true)
                }
                samples = try SampleStore(connection: session.connection).streamCurrentUserSamples { sample in
                    piece += SamplesCSV.line(sample)
                    if piece.utf8.count >= Self.samplePieceBytes { try flush() }
                }
                try flush()
            }
            try zip.finish()
            return Contents(
                handle: user.handle, samples: samples, nights: nights, naps: naps,
                summaries: summaries.map { $0.0 }, imports: imports.count)
        }
    }

    /// Wake days read at once for `nights.csv` and `naps.csv`.
    static let daysAPiece = 366

    /// Adds the CSV entry `name` with `header`, then the rows of every wake day from the
    /// first one on, read ``daysAPiece`` days at a time: `first(day)` finds the first wake
    /// day after `day` that has rows, `read(first, last)` reads a piece's values and
    /// `render` makes them a table. Returns how many values were written.
    static func inPieces<Value>(
        _ zip: ZipStream, _ name: String, header: [String], first: (LocalDate) throws -> LocalDate?,
        read: (LocalDate, LocalDate) throws -> [Value], render: ([Value]) -> CSVTable
    ) throws -> Int {
        var count = 0
        try zip.entry(folder + "/" + name) { write in
            var text = CSVTable.line(header)
            var next = try ServiceError.wrapping { try first(LocalDate.supportedRange.lowerBound.adding(days: -1)) }
            while true {
                try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
                guard let start = next else { break }
                let last = start.adding(days: daysAPiece - 1)
                let values = try ServiceError.wrapping { try read(start, last) }
                count += values.count
                text = render(values).renderedRows
                next = try ServiceError.wrapping { try first(last) }
            }
        }
        return count
    }

    /// The file name a download of `handle`'s export gets on day `day`:
    /// `sleepledger-export-2026-12-06.zip` (the handle is not in it: it may hold any letter).
    public static func fileName(on day: LocalDate) -> String { "sleepledger-export-\(day).zip" }

    /// The zip's `README.txt`: whose data, when, and what each file is.
    static func readme(handle: String, now: Int64) -> String {
        """
        SleepLedger: all the data of \(handle), exported \(ReportFormat.isoUTC(now)).

        samples.csv        Every sleep sample stored for you, one a line, in the CSV form
                           SleepLedger imports (columns sourceName, startDate, endDate,
                           value, timeZone): docs/import-formats.md, "CSV". Importing it
                           again gives the same samples.
        nights.csv         Every night built from them (wake day, times, durations,
                           stages, efficiency), as the nights page's CSV download.
        naps.csv           Every nap, likewise.
        summaries/*.json   Your stored summary of each horizon (daily, weekly, monthly,
                           yearly, 5y, 10y): docs/summary-json.md.
        imports.json       Every import of yours (uploads and imports an operator made),
                           as the API's import document: docs/http-api.md.

        CSV cells that a spreadsheet would run as a formula (starting with =, +, - or @)
        have a ' in front.

        """
    }
}
