/// Why a sample was rejected during validation (spec section 1), with where it came from.
/// Diagnostics are data: the CLI prints them, the server stores them.
public struct SampleDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The reason a sample was not accepted.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The end instant is not after the start instant (after rounding to whole
        /// seconds); zero-length records are rejected too.
        case endNotAfterStart(start: Int64, end: Int64)
        /// The `value` attribute is not one of the known sleep-analysis values.
        case unknownValue(String)
        /// An instant is not a finite number or lies outside the representable range.
        case invalidInstant
        /// The start or the end lies outside ``LocalDate/supportedInstants`` (1900 through
        /// 2199).
        case outsideSupportedDates

        /// A short log-safe explanation.
        public var description: String {
            switch self {
            case .endNotAfterStart(let start, let end):
                return "end \(end) is not after start \(start)"
            case .unknownValue(let value):
                return "unknown sleep value \"\(value)\""
            case .invalidInstant:
                return "start or end is not a valid instant"
            case .outsideSupportedDates:
                return "start or end lies outside the supported dates \(LocalDate.supportedRangeText)"
            }
        }
    }

    /// Why the sample was rejected.
    public var reason: Reason
    /// The sample's source name, as read.
    public var source: String
    /// Where the caller read the sample, when it said.
    public var location: SampleLocation?

    /// Creates a diagnostic.
    public init(reason: Reason, source: String, location: SampleLocation? = nil) {
        self.reason = reason
        self.source = source
        self.location = location
    }

    /// `location: reason (source "name")`.
    public var description: String {
        "\(location?.description ?? "unknown location"): \(reason) (source \"\(source)\")"
    }
}
