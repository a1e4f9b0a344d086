import SleepCore

/// Reads a JSON payload of the iOS app Health Auto Export (its "REST API" automation) as
/// bytes arrive: `{"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[...]}]}}`.
///
/// Each entry of a `sleep_analysis` metric with `startDate`, `endDate`, `value` and
/// `source` becomes a sample through the same checks as an XML record
/// (``SleepRecordFields``); its `value` (`Core`, `Deep`, `REM`, `Awake`, `Asleep`,
/// `In Bed`, `Unspecified`) is mapped by ``HealthAutoExportValue``. Entries of other
/// metrics are counted in ``ReadReport/recordsSeen`` and each such metric (and each
/// non-empty collection beside the metrics, such as `workouts`) gets one diagnostic that
/// rejects nothing. A `sleep_analysis` entry summarising a night (the app's "Summarize
/// Data" setting: `asleep`, `inBed`, `sleepStart`... without `startDate` and `endDate`)
/// carries no intervals and refuses the whole payload.
///
/// Members may come in any order (the app's own payloads do not keep one): when a
/// metric's `data` comes before its `name`, its entries are checked as they arrive and
/// their results kept (40 bytes an entry, at most
/// ``ReaderOptions/maximumEntriesBeforeName`` entries) until the name tells whether they
/// are sleep. Otherwise memory is bounded by the tokenizer's limits (``JSONTokenizer``).
final class HealthAutoExportReader: TextSampleReader, JSONTokenHandler {
    /// The metric that holds sleep samples.
    static let sleepMetricName = "sleep_analysis"
    /// Why a payload of per-night summaries is refused.
    static let summarizedReason =
        "this Health Auto Export payload holds sleep summaries per night (\"Summarize Data\" is on in the automation), which carry no sleep intervals: turn \"Summarize Data\" off in the automation's settings and send again"
    /// Why a JSON text is not a payload.
    static let notAPayloadReason =
        "not a Health Auto Export payload: the JSON has no \"data\" object (expected {\"data\":{\"metrics\":[...]}})"
    /// The deepest nesting of JSON containers accepted (the app's payloads use 5 levels).
    static let maximumDepth = 256
    /// The most bytes of distinct source names held for entries waiting for their metric's
    /// name; past it the payload is refused like past
    /// ``ReaderOptions/maximumEntriesBeforeName`` (real payloads name a few sources).
    static let maximumHeldSourceBytes = 16 << 20

    private enum Context {
        /// The document's object.
        case document
        /// The `data` object.
        case data
        /// The `metrics` array.
        case metrics
        /// One metric object.
        case metric
        /// A metric's `data` array.
        case metricData
        /// One entry object of a metric.
        case entry
        /// An array beside the metrics (`workouts`...), counted and ignored.
        case ignoredCollection
        /// Anything else, checked by the tokenizer and ignored.
        case skipped
    }

    private enum Member {
        case other
        case data
        case metrics
        case name
        case startDate
        case endDate
        case value
        case source
        /// A field of a summarised night (`asleep`, `inBed`, `sleepStart`...).
        case summary
    }

    private struct Frame {
        var context: Context
        /// Elements seen so far (for arrays).
        var elements = 0
    }

    /// What one entry turned into, kept while its metric's name is unknown.
    private enum EntryResult {
        case sample(SleepSample)
        /// A rejection; the reason is kept only for the first ones (later ones would only
        /// be counted by kind anyway).
        case rejected(RejectionKind, reason: String?)
        case summarized
    }

    /// An entry's result held until its metric's name is known, in 40 bytes: a sample's
    /// instants, printed offset and source (an index into the held sources), or a
    /// rejection's kind (its reason is kept aside for the first ones), or a summary.
    private struct HeldEntry {
        var start: Int64
        var end: Int64
        var line: Int
        var index: Int32
        var offset: Int32
        var source: UInt32
        /// A stage's position in `SleepStage.allCases`; 64 plus a rejection kind's
        /// position in `RejectionKind.allCases`; ``summarizedOutcome``.
        var outcome: UInt8

