/// One HTTP request as the routes see it: method, path, query, headers (names in lower
/// case), the client's address (after trusted-proxy handling) and, for the routes that
/// take a small body, the body. Uploads stream past it (``UploadReceiver``).
public struct HTTPRequest: Sendable, Hashable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The path without the query, percent-decoded by libmicrohttpd.
    public var path: String
    /// Query arguments (the last value of a repeated name).
    public var query: [String: String]
    /// Header values by lower-case name (repeated headers joined with `, `).
    public var headers: [String: String]
    /// The client's IP address: the peer's, or `X-Forwarded-For`'s last hop when the peer
    /// is the trusted proxy.
    public var clientAddress: String
    /// The body of a route that reads one; empty otherwise.
    public var body: [UInt8]
    /// The address the client used, as the trusted proxy reports it
    /// (`X-Forwarded-Proto://Host`); `nil` for a request that did not come through it.
    public var forwardedOrigin: String?
    /// Cookies by name, as libmicrohttpd parsed the `Cookie` header (the first of a
    /// repeated name: the one of the most specific path).
    public var cookies: [String: String]
    /// The fields of a form body (`application/x-www-form-urlencoded`, or the non-file
    /// parts of `multipart/form-data`), decoded by libmicrohttpd's post processor, for the
    /// routes that read a form (the last value of a repeated name); empty otherwise.
    public var form: [String: String]

    /// Creates a request.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        clientAddress: String = "127.0.0.1", body: [UInt8] = [], forwardedOrigin: String? = nil,
        cookies: [String: String] = [:], form: [String: String] = [:]
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.clientAddress = clientAddress
        self.body = body
        self.forwardedOrigin = forwardedOrigin
        self.cookies = cookies
        self.form = form
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The token of an `Authorization: Bearer <token>` header.
    public var bearerToken: String? {
        guard let value = header("authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingWhitespace
    }

    /// The declared body length (`Content-Length`), when there is one and it is a number.
    public var contentLength: Int64? { header("content-length").flatMap { Int64($0.trimmingWhitespace) } }

    /// Whether the body comes in chunks of unknown total length.
    public var isChunked: Bool { header("transfer-encoding")?.lowercased().contains("chunked") ?? false }

    /// The media type of `Content-Type`, lower case, without parameters.
    public var mediaType: String? {
        header("content-type").map { String($0.split(separator: ";").first ?? "").trimmingWhitespace.lowercased() }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
