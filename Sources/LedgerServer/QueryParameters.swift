import LedgerServices
import SleepCore

/// A route's query parameters, read with the rules every route shares: a name the route
/// does not take, or a value it cannot read, is refused with 400 `invalid_parameter` and
/// a message naming the parameter.
struct QueryParameters {
    /// The refusal: the 400 response to send.
    struct Refusal: Error {
        /// What is wrong, naming the parameter.
        let message: String
        /// The API's answer: 400 `invalid_parameter`.
        var response: HTTPResponse { .error(400, code: "invalid_parameter", message: message) }

        init(_ message: String) {
            self.message = message
        }
    }

    private let query: [String: String]

    /// The parameters of `request`, refusing any name outside `allowed`.
    init(_ request: HTTPRequest, allowed: [String]) throws(Refusal) {
        query = request.query
        for name in query.keys.sorted() where !allowed.contains(name) {
            let takes = allowed.isEmpty ? "no query parameters" : allowed.joined(separator: ", ")
            throw Refusal("unknown query parameter \(MessageText.quoted(name)); this route takes \(takes)")
        }
    }

    /// `horizon`: one of the six horizons; `fallback` when absent.
    func horizon(default fallback: Horizon) throws(Refusal) -> Horizon {
        guard let text = query["horizon"] else { return fallback }
        guard let horizon = Horizon(rawValue: text) else {
            let names = Horizon.allCases.map(\.rawValue).joined(separator: ", ")
            throw Refusal("horizon must be one of \(names), not \(MessageText.quoted(text))")
        }
        return horizon
    }

    /// A `YYYY-MM-DD` date within the supported dates, or `nil` when absent.
    func date(_ name: String) throws(Refusal) -> LocalDate? {
        guard let text = query[name] else { return nil }
        guard let date = LocalDate(text), date.isSupported else {
            throw Refusal(
                "\(name) must be a date YYYY-MM-DD from \(LocalDate.supportedRangeText), not \(MessageText.quoted(text))"
            )
        }
        return date
    }
}
