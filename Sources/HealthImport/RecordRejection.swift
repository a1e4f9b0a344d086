/// Why one record was not imported.
struct RecordRejection: Error, Hashable {
    var reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}
