import Foundation
public import LedgerServices
import LedgerStore

/// One HTTP response: status, headers and a body held in memory (the API's responses are
/// small JSON documents), or a body streamed as it is made (``stream``).
public struct HTTPResponse: Sendable, Hashable {
    /// One header line.
    public struct Header: Sendable, Hashable {
        /// The name.
        public var name: String
        /// The value.
        public var value: String

        /// Creates a header.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The status code.
    public var status: Int
    /// Headers besides `Content-Length` (libmicrohttpd adds it).
    public var headers: [Header]
    /// The body.
    public var body: [UInt8]
    /// A body made while it is sent, instead of ``body`` (a person's data export): sent
    /// with chunked transfer encoding as its producer writes it.
    public var stream: StreamedBody?
    /// The message of an error document (``error(_:code:message:headers:)``), for a page
    /// that words the API's refusal for a person; `nil` for any other response.
    public var problem: String?

    /// Creates a response.
    public init(status: Int, headers: [Header] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// A JSON document ending in a newline: keys in the order the value encodes them,
    /// slashes unescaped.
    public static func json(_ value: some Encodable, status: Int = 200, headers: [Header] = []) -> HTTPResponse {
        guard var body = jsonBytes(value) else {
            return error(500, code: "internal", message: "the response could not be encoded")
        }
        body.append(10)
        return HTTPResponse(status: status, headers: [Header("Content-Type", "application/json")] + headers, body: body)
    }

    /// `value` as JSON through LedgerStore's `StreamingJSONEncoder` (several times faster
    /// than `JSONEncoder`, which was a quarter of the server's time on `GET
    /// /api/v1/summary`), or through `JSONEncoder` for what that encoder does not write;
    /// `nil` when neither can.
    static func jsonBytes(_ value: some Encodable) -> [UInt8]? {
        do {
            return try StreamingJSONEncoder().encode(value)
        } catch is StreamingJSONEncoder.Unsupported {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            return (try? encoder.encode(value)).map { Array($0) }
        } catch {
            return nil
        }
    }

    /// The error document `{"error":{"code":...,"message":...}}`.
    public static func error(_ status: Int, code: String, message: String, headers: [Header] = []) -> HTTPResponse {
        struct Document: Encodable {
            struct Body: Encodable {
                var code: String
                var message: String
            }
            var error: Body
        }
        var body = jsonBytes(Document(error: .init(code: code, message: message))) ?? []
        body.append(10)
        var response = HTTPResponse(
            status: status, headers: [Header("Content-Type", "application/json")] + headers, body: body)
        response.problem = message
        return response
    }

    /// What a 503 says: the detail (which database, which error) stays in the server's log.
    public static let unavailableMessage = "the service is temporarily unavailable; try again shortly"
    /// What a 500 says: nothing of the internals.
    public static let internalMessage = "an internal error occurred"

    /// The response for a use case's failure: its kind decides the status; 503 and 500
    /// answer with a generic message (``unavailableMessage``, ``internalMessage``), 503 and
    /// 429 with `Retry-After`.
    public init(_ failure: ServiceError) {
        let status: Int
        let code: String
        switch failure.kind {
        case .invalidInput: (status, code) = (400, "invalid_input")
        case .notFound: (status, code) = (404, "not_found")
        case .alreadyExists: (status, code) = (409, "already_exists")
        case .conflict: (status, code) = (409, "conflict")
        case .refusedInput: (status, code) = (422, "unreadable_export")
        case .unreadableInput: (status, code) = (422, "unreadable_export")
        case .unauthorized: (status, code) = (401, "unauthorized")
        case .forbidden: (status, code) = (403, "forbidden")
        case .busy: (status, code) = (429, "too_many")
        case .insufficientStorage: (status, code) = (507, "insufficient_storage")
        case .unavailable: (status, code) = (503, "unavailable")
        case .internalFailure: (status, code) = (500, "internal")
        }
        let message: String
        switch failure.kind {
        case .unavailable: message = Self.unavailableMessage
        case .internalFailure: message = Self.internalMessage
        default: message = failure.message
        }
        var response = HTTPResponse.error(status, code: code, message: message)
        switch failure.kind {
        case .unauthorized: response.headers.append(Header("WWW-Authenticate", "Bearer"))
        case .busy: response.headers.append(Header("Retry-After", "60"))
        case .unavailable: response.headers.append(Header("Retry-After", "5"))
        default: break
        }
        self = response
    }
}
