public import LedgerReadServices

/// Process exit codes, sysexits style, shared by every SleepLedger command (docs/cli.md).
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Success.
    case success = 0
    /// The command line was wrong (EX_USAGE).
    case usage = 64
    /// The input data was bad: a malformed value, a bad file (EX_DATAERR).
    case dataError = 65
    /// An unknown user or a missing file (EX_NOINPUT).
    case noInput = 66
    /// The database could not be reached or has an incompatible schema (EX_UNAVAILABLE).
    case unavailable = 69
    /// A bug or unexpected failure (EX_SOFTWARE).
    case internalError = 70
    /// Not allowed: a credential is missing, invalid or lacks the right (EX_NOPERM).
    case permissionDenied = 77
    /// Another run holds the lock; try again later (EX_TEMPFAIL).
    case busy = 75
}

extension ExitCode {
    /// The exit code of a use case's failure (docs/cli.md).
    public init(_ kind: ServiceError.Kind) {
        switch kind {
        case .invalidInput, .alreadyExists, .conflict, .refusedInput: self = .dataError
        case .notFound, .unreadableInput: self = .noInput
        case .unavailable: self = .unavailable
        case .busy, .insufficientStorage: self = .busy
        case .unauthorized, .forbidden: self = .permissionDenied
        case .internalFailure: self = .internalError
        }
    }
}
