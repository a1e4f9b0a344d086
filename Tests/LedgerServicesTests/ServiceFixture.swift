import ExportFixtures
import Foundation
import LedgerServices
import LedgerTestSupport
import SleepCore

/// A migrated test database reached through the service layer, and a scratch folder.
struct ServiceFixture {
    let conninfo: String
    let database: LedgerDatabase
    let session: LedgerSession
    let folder: URL

    init() throws {
        conninfo = try TestDatabase.migrated().conninfo
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

    /// Writes a text file and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }
}
