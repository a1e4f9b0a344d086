import ExportFixtures
import Foundation
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore

/// A migrated test database reached through the service layer, and a scratch folder.
struct ServiceFixture {
    let database: LedgerDatabase
    let session: LedgerSession
    let folder: URL
    /// The test database's superuser connection string, for observing it directly.
    let conninfo: String

    init() throws {
        let conninfo = try TestDatabase.migrated().conninfo
        self.conninfo = conninfo
        database = LedgerDatabase(
            configuration: DatabaseConfiguration(source: .url(conninfo)),
            migrationsFolder: TestDatabase.migrationsFolder)
        session = try database.open(access: .writes)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("services-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func close() {
        session.close()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Writes a generated export.zip of `samples` and returns its path.
    func writeZip(_ name: String, samples: [SleepSample]) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try ExportZipWriter.write(samples: samples, spec: ExportSpec(seed: 3), toPath: path)
        return path
    }

    /// Adds a user with the default goals through the service, as the CLI does.
    func addUser(_ handle: String = "anna", zone: String = "UTC") throws -> User {
        try UserService(session: session).add(handle: handle, timeZone: zone, targetSeconds: nil, minimumSeconds: nil)
    }

    /// The audit row of `user`'s one import, read as the superuser: status, the number of
    /// diagnostics kept, their JSON's bytes, the number not kept, the warnings as JSON text.
    func auditRow(of user: User) throws -> Row {
        let connection = try Connection(conninfo: conninfo)
        defer { connection.close() }
        return try connection.execute(
            """
            SELECT status, jsonb_array_length(diagnostics), octet_length(diagnostics::text), diagnostics_not_kept,
                warnings::text
            FROM imports WHERE user_id = $1
            """, [.int64(user.id)]
        ).single()
    }

    /// Writes a text file and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }
}
