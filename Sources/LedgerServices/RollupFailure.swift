/// A user the rollup could not finish: its previous results stay, its flags stay set, and
/// `rollup_state.last_error` holds the message until the next run succeeds.
public struct RollupFailure: Sendable, Hashable, Codable {
    /// The user's id.
    public var userID: Int64
    /// The user's handle.
    public var handle: String
    /// What went wrong (log-safe).
    public var message: String

    /// Creates a failure record.
    public init(userID: Int64, handle: String, message: String) {
        self.userID = userID
        self.handle = handle
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case handle
        case message
    }
}
