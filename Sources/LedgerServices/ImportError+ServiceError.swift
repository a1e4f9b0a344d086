public import HealthImport
public import LedgerReadServices

/// How a reader's failure reads as a use case's: a refused file names the file (and the
/// line), an unreadable one says it could not be read; typed values stay on one line
/// (``MessageText``). The conformance lives here, beside the import
/// use cases, because `LedgerReadServices` does not link `HealthImport`.
extension ImportError: ServiceErrorConvertible {
    /// The error as ``ServiceError/init(_:)`` reports it.
    public var serviceError: ServiceError {
        switch self {
        case .badFile(let file, let line, let reason):
            let (file, reason) = (MessageText.escaped(file), MessageText.escaped(reason))
            return ServiceError(.refusedInput, line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)")
        case .io(let file, let reason):
            return ServiceError(
                .unreadableInput, "cannot read \(MessageText.escaped(file)): \(MessageText.escaped(reason))")
        }
    }
}