        static let rejectionOutcomes: UInt8 = 64
        static let summarizedOutcome: UInt8 = 255
    }

    private struct MetricState {
        var index = 0
        var line = 1
        var name: String?
        var hasName = false
        var entries = 0
        var held: [HeldEntry] = []
        /// The reasons of the first held rejections, in order.
        var heldReasons: [String] = []
        /// The line of the first summary among entries read before the name (checking only).
        var firstSummaryLine: Int?
        /// Whether the metric is `sleep_analysis`; `nil` while its name is unknown.
        var isSleep: Bool? {
            hasName ? name == HealthAutoExportReader.sleepMetricName : nil
        }
    }

    private struct EntryState {
        var line = 1
        var index = 0
        var source: String?
        var startDate: String?
        var endDate: String?
        var value: String?
        /// Whether `startDate` or `endDate` is there (not null).
        var hasDates = false
        var hasSummaryFields = false
        var rejection: RecordRejection?
    }

    private let fileName: String
    private let session: ReadSession
    private let tokenizer: JSONTokenizer
    private let isCheckOnly: Bool
    // Touched for every token: confined to the scanning thread and never accessed
    // overlappingly, so without dynamic exclusivity checks (see JSONTokenizer).
    @exclusivity(unchecked) private var stack: [Frame] = []
    @exclusivity(unchecked) private var member = Member.other
    /// The name of the member of `data` whose value comes next (for the ignored ones).
    @exclusivity(unchecked) private var dataMemberName = ""
    private var ignoredCollectionName = ""
    private var ignoredCollectionLine = 1
    @exclusivity(unchecked) private var hasDataObject = false
    @exclusivity(unchecked) private var metric = MetricState()
    @exclusivity(unchecked) private var entry = EntryState()
    /// The source names of held samples, and their positions.
    private var heldSources: [String] = []
    private var heldSourceIDs: [String: UInt32] = [:]
    private var heldSourceBytes = 0
    /// Bytes of a leading UTF-8 byte-order mark seen so far; -1 once past it.
    private var byteOrderMarkMatched = 0

    /// Creates a reader of one payload. With `isCheckOnly` it builds no sample and keeps no
    /// diagnostic: it checks the JSON, that it is a payload, and that its sleep entries
    /// are no per-night summaries (``HealthImportReader/check(_:)``).
    init(fileName: String, session: ReadSession, isCheckOnly: Bool = false) {
        self.fileName = fileName
        self.session = session
        self.isCheckOnly = isCheckOnly
        tokenizer = JSONTokenizer(
            maximumStringBytes: session.options.maximumSleepRecordBytes, maximumDepth: Self.maximumDepth)
    }

    /// A payload ends with its document; only white space may follow, so the reader
    /// reads to the end.
    var isFinished: Bool { false }

