import Foundation
import LedgerServices
import LedgerTestSupport
import Testing

/// A malformed `DATABASE_URL` or admin URL never shows its password: not in the
/// configuration's descriptions or reflection, not in a service error's message or its
/// debug detail.
@Suite("No password in configuration and service errors")
struct DatabaseSecretTests {
    typealias Malformed = MalformedConnectionStrings

    @Test("the configuration prints and reflects without the password", arguments: Malformed.cases)
    func configuration(_ malformed: Malformed.Case) throws {
        let configuration = try DatabaseConfiguration(environment: ["DATABASE_URL": malformed.conninfo])
        #expect(configuration.source == .url(malformed.conninfo))
        var dumped = ""
        dump(configuration, to: &dumped)
        var dumpedSource = ""
        dump(configuration.source, to: &dumpedSource)
        let database = LedgerDatabase(configuration: configuration, migrationsFolder: TestDatabase.migrationsFolder)
        for text in [
            configuration.description, configuration.debugDescription, "\(configuration)",
            String(reflecting: configuration), "\(configuration.source)", String(reflecting: configuration.source),
            dumped, dumpedSource, "\(database)", String(reflecting: database),
            DatabaseConfiguration.redacted(malformed.conninfo),
        ] {
            #expect(!Malformed.showsPassword(text), "\(text)")
        }
    }

    @Test("opening a session fails without the password, debug detail included", arguments: Malformed.cases)
    func sessions(_ malformed: Malformed.Case) throws {
        let database = LedgerDatabase(
            configuration: DatabaseConfiguration(source: .url(malformed.conninfo)),
            migrationsFolder: TestDatabase.migrationsFolder)
        var errors: [ServiceError] = []
        func attempt(_ body: () throws -> Void) {
            do {
                try body()
                Issue.record("the database was used with \(malformed.name)")
            } catch let error as ServiceError {
                errors.append(error)
            } catch {
                Issue.record("not a ServiceError: \(type(of: error))")
            }
        }
        attempt { try database.open(access: .writes).close() }
        attempt { try database.open(access: .reads).close() }
        attempt { try database.openReadOnly(readOnlyURL: nil).close() }
        attempt { try database.openReadOnly(readOnlyURL: malformed.conninfo).close() }
        attempt { _ = try database.migrationStatus() }
        #expect(errors.count == 5)
        for error in errors {
            #expect(error.kind == .unavailable, "\(error.message)")
            for text in [error.message, error.debugDetail ?? "", "\(error)", String(reflecting: error)] {
                #expect(!Malformed.showsPassword(text), "\(text)")
            }
        }
    }
}
