/// Why one record was not imported: the reason for people (values quoted in short, see
/// ``DiagnosticText``) and its kind, under which rejections beyond the diagnostics kept
/// are counted.
struct RecordRejection: Error, Hashable {
    var kind: RejectionKind
    var reason: String

    init(_ kind: RejectionKind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }
}

/// The kinds of rejection (and of the diagnostics about ignored Health Auto Export data);
/// the raw value is the label they are counted under in
/// ``ReadReport/diagnosticsNotKeptByReason`` (documented in docs/import-formats.md).
enum RejectionKind: String, CaseIterable, Sendable {
    case missingSourceName = "missing sourceName"
    case missingStartDate = "missing startDate"
    case missingEndDate = "missing endDate"
    case missingValue = "missing value"
    case unknownSleepValue = "unknown sleep value"
    case unreadableStartDate = "unreadable startDate"
    case unreadableEndDate = "unreadable endDate"
    case endNotAfterStart = "endDate not after startDate"
    case outsideSupportedDates = "outside the supported dates"
    case invalidUTF8 = "invalid UTF-8"
    case brokenMarkup = "broken markup in sleep record"
    case malformedXML = "malformed XML in sleep record"
    case sleepRecordNotClosed = "sleep record not closed"
    case sleepRecordTooDeep = "sleep record nested too deep"
    case quotedFieldNotClosed = "quoted field not closed"
    /// A Health Auto Export `sleep_analysis` entry that is not a JSON object.
    case entryNotAnObject = "entry not an object"
    /// A Health Auto Export entry with a value longer than the cap of one sleep record.
    case entryTooLong = "entry too long"
    /// Not a rejected record: a Health Auto Export metric other than `sleep_analysis`,
    /// ignored with a diagnostic.
    case ignoredMetric = "ignored metric"
    /// Not a rejected record: a collection of a Health Auto Export payload other than its
    /// metrics (`workouts`...), ignored with a diagnostic.
    case ignoredData = "ignored data"
}
