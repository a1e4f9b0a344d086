import EmbeddedPostgres
import HealthImport
import LedgerServices
import LedgerStore
import PostgresClient
import Testing

@Suite("Service errors")
struct ServiceErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var error: any Error & Sendable
        var kind: ServiceError.Kind
        var message: String
        var testDescription: String { message }
    }

    struct Unexpected: Error {}

    @Test(
        "every layer's error maps to one kind and a one-line message",
        arguments: [
            Case(
                error: PostgresError(.connectionFailed, "could not connect"), kind: .unavailable,
                message: "connectionFailed: could not connect"),
            Case(
                error: PostgresError(
                    .alreadyExists, "duplicate key", sqlState: "23505", constraint: "users_handle_key"),
                kind: .alreadyExists,
                message: "alreadyExists: duplicate key [SQLSTATE 23505] (constraint users_handle_key)"),
            Case(
                error: PostgresError(.constraintViolated, "check", sqlState: "23514"), kind: .invalidInput,
                message: "constraintViolated: check [SQLSTATE 23514]"),
            Case(
                error: PostgresError(.queryFailed, "syntax", sqlState: "42601"), kind: .internalFailure,
                message: "queryFailed: syntax [SQLSTATE 42601]"),
            Case(error: StoreError(.notFound, "no such user"), kind: .notFound, message: "notFound: no such user"),
            Case(
                error: StoreError(.schemaPending, "out of date", detail: "pending: 0009_x.sql"), kind: .unavailable,
                message: "schemaPending: out of date - pending: 0009_x.sql"),
            Case(error: StoreError(.schemaTooNew, "newer"), kind: .unavailable, message: "schemaTooNew: newer"),
            // Stored rows a migration refuses (0007's colliding handles) need an operator's fix: data.
            Case(
                error: StoreError(.migrationFailed, "users 1, 2", sqlState: "23505", statement: "0007_handle_keys.sql"),
                kind: .invalidInput,
                message: "migrationFailed: users 1, 2 [SQLSTATE 23505] (statement 0007_handle_keys.sql)"),
            Case(
                error: StoreError(.migrationFailed, "syntax", sqlState: "42601"), kind: .internalFailure,
                message: "migrationFailed: syntax [SQLSTATE 42601]"),
            // Typed values in a bad file's message stay on one line.
            Case(
                error: ImportError.badFile(file: "a\nb.xml", line: 3, reason: "unknown sleep value \"x\u{1B}[2J\""),
                kind: .refusedInput, message: "a\\nb.xml:3: unknown sleep value \"x\\u{1B}[2J\""),
            Case(
                error: ImportError.io(file: "gone\r.zip", reason: "No such file or directory"), kind: .unreadableInput,
                message: "cannot read gone\\r.zip: No such file or directory"),
            Case(
                error: ClusterError("pg_ctl start failed"), kind: .unavailable,
                message: "clusterFailed: pg_ctl start failed"),
            Case(
                error: ImportError.badFile(file: "export.zip", line: 7, reason: "no HealthData"), kind: .refusedInput,
                message: "export.zip:7: no HealthData"),
            Case(
                error: ImportError.badFile(file: "notes.txt", line: nil, reason: "not an export"), kind: .refusedInput,
                message: "notes.txt: not an export"),
            Case(
                error: ImportError.io(file: "gone.zip", reason: "No such file or directory"), kind: .unreadableInput,
                message: "cannot read gone.zip: No such file or directory"),
            Case(error: Unexpected(), kind: .internalFailure, message: "internal error: Unexpected()"),
        ])
    func classification(_ example: Case) {
        let error = ServiceError(example.error)
        #expect(error.kind == example.kind)
        #expect(error.message == example.message)
        #expect(ServiceError(error) == error)
    }

    @Test("the debug detail keeps what the log-safe message leaves out")
    func debugDetail() {
        let database = PostgresError(
            .constraintViolated, "new row violates check constraint \"c\"", sqlState: "23514",
            detail: "Failing row contains (anna).", constraint: "c")
        let error = ServiceError(database)
        #expect(!error.message.contains("anna"))
        #expect(error.debugDetail?.contains("Failing row contains (anna).") == true)
        let migration = ServiceError(
            StoreError(.migrationFailed, "users 1, 2", sqlState: "23505", debugDetail: "one handle: 1 'Åsa' = 2 'åsa'"))
        #expect(!migration.message.contains("Åsa"))
        #expect(migration.debugDetail == "one handle: 1 'Åsa' = 2 'åsa'")
    }
}
