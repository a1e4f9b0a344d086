import Foundation

/// One schema migration: a file `NNNN_name.sql` applied once, in version order, inside
/// its own transaction.
public struct Migration: Sendable, Hashable {
    /// The number from the file name (`0001` is 1).
    public let version: Int
    /// The name part of the file name (`foundation` for `0001_foundation.sql`).
    public let name: String
    /// The SQL script. It holds no transaction control: the migrator wraps it.
    public let sql: String

    /// Creates a migration from its parts.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// `NNNN_name.sql`.
    public var fileName: String {
        let digits = String(version)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "_" + name + ".sql"
    }

    /// Parses `NNNN_name.sql` (four or more digits, then lowercase letters, digits and
    /// underscores) into version and name; `nil` for any other file name.
    public static func parseFileName(_ fileName: String) -> (version: Int, name: String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        guard digits.count >= 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let version = Int(digits),
            version > 0, !name.isEmpty,
            name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") })
        else { return nil }
        return (version, String(name))
    }

    /// Reads every `*.sql` file of `folder`, sorted by version. Throws `migrationFailed`
    /// for an unreadable folder or file, a `.sql` file with a malformed name, or two
    /// files with one version.
    public static func load(folder: String) throws -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw StoreError(.migrationFailed, "cannot read the migrations folder \(folder)", detail: "\(error)")
        }
        var migrations: [Migration] = []
        for fileName in names.sorted() where fileName.hasSuffix(".sql") {
            guard let (version, name) = parseFileName(fileName) else {
                throw StoreError(
                    .migrationFailed, "migration file \(fileName) in \(folder) is not named NNNN_name.sql")
            }
            let path = folder + "/" + fileName
            guard let sql = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw StoreError(.migrationFailed, "cannot read migration file \(path) as UTF-8")
            }
            migrations.append(Migration(version: version, name: name, sql: sql))
        }
        return migrations
    }
}
