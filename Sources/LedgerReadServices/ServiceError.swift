import EmbeddedPostgres
import LedgerStore
import PostgresClient

/// The one error type of the use cases: why a request could not be done, in a category
/// each front end maps on its own (the CLI to an exit code, the server to an HTTP
/// status), and one line a person can act on.
///
/// ``message`` is log-safe where it comes from a lower layer (database, cluster, store
/// errors give their log-safe descriptions); messages the services write themselves echo
/// only what the caller sent (a handle, a file name), with control characters escaped
/// (``MessageText``) so a message stays one line. ``debugDetail`` holds everything a lower
/// layer knew, values included, for an operator who asked for it.
public struct ServiceError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The request's own values are not acceptable (a malformed handle, an unknown
        /// zone, a target below the minimum, a date outside the supported range, a value
        /// the database refused), or stored rows break a rule a migration adds (handles
        /// that became one under migration 0007).
        case invalidInput
        /// What the request names does not exist (an unknown user).
        case notFound
        /// What the request would create exists already (a taken handle).
        case alreadyExists
        /// What the request names is in a state that does not allow it (cancelling an
        /// import that already runs).
        case conflict
        /// The input was read and refused as a whole (not an export, damaged, `--strict`
        /// with rejected records).
        case refusedInput
        /// The input could not be read at all (missing file, I/O error).
        case unreadableInput
        /// The database cannot be reached or has a schema this version cannot use.
        case unavailable
        /// No valid credential came with the request (a missing, malformed, unknown or
        /// revoked API token).
        case unauthorized
        /// The credential is valid but does not allow this (an `ingest` token on a data route).
        case forbidden
        /// Another run holds what this one needs; try again later.
        case busy
        /// The server is short of space for what the request would store (the spool's free
        /// space below its reserve); try again later.
        case insufficientStorage
        /// A bug or an unexpected failure.
        case internalFailure
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// One line for the person who made the request.
    public var message: String
    /// Everything the lower layer knew, values included; only for an operator who asked.
    public var debugDetail: String?
    /// Whether the database connection was lost or reached a server that cannot take the
    /// work now (a failover: ``PostgresClient/PostgresError/isServerLost``); always
    /// ``Kind/unavailable``. The session is dropped; an idempotent call may be tried again
    /// once on a new one.
    public var isDatabaseLost: Bool

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, debugDetail: String? = nil, isDatabaseLost: Bool = false) {
        self.kind = kind
        self.message = message
        self.debugDetail = debugDetail
        self.isDatabaseLost = isDatabaseLost
    }

    /// Classifies an error from any layer below.
    public init(_ error: any Error) {
        switch error {
        case let error as ServiceError:
            self = error
        case let error as PostgresError:
            if error.isServerLost {
                self.init(.unavailable, error.description, debugDetail: error.debugDescription, isDatabaseLost: true)
                return
            }
            let kind: Kind
            switch error.kind {
            // lock_not_available: a lock wait ran out (lock_timeout, NOWAIT).
            case _ where error.sqlState == "55P03": kind = .busy
            case .connectionFailed: kind = .unavailable
            case .alreadyExists: kind = .alreadyExists
            case .invalidValue, .constraintViolated: kind = .invalidInput
            default: kind = .internalFailure
            }
            self.init(kind, error.description, debugDetail: error.debugDescription)
        case let error as StoreError where PostgresError.isServerLost(sqlState: error.sqlState):
            self.init(.unavailable, error.description, debugDetail: error.debugDetail, isDatabaseLost: true)
        case let error as StoreError:
            let kind: Kind
            switch error.kind {
            case .notFound: kind = .notFound
            case .schemaTooNew, .schemaPending: kind = .unavailable
            case .invalidValue: kind = .invalidInput
            // Stored rows break a rule a migration adds (0007: handles that became one):
            // the data needs an operator's fix, not the program.
            case .migrationFailed where error.sqlState?.hasPrefix("23") == true: kind = .invalidInput
            case .busy: kind = .busy
            case .tombstoneFileFailed: kind = .unavailable
            default: kind = .internalFailure
            }
            self.init(kind, error.description, debugDetail: error.debugDetail)
        case let error as ClusterError:
            self.init(.unavailable, error.description)
        case let error as BackupError:
            let kinds: [BackupError.Kind: Kind] = [
                .badInput: .invalidInput, .unavailable: .unavailable, .tryLater: .busy,
            ]
            self.init(kinds[error.kind] ?? .unavailable, error.description)
        case let error as any ServiceErrorConvertible:
            self = error.serviceError
        default:
            self.init(.internalFailure, "internal error: \(error)")
        }
    }

    /// Runs `body`, turning whatever it throws into a ``ServiceError``: every public
    /// service call throws only this type.
    package static func wrapping<T>(_ body: () throws -> T) throws(ServiceError) -> T {
        do {
            return try body()
        } catch {
            throw ServiceError(error)
        }
    }

    /// The message.
    public var description: String { message }
}

/// An error of a layer this target does not link, which says itself what it is as a
/// ``ServiceError``: the importer's `ImportError` (its conformance is in `LedgerServices`,
/// beside the import use cases, so the read-only services need not link the readers).
/// ``ServiceError/init(_:)`` maps such an error through ``serviceError``.
public protocol ServiceErrorConvertible: Error {
    /// The error as the use cases report it.
    var serviceError: ServiceError { get }
}
