/// The record that an account was deleted: its id, when it was created and when it was
/// deleted. A restore takes the id sequence back, so a later account may get the same id:
/// a tombstone applies only to a row with the same id and the same `created_at`.
///
/// One line of the tombstone file: `<id> <created_at µs> <deleted_at µs>` (microseconds
/// since 1970, UTC). No handle or other personal data: the file outlives the account.
public struct Tombstone: Sendable, Hashable {
    /// The account's id.
    public var userID: Int64
    /// The account's `created_at`, in microseconds since 1970.
    public var createdAtMicroseconds: Int64
    /// When it was deleted, in microseconds since 1970.
    public var deletedAtMicroseconds: Int64

    /// Creates a tombstone.
    public init(userID: Int64, createdAtMicroseconds: Int64, deletedAtMicroseconds: Int64) {
        self.userID = userID
        self.createdAtMicroseconds = createdAtMicroseconds
        self.deletedAtMicroseconds = deletedAtMicroseconds
    }

    /// The tombstone's line, with its newline.
    public var line: String { "\(userID) \(createdAtMicroseconds) \(deletedAtMicroseconds)\n" }

    /// Reads a line (without its newline); `nil` when it is not three whole numbers.
    public init?(line: Substring) {
        let fields = line.split(separator: " ")
        guard fields.count == 3, let id = Int64(fields[0]), let created = Int64(fields[1]),
            let deleted = Int64(fields[2])
        else { return nil }
        self.init(userID: id, createdAtMicroseconds: created, deletedAtMicroseconds: deleted)
    }
}
