import Foundation
public import LedgerStore

/// The imports a user made, as recorded in `imports` (the read side of the import use
/// cases, for the admin tool and every other front end; the imports themselves are
/// `LedgerServices.ImportService`'s).
public struct ImportHistory {
    /// The session every call uses.
    public let session: LedgerSession

    /// Creates the service over `session`.
    public init(session: LedgerSession) {
        self.session = session
    }

    /// The user's import records as stored (table `imports`), newest first.
    public func imports(for user: User) throws(ServiceError) -> [AdminImportRecord] {
        try ServiceError.wrapping { try AdminQueries(connection: session.connection).imports(userID: user.id) }
    }

    /// Every import record of the user (each run of the importer: `sleepledger import`'s and
    /// the uploads'), newest first, as ``ImportView``s: what the admin tool lists.
    public func records(for user: User) throws(ServiceError) -> [ImportView] {
        try ServiceError.wrapping {
            let made = try ImportJobStore(connection: session.connection).jobsByImport(userID: user.id)
            return try imports(for: user).map { record in ImportView(record, madeByJob: made[record.id]) }
        }
    }

    /// User `userID`'s imports as the pages show them, newest first, at most `limit`: the
    /// uploads (their jobs, with what their imports counted) and the imports made with
    /// `sleepledger import` (the `imports` rows no job made), read in one transaction as
    /// the user.
    public func views(userID: Int64, limit: Int) throws(ServiceError) -> [ImportView] {
        try ServiceError.wrapping {
            try session.asUser(userID) {
                let jobs = ImportJobStore(connection: session.connection)
                let made = try jobs.jobsByImport(userID: userID)
                let uploads = try jobs.jobs(userID: userID, limit: limit).map(ImportView.init)
                // The records of uploads' imports (a done one its job names; a failed one
                // without a number) are shown as their uploads.
                let commands = try AdminQueries(connection: session.connection).imports(userID: userID)
                    .filter { made[$0.id] == nil && $0.number != nil }.prefix(limit).map { ImportView($0) }
                return (uploads + commands).sorted { ($0.createdAt, $0.number ?? 0) > ($1.createdAt, $1.number ?? 0) }
                    .prefix(limit).map { $0 }
            }
        }
    }

    /// Each stored diagnostic as one line: `file:line: reason` for the importer's
    /// diagnostics, its `message` (with `kind`/`code` and `count` when present), or the
    /// compact JSON of anything else.
    public static func diagnosticLines(_ json: String) -> [String] {
        guard let array = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any] else { return [] }
        return array.map { element in
            if let object = element as? [String: Any] {
                // What `sleepledger import` stores: {"file", "line", "reason"}.
                if let file = object["file"] as? String, let line = object["line"] as? Int,
                    let reason = object["reason"] as? String
                {
                    return "\(file):\(line): \(reason)"
                }
                var parts: [String] = []
                if let kind = (object["kind"] ?? object["code"]) as? String { parts.append(kind) }
                if let message = object["message"] as? String { parts.append(message) }
                if let count = object["count"] as? Int { parts.append("(\(count))") }
                if !parts.isEmpty { return parts.joined(separator: " ") }
            }
            if let text = element as? String { return text }
            guard
                let data = try? JSONSerialization.data(
                    withJSONObject: element, options: [.sortedKeys, .fragmentsAllowed])
            else { return "\(element)" }
            return String(decoding: data, as: UTF8.self)
        }
    }
}
