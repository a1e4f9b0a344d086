/// Where a read takes its bytes from.
public enum ImportSource: Sendable, Hashable {
    /// A file path.
    case path(String)
    /// The process's standard input (a pipe, a redirected file).
    case standardInput
    /// An open descriptor the caller owns and closes, with a name for messages.
    case fileDescriptor(Int32, name: String)

    /// The source a command-line argument names: `-` is standard input, anything else a path.
    public init(argument: String) {
        self = argument == "-" ? .standardInput : .path(argument)
    }

    /// The name used in messages and reports (`-` for standard input).
    public var name: String {
        switch self {
        case .path(let path): return path
        case .standardInput: return "-"
        case .fileDescriptor(_, let name): return name
        }
    }
}
