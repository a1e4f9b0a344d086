/// The one error type of the import layer: why a whole input was refused.
///
/// A *bad file* is an input the importer will not read at all (not an export, a damaged
/// zip, XML without its `HealthData` root, a zip bomb...). A bad *record* is not an
/// error: it becomes an ``ImportDiagnostic`` in the ``ReadReport`` and the rest imports.
public enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input cannot be imported. `file` names the input or the zip entry, `line` is
    /// the 1-based line in that file when one is known.
    case badFile(file: String, line: Int?, reason: String)
    /// Reading the input failed at the operating-system level (open, read).
    case io(file: String, reason: String)

    /// A log-safe, human-readable description naming file, line and reason.
    public var description: String {
        switch self {
        case .badFile(let file, let line, let reason):
            if let line {
                return "bad file \(file), line \(line): \(reason)"
            }
            return "bad file \(file): \(reason)"
        case .io(let file, let reason):
            return "cannot read \(file): \(reason)"
        }
    }
}
