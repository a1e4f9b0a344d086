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

/// The kinds of rejection; the raw value is the label rejections are counted under in
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
}