    /// Reads the next bytes (a UTF-8 byte-order mark at the start is skipped).
    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        var bytes = bytes
        // The mark may arrive split over chunks: count its bytes as they match.
        while byteOrderMarkMatched >= 0, let first = bytes.first {
            let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
            guard first == mark[byteOrderMarkMatched] else {
                // Not a mark after all: what matched is text (not JSON, so the tokenizer says so).
                let matched = byteOrderMarkMatched
                byteOrderMarkMatched = -1
                try mark.prefix(matched).withUnsafeBytes { try feed($0) }
                break
            }
            bytes = UnsafeRawBufferPointer(rebasing: bytes[1...])
            byteOrderMarkMatched = byteOrderMarkMatched == 2 ? -1 : byteOrderMarkMatched + 1
        }
        do {
            try tokenizer.feed(bytes, to: self)
        } catch let error as JSONSyntaxError {
            throw syntaxError(error)
        }
    }

    /// Ends the input: the document must be complete.
    func finish() throws {
        do {
            try tokenizer.finish(to: self)
        } catch let error as JSONSyntaxError {
            throw syntaxError(error)
        }
        guard hasDataObject else {
            throw ImportError.badFile(file: fileName, line: nil, reason: Self.notAPayloadReason)
        }
    }

    private func syntaxError(_ error: JSONSyntaxError) -> ImportError {
        .badFile(file: fileName, line: error.line, reason: "malformed JSON: \(error.reason)")
    }

    // MARK: Structure

    func beginContainer(isObject: Bool, line: Int) throws {
        guard let parent = stack.last else {
            guard isObject else {
                throw ImportError.badFile(
                    file: fileName, line: line, reason: Self.notAPayloadReason + ": the JSON is an array")
            }
            stack.append(Frame(context: .document))
            return
        }
        let context: Context
        switch (parent.context, isObject) {
        case (.document, true) where member == .data:
            hasDataObject = true
            context = .data
        case (.data, false) where member == .metrics:
            context = .metrics
        case (.data, false):
            ignoredCollectionName = dataMemberName
            ignoredCollectionLine = line
            context = .ignoredCollection
        case (.metrics, true):
            metric = MetricState(index: stack[stack.count - 1].elements, line: line)
            context = .metric
        case (.metric, false) where member == .data:
            context = .metricData
        case (.metricData, true):
            entry = EntryState(line: line, index: stack[stack.count - 1].elements)
            context = .entry
        case (.metricData, false):
            try entryIsNotAnObject(line: line)
            context = .skipped
        case (.entry, _):
            if member == .summary { entry.hasSummaryFields = true }
            context = .skipped
        default:
            context = .skipped
        }
        countElement()
        member = .other
        stack.append(Frame(context: context))
    }

    func endContainer(isObject: Bool) throws {
        guard let frame = stack.popLast() else { return }
        switch frame.context {
        case .entry: try endEntry()
        case .metric: try endMetric()
        case .ignoredCollection where frame.elements > 0:
            session.note(
                file: fileName, line: ignoredCollectionLine,
                RecordRejection(
                    .ignoredData,
                    "data.\(DiagnosticText.unquoted(ignoredCollectionName)): \(frame.elements) entries ignored (only sleep_analysis metrics are imported)"
                ))
        default: break
        }
        member = .other
    }

    func key(_ token: JSONToken) throws {
        guard let context = stack.last?.context else { return }
        switch context {
        case .document:
            member = token.equals("data") ? .data : .other
        case .data:
            member = token.equals("metrics") ? .metrics : .other
            if member == .other { dataMemberName = Self.text(token) }
        case .metric:
            member = token.equals("name") ? .name : token.equals("data") ? .data : .other
        case .entry:
            member = metric.isSleep == false ? .other : Self.entryMember(token)
        default:
            member = .other
        }
    }

    func value(_ token: JSONToken, line: Int) throws {
        guard let parent = stack.last else {
            throw ImportError.badFile(
                file: fileName, line: line, reason: Self.notAPayloadReason + ": the JSON is a single value")
        }
        switch parent.context {
        case .metric where member == .name:
            metric.hasName = true
            metric.name = token.isString ? Self.text(token) : nil
        case .metricData:
            try entryIsNotAnObject(line: line)
        case .entry:
            take(token, as: member)
        default:
            break
        }
        countElement()
        member = .other
    }

    private func countElement() {
        if !stack.isEmpty { stack[stack.count - 1].elements += 1 }
    }

    // MARK: Entries

    private static let summaryNames: [StaticString] = [
        "sleepStart", "sleepEnd", "inBedStart", "inBedEnd", "asleep", "inBed", "core", "deep", "rem", "awake",
        "sleepSource", "inBedSource", "totalSleep",
    ]

    private static func entryMember(_ token: JSONToken) -> Member {
        if token.equals("startDate") { return .startDate }
        if token.equals("endDate") { return .endDate }
        if token.equals("value") { return .value }
        if token.equals("source") || token.equals("sourceName") { return .source }
        for name in summaryNames where token.equals(name) { return .summary }
        return .other
    }

    /// Keeps one field of the entry being read (only while it may be a sleep entry).
    private func take(_ token: JSONToken, as member: Member) {
        if member == .summary {
            entry.hasSummaryFields = true
            return
        }
        if member == .startDate || member == .endDate, !token.isNull { entry.hasDates = true }
        guard !isCheckOnly, member != .other, metric.isSleep != false, entry.rejection == nil, !token.isNull else {
            return
        }
        let text: String
        if token.isString {
            guard !token.isCut else {
                entry.rejection = RecordRejection(
                    .entryTooLong,
                    "a value longer than \(session.options.maximumSleepRecordBytes) bytes, the configured cap for one sleep record"
                )
                return
            }
            switch JSONText.decode(token) {
            case .success(let decoded):
                if decoded.replaced > 0 { session.noteReplacedCharacters(decoded.replaced) }
                text = decoded.text
            case .failure(let rejection):
                entry.rejection = rejection
                return
            }
        } else {
            text = String(decoding: token.bytes, as: UTF8.self)
        }
        guard !text.isEmpty else { return }
        switch member {
        case .startDate: entry.startDate = text
        case .endDate: entry.endDate = text
        case .value: entry.value = text
        case .source: entry.source = text
        default: break
        }
    }

    private func endEntry() throws {
        try countEntry()
        if isCheckOnly {
            guard !entry.hasDates, entry.hasSummaryFields else { return }
            switch metric.isSleep {
            case true?: throw ImportError.badFile(file: fileName, line: entry.line, reason: Self.summarizedReason)
            case nil: metric.firstSummaryLine = metric.firstSummaryLine ?? entry.line
            case false?: break
            }
            return
        }
        guard let isSleep = metric.isSleep else {
            try hold(result(), line: entry.line, index: entry.index)
            return
        }
        guard isSleep else { return }
        try deliver(result(), line: entry.line, index: entry.index)
    }

    /// A metric entry that is a string, number or array instead of an object.
    private func entryIsNotAnObject(line: Int) throws {
        let index = stack.last?.elements ?? 0
        try countEntry()
        if isCheckOnly { return }
        let result = EntryResult.rejected(.entryNotAnObject, reason: "not an object")
        switch metric.isSleep {
        case nil: try hold(result, line: line, index: index)
        case true?: try deliver(result, line: line, index: index)
        case false?: break
        }
    }

    /// Counts an entry of the current metric; refuses the payload when too many wait for
    /// the metric's name.
    private func countEntry() throws {
        session.report.recordsSeen += 1
        metric.entries += 1
        let cap = session.options.maximumEntriesBeforeName
        if metric.isSleep == nil, metric.entries > cap {
            throw ImportError.badFile(
                file: fileName, line: metric.line,
                reason:
                    "data.metrics[\(metric.index)] holds more than \(cap) entries before its name, the configured cap for entries held until a metric's name is known: send smaller payloads (the app's Batch Requests)"
            )
        }
    }

    /// What the entry just read turns into.
    private func result() -> EntryResult {
        if !entry.hasDates, entry.hasSummaryFields { return .summarized }
        if let rejection = entry.rejection { return .rejected(rejection.kind, reason: rejection.reason) }
        let fields = SleepRecordFields(
            type: nil, sourceName: entry.source, startDate: entry.startDate, endDate: entry.endDate,
            value: entry.value.map(HealthAutoExportValue.healthKitValue(for:)), timeZone: nil)
        switch fields.sample() {
        case .success(let sample): return .sample(sample)
        case .failure(let rejection): return .rejected(rejection.kind, reason: rejection.reason)
        }
    }

    /// Keeps an entry's result until its metric's name is known.
    private func hold(_ result: EntryResult, line: Int, index: Int) throws {
        var held = HeldEntry(
            start: 0, end: 0, line: line, index: Int32(clamping: index), offset: 0, source: 0, outcome: 0)
        switch result {
        case .sample(let sample):
            held.start = sample.start
            held.end = sample.end
            held.offset = sample.printedUTCOffset ?? 0
            held.outcome = UInt8(SleepStage.allCases.firstIndex(of: sample.stage) ?? 0)
            if let known = heldSourceIDs[sample.source] {
                held.source = known
            } else {
                heldSourceBytes += sample.source.utf8.count
                guard heldSourceBytes <= Self.maximumHeldSourceBytes else {
                    throw ImportError.badFile(
                        file: fileName, line: metric.line,
                        reason:
                            "data.metrics[\(metric.index)] holds more than \(Self.maximumHeldSourceBytes) bytes of source names before its name: send smaller payloads (the app's Batch Requests)"
                    )
                }
                held.source = UInt32(heldSources.count)
                heldSourceIDs[sample.source] = held.source
                heldSources.append(sample.source)
            }
        case .rejected(let kind, let reason):
            held.outcome = HeldEntry.rejectionOutcomes + UInt8(RejectionKind.allCases.firstIndex(of: kind) ?? 0)
            if metric.heldReasons.count < session.options.maximumDiagnostics, let reason {
                metric.heldReasons.append(reason)
            }
        case .summarized:
            held.outcome = HeldEntry.summarizedOutcome
        }
        metric.held.append(held)
    }

    /// The result a held entry stands for; `reasons` hands out the kept reasons in order.
    private func result(of held: HeldEntry, reasons: inout IndexingIterator<[String]>) -> EntryResult {
        if held.outcome == HeldEntry.summarizedOutcome { return .summarized }
        if held.outcome >= HeldEntry.rejectionOutcomes {
            let kind = RejectionKind.allCases[Int(held.outcome - HeldEntry.rejectionOutcomes)]
            return .rejected(kind, reason: reasons.next())
        }
        return .sample(
            SleepSample(
                source: heldSources[Int(held.source)], start: held.start, end: held.end,
                stage: SleepStage.allCases[Int(held.outcome)], timeZoneIdentifier: nil,
                printedUTCOffset: held.offset))
    }

    /// Passes a `sleep_analysis` entry's result on.
    private func deliver(_ result: EntryResult, line: Int, index: Int) throws {
        session.report.sleepRecords += 1
        switch result {
        case .sample(let sample):
            try session.accept(sample, file: fileName, line: line)
        case .rejected(let kind, let reason):
            let place = "data.metrics[\(metric.index)].data[\(index)]"
            session.reject(file: fileName, line: line, RecordRejection(kind, "\(place): \(reason ?? kind.rawValue)"))
        case .summarized:
            throw ImportError.badFile(file: fileName, line: line, reason: Self.summarizedReason)
        }
    }

    private func endMetric() throws {
        if isCheckOnly {
            if metric.isSleep == true, let line = metric.firstSummaryLine {
                throw ImportError.badFile(file: fileName, line: line, reason: Self.summarizedReason)
            }
            return
        }
        let held = metric.held
        metric.held = []
        if metric.isSleep == true {
            var reasons = metric.heldReasons.makeIterator()
            for entry in held {
                try deliver(result(of: entry, reasons: &reasons), line: entry.line, index: Int(entry.index))
            }
            return
        }
        let place = "data.metrics[\(metric.index)]"
        let what = metric.name.map { "\(place) \(DiagnosticText.quoted($0))" } ?? "\(place) without a name"
        session.note(
            file: fileName, line: metric.line,
            RecordRejection(
                .ignoredMetric, "\(what): \(metric.entries) entries ignored (only sleep_analysis is imported)"))
    }

    /// A short text for a name (escapes decoded; invalid UTF-8 shown as U+FFFD).
    private static func text(_ token: JSONToken) -> String {
        switch JSONText.decode(token) {
        case .success(let decoded): return decoded.text
        case .failure: return String(decoding: token.bytes, as: UTF8.self)
        }
    }
}
