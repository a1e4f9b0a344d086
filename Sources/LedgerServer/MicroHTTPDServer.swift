import CMicroHTTPD
import Foundation
import Glibc
import LedgerServices

/// The one file that owns every libmicrohttpd callback: it turns libmicrohttpd's calls
/// into ``HTTPRequest`` values, asks its routes (``ServerRoutes``, or ``MetricsRoutes``
/// on the metrics listener) what to do, streams upload bodies, queues the responses,
/// and after each request records it in ``ServerMetrics`` and writes one access-log line
/// (no tokens, no bodies).
///
/// Thread per connection: libmicrohttpd calls the handler on the connection's own thread
/// (once for the head, once per body chunk, once at the end), so routes may block on the
/// database. HTTP parsing, chunked bodies, `Expect: 100-continue`, timeouts, limits and
/// TLS (GnuTLS, with ``TLSCredentials``) are libmicrohttpd's.
final class MicroHTTPDServer: @unchecked Sendable {
    /// Where and how one daemon listens.
    struct Listener: Sendable {
        /// The IP address to listen on.
        var host: String
        /// The port; 0 picks a free one.
        var port: UInt16
        /// Connections at once, in all.
        var maximumConnections: Int
        /// Connections at once from one client address.
        var maximumConnectionsPerClient: Int
        /// Seconds a silent connection stays open.
        var idleTimeoutSeconds: Int
        /// libmicrohttpd's memory per connection.
        var connectionMemoryBytes: Int
        /// The most body bytes read and dropped after an early answer.
        var maximumUploadBytes: Int64
        /// The peer whose forwarded headers are believed.
        var trustedProxy: String?
        /// Certificate and key: the daemon speaks TLS only.
        var tls: TLSCredentials?

        /// The API's listener, as configured.
        static func api(_ configuration: ServerConfiguration, tls: TLSCredentials?) -> Listener {
            Listener(
                host: configuration.host, port: configuration.port,
                maximumConnections: configuration.maximumConnections,
                maximumConnectionsPerClient: configuration.maximumConnectionsPerClient,
                idleTimeoutSeconds: configuration.idleTimeoutSeconds,
                connectionMemoryBytes: configuration.connectionMemoryBytes,
                maximumUploadBytes: configuration.maximumUploadBytes, trustedProxy: configuration.trustedProxy, tls: tls
            )
        }

        /// The metrics listener: plain HTTP, small limits, no body is ever read.
        static func metrics(host: String, port: UInt16) -> Listener {
            Listener(
                host: host, port: port, maximumConnections: 16, maximumConnectionsPerClient: 8, idleTimeoutSeconds: 10,
                connectionMemoryBytes: 32 << 10, maximumUploadBytes: 1 << 20, trustedProxy: nil, tls: nil)
        }
    }

    /// What one request carries between the handler's calls.
    final class RequestState {
        var request: HTTPRequest
        var plan: RequestPlan
        var collected: [UInt8] = []
        var isOverLimit = false
        var postProcessor: OpaquePointer?
        var isMultipart = false
        var fileKey: String?
        /// The fields of a form body so far (``RequestPlan/form(limit:_:)``).
        var formFields: [String: [UInt8]] = [:]
        var formBytes = 0
        let started: ContinuousClock.Instant
        var status = 0
        var responseBytes = 0
        var isAnswered = false
        /// The answer decided while the body still arrives; libmicrohttpd sends a response
        /// only once the body has been read, so the rest is read and dropped first.
        var deferred: HTTPResponse?
        var droppedBytes: Int64 = 0
        /// The template of the route the path matched, for metrics; `nil`: none.
        let routeTemplate: String?

        init(
            request: HTTPRequest, plan: RequestPlan, routeTemplate: String?, started: ContinuousClock.Instant
        ) {
            self.request = request
            self.plan = plan
            self.routeTemplate = routeTemplate
            self.started = started
        }
    }

    let listener: Listener
    private let route: (HTTPRequest) -> (plan: RequestPlan, template: String?)
    private let metrics: ServerMetrics?
    private let log: (@Sendable (String) -> Void)?
    private var daemon: OpaquePointer?
    private let activity = NSCondition()
    private var activeRequests = 0
    private var activeByClient: [String: Int] = [:]

    /// A daemon for `listener` answering with the plan `route` gives a request; after each
    /// request, records it in `metrics` under the template `route` matched (never the raw
    /// path), and writes an access-log line to `log` (both optional: the metrics listener
    /// has neither).
    init(
        listener: Listener, route: @escaping (HTTPRequest) -> (plan: RequestPlan, template: String?),
        metrics: ServerMetrics? = nil, log: (@Sendable (String) -> Void)?
    ) {
        self.listener = listener
        self.route = route
        self.metrics = metrics
        self.log = log
    }

    /// The API's daemon: ``ServerRoutes`` on the configured listener, TLS with `tls`.
    convenience init(
        routes: ServerRoutes, tls: TLSCredentials?, metrics: ServerMetrics?, log: @escaping @Sendable (String) -> Void
    ) {
        self.init(listener: .api(routes.configuration, tls: tls), route: routes.route, metrics: metrics, log: log)
    }

    /// Requests being answered now.
    var requestsInFlight: Int {
        activity.lock()
        defer { activity.unlock() }
        return activeRequests
    }

    /// Starts listening and returns the port (the configured one, or the one picked for 0).
    func start() throws(ServiceError) -> UInt16 {
        var storage = sockaddr_storage()
        var ipv4 = sockaddr_in()
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET, listener.host, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = listener.port.bigEndian
            withUnsafeBytes(of: ipv4) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        } else if inet_pton(AF_INET6, listener.host, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = listener.port.bigEndian
            withUnsafeBytes(of: ipv6) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        } else {
            throw ServiceError(.invalidInput, "the listen address '\(listener.host)' is not an IP address")
        }
        var flags =
            UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue) | UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
            | UInt32(MHD_USE_ITC.rawValue) | UInt32(MHD_USE_AUTO.rawValue)
        if storage.ss_family == sa_family_t(AF_INET6) { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        // Behind a trusted proxy every connection comes from the proxy: the per-client
        // limit is then applied to the forwarded address, per request.
        let perClient = listener.trustedProxy == nil ? listener.maximumConnectionsPerClient : 0
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: listener.maximumConnections, ptr_value: nil),
            MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: perClient, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: listener.idleTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(
                option: .CONNECTION_MEMORY_LIMIT, value: listener.connectionMemoryBytes, ptr_value: nil),
            MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
        ]
        let context = Unmanaged.passUnretained(self).toOpaque()
        if let tls = listener.tls {
            guard MHD_is_feature_supported(.FEATURE_TLS) == .YES else {
                throw ServiceError(
                    .unavailable,
                    "this libmicrohttpd was built without TLS (GnuTLS): serve plain HTTP behind a TLS proxy instead")
            }
            daemon = withUnsafePointer(to: &storage) { address in
                address.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    tls.certificatePEM.withUnsafeBufferPointer { certificate in
                        tls.keyPEM.withUnsafeBufferPointer { key in
                            CMicroHTTPD_startTLS(
                                flags, address, Self.accessCallback, Self.completedCallback, context,
                                certificate.baseAddress, key.baseAddress, &options)
                        }
                    }
                }
            }
        } else {
            daemon = withUnsafePointer(to: &storage) { address in
                address.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    CMicroHTTPD_start(flags, address, Self.accessCallback, Self.completedCallback, context, &options)
                }
            }
        }
        guard let daemon else {
            throw ServiceError(
                .unavailable,
                "cannot listen on \(listener.host):\(listener.port) (in use, or not this machine's address"
                    + (listener.tls == nil ? ")" : "; or GnuTLS refused the certificate or key)"))
        }
        return CMicroHTTPD_port(daemon)
    }

    /// Stops accepting connections; requests already running go on.
    func quiesce() {
        if let daemon { _ = MHD_quiesce_daemon(daemon) }
    }

    /// Waits until no request runs or `seconds` passed; `true` when none runs.
    func waitForRequests(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        activity.lock()
        defer { activity.unlock() }
        while activeRequests > 0 {
            if !activity.wait(until: deadline) { return activeRequests == 0 }
        }
        return true
    }

    /// Stops the daemon, closing every connection.
    func stop() {
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
    }

    // MARK: Callbacks

    private static let accessCallback: MHD_AccessHandlerCallback = {
        context, connection, url, method, _, uploadData, uploadDataSize, requestContext in
        guard let context, let connection, let uploadDataSize, let requestContext else { return .NO }
        let server = Unmanaged<MicroHTTPDServer>.fromOpaque(context).takeUnretainedValue()
        return server.access(
            connection, url: url.map { String(cString: $0) } ?? "/", method: method.map { String(cString: $0) } ?? "",
            uploadData: uploadData, uploadDataSize: uploadDataSize, requestContext: requestContext)
    }

    private static let completedCallback: MHD_RequestCompletedCallback = { context, _, requestContext, termination in
        guard let context, let requestContext, let pointer = requestContext.pointee else { return }
        let server = Unmanaged<MicroHTTPDServer>.fromOpaque(context).takeUnretainedValue()
        let state = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
        requestContext.pointee = nil
        server.completed(state, isComplete: termination == .REQUEST_TERMINATED_COMPLETED_OK)
    }

    private static let cookieCallback: MHD_KeyValueIterator = { context, _, key, value in
        guard let context, let key else { return .YES }
        let box = Unmanaged<Box<[String: String]>>.fromOpaque(context).takeUnretainedValue()
        let name = String(cString: key)
        if box.value[name] == nil { box.value[name] = value.map { String(cString: $0) } ?? "" }
        return .YES
    }

    private static let headerCallback: MHD_KeyValueIterator = { context, _, key, value in
        guard let context, let key else { return .YES }
        let box = Unmanaged<Box<[String: String]>>.fromOpaque(context).takeUnretainedValue()
        let name = String(cString: key).lowercased()
        let text = value.map { String(cString: $0) } ?? ""
        box.value[name] = box.value[name].map { $0 + ", " + text } ?? text
        return .YES
    }

    private static let postCallback: MHD_PostDataIterator = {
        context, _, key, fileName, contentType, _, data, offset, size in
        guard let context else { return .NO }
        let state = Unmanaged<RequestState>.fromOpaque(context).takeUnretainedValue()
        if case .form = state.plan {
            // A form's fields, in pieces for long values; a file part of a form is no field.
            guard fileName == nil, let key else { return .YES }
            let name = String(cString: key)
            let piece = data.map { UnsafeRawBufferPointer(start: $0, count: size) }.map(Array.init) ?? []
            if offset == 0 { state.formFields[name] = piece } else { state.formFields[name, default: []] += piece }
            return .YES
        }
        guard case .upload(let receiver, _) = state.plan else { return .YES }
        guard fileName != nil else {
            // A field beside the file (the page's CSRF token), kept small.
            if let key {
                receiver.appendField(
                    String(cString: key), UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size),
                    continuing: offset > 0)
            }
            return .YES
        }
        let name = key.map { String(cString: $0) } ?? ""
        if state.fileKey == nil {
            state.fileKey = name
            receiver.rename(
                fileName: fileName.map { String(cString: $0) } ?? "upload",
                contentType: contentType.map { String(cString: $0) })
        }
        // Only the form's first file is the export.
        guard state.fileKey == name, size > 0, let data else { return .YES }
        return receiver.append(UnsafeRawBufferPointer(start: data, count: size)) ? .YES : .NO
    }

    /// A reference box for the header iterator.
    final class Box<Value> {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    // MARK: Requests

    // function-length: `access` is libmicrohttpd's one handler for a request's head, each
    // body chunk and its end (about 80 lines); it stays whole until the connection model
    // changes (the issue about the server under attack replaces thread per connection).
    private func access(
        _ connection: OpaquePointer, url: String, method: String, uploadData: UnsafePointer<CChar>?,
        uploadDataSize: UnsafeMutablePointer<Int>, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let pointer = requestContext.pointee else {
            // The head: headers are in, no body byte has been read.
            let started = ContinuousClock.now
            let request = head(connection, url: url, method: method)
            let state: RequestState
            if begin(request.clientAddress) {
                let (plan, template) = route(request)
                state = RequestState(request: request, plan: plan, routeTemplate: template, started: started)
            } else {
                let refusal = HTTPResponse.error(
                    429, code: "too_many_connections", message: "too many connections from your address",
                    headers: [.init("Retry-After", "5")])
                state = RequestState(request: request, plan: .respond(refusal), routeTemplate: nil, started: started)
            }
            state.isMultipart = request.mediaType == "multipart/form-data"
            requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
            if case .respond(let response) = state.plan {
                // A request without a body is answered on the next call, which follows at
                // once: libmicrohttpd closes the connection after a response queued with
                // the head (it cannot know no body follows), so a client could not keep it
                // alive. A request with a body is answered now, before any of it is read.
                guard request.isChunked || (request.contentLength ?? 0) > 0 else {
                    state.deferred = response
                    return .YES
                }
                return queue(response, state, connection)
            }
            return .YES
        }
        let state = Unmanaged<RequestState>.fromOpaque(pointer).takeUnretainedValue()
        if case .upload = state.plan, uploadDataSize.pointee > 0 {
            metrics?.recordUploadBytes(route: state.routeTemplate, count: uploadDataSize.pointee)
        }
        if state.isAnswered {
            uploadDataSize.pointee = 0
            return .YES
        }
        if let deferred = state.deferred {
            let size = uploadDataSize.pointee
            guard size == 0 else {
                uploadDataSize.pointee = 0
                state.droppedBytes += Int64(size)
                // Dropping is bounded by the cap too: past it, the connection is cut.
                return state.droppedBytes > listener.maximumUploadBytes ? .NO : .YES
            }
            return queue(deferred, state, connection)
        }
        let size = uploadDataSize.pointee
        if size > 0, let uploadData {
            uploadDataSize.pointee = 0
            return receive(UnsafeRawBufferPointer(start: uploadData, count: size), state, connection)
        }
        // The end of the body.
        switch state.plan {
        case .respond(let response):
            return queue(response, state, connection)
        case .collect(_, let answer):
            if state.isOverLimit {
                return queue(
                    .error(413, code: "too_large", message: "the body is larger than this route accepts"), state,
                    connection)
            }
            var request = state.request
            request.body = state.collected
            return queue(Self.answering { try answer(request) }, state, connection)
        case .form(_, let answer):
            if let processor = state.postProcessor {
                let complete = MHD_destroy_post_processor(processor) == .YES
                state.postProcessor = nil
                guard complete else { return queue(Self.badForm, state, connection) }
            }
            var request = state.request
            request.form = state.formFields.mapValues { String(decoding: $0, as: UTF8.self) }
            return queue(Self.answering { try answer(request) }, state, connection)
        case .upload(let receiver, let finish):
            if let processor = state.postProcessor {
                MHD_destroy_post_processor(processor)
                state.postProcessor = nil
            }
            return queue(Self.answering { try finish(receiver) }, state, connection)
        }
    }

    /// One chunk of a body.
    private func receive(_ bytes: UnsafeRawBufferPointer, _ state: RequestState, _ connection: OpaquePointer)
        -> MHD_Result
    {
        switch state.plan {
        case .respond:
            return .YES
        case .collect(let limit, _):
            if state.collected.count + bytes.count > limit {
                state.isOverLimit = true
                state.collected = []
            } else if !state.isOverLimit {
                state.collected.append(contentsOf: bytes)
            }
            return .YES
        case .form(let limit, _):
            state.formBytes += bytes.count
            guard state.formBytes <= limit else {
                // The rest is read and dropped (up to the upload cap), then this is the answer.
                state.deferred = .error(413, code: "too_large", message: "the form is larger than this route accepts")
                return .YES
            }
            if state.postProcessor == nil {
                // Only url-encoded and multipart bodies get one: anything else is no form.
                state.postProcessor = MHD_create_post_processor(
                    connection, 16 << 10, Self.postCallback, Unmanaged.passUnretained(state).toOpaque())
            }
            guard let processor = state.postProcessor,
                let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                MHD_post_process(processor, base, bytes.count) == .YES
            else {
                state.deferred = Self.badForm
                return .YES
            }
            return .YES
        case .upload(let receiver, _):
            let accepted: Bool
            if state.isMultipart {
                if state.postProcessor == nil {
                    state.postProcessor = MHD_create_post_processor(
                        connection, 64 << 10, Self.postCallback, Unmanaged.passUnretained(state).toOpaque())
                }
                guard let processor = state.postProcessor,
                    let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
                else {
                    receiver.abandon()
                    state.deferred = .error(
                        400, code: "bad_form", message: "the form could not be read (no boundary, or malformed)")
                    return .YES
                }
                accepted = MHD_post_process(processor, base, bytes.count) == .YES
            } else {
                accepted = receiver.append(bytes)
            }
            guard accepted else {
                // Cut at the cap: the connection closes without reading more.
                if receiver.isOverCap { return .NO }
                receiver.abandon()
                state.deferred = .error(
                    400, code: state.isMultipart ? "bad_form" : "bad_body",
                    message: "the upload could not be read or stored")
                return .YES
            }
            return .YES
        }
    }

    /// What a plan's later step answers; a failure it did not answer itself (the error
    /// middleware answers every failure of the routes) is a plain 500.
    static func answering(_ step: () throws -> HTTPResponse) -> HTTPResponse {
        do { return try step() } catch { return HTTPResponse(ServiceError(.internalFailure, "unexpected error")) }
    }

    /// The answer to a form body that cannot be read.
    static let badForm = HTTPResponse.error(
        400, code: "bad_form", message: "the form could not be read (not url-encoded or multipart, or malformed)")

    /// Queues `response` once; later calls of the request consume and drop body bytes.
    private func queue(_ response: HTTPResponse, _ state: RequestState, _ connection: OpaquePointer) -> MHD_Result {
        guard !state.isAnswered else { return .YES }
        state.isAnswered = true
        state.status = response.status
        state.responseBytes = response.body.count
        let made = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let made else { return .NO }
        defer { MHD_destroy_response(made) }
        for header in response.headers {
            _ = MHD_add_response_header(made, header.name, header.value)
        }
        return MHD_queue_response(connection, UInt32(response.status), made)
    }

    /// The request's head from libmicrohttpd: method, path, query, headers, client address.
    private func head(_ connection: OpaquePointer, url: String, method: String) -> HTTPRequest {
        let headers = Box<[String: String]>([:])
        let query = Box<[String: String]>([:])
        let cookies = Box<[String: String]>([:])
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND, Self.headerCallback, Unmanaged.passUnretained(headers).toOpaque())
        _ = MHD_get_connection_values(
            connection, .GET_ARGUMENT_KIND, Self.headerCallback, Unmanaged.passUnretained(query).toOpaque())
        _ = MHD_get_connection_values(
            connection, .COOKIE_KIND, Self.cookieCallback, Unmanaged.passUnretained(cookies).toOpaque())
        let peer = Self.address(CMicroHTTPD_clientAddress(connection)) ?? "unknown"
        let (client, origin) = Self.forwarded(headers: headers.value, peer: peer, trustedProxy: listener.trustedProxy)
        return HTTPRequest(
            method: method, path: url, query: query.value, headers: headers.value, clientAddress: client,
            forwardedOrigin: origin, cookies: cookies.value)
    }

    /// The client's address and the origin it used, from the peer's address and the
    /// request's headers (lower-case names): `X-Forwarded-For`'s last hop and
    /// `X-Forwarded-Proto://Host` are believed from the trusted proxy only.
    static func forwarded(headers: [String: String], peer: String, trustedProxy: String?) -> (
        client: String, origin: String?
    ) {
        guard let trustedProxy, peer == trustedProxy else { return (peer, nil) }
        var client = peer
        var origin: String?
        // The last hop is believed only when it is an IP address (anything else: the proxy's).
        if let forwarded = headers["x-forwarded-for"]?.split(separator: ",").last,
            case let hop = String(forwarded).trimmingWhitespace, isIPAddress(hop)
        {
            client = hop
        }
        if let proto = headers["x-forwarded-proto"]?.split(separator: ",").first?.lowercased(),
            ["http", "https"].contains(proto.trimmingWhitespace), let host = headers["host"],
            !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:[]".contains($0) })
        {
            origin = proto.trimmingWhitespace + "://" + host
        }
        return (client, origin)
    }

    /// Whether `text` is an IPv4 or IPv6 address literal.
    static func isIPAddress(_ text: String) -> Bool {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        return inet_pton(AF_INET, text, &ipv4) == 1 || inet_pton(AF_INET6, text, &ipv6) == 1
    }

    /// The numeric host of a socket address.
    static func address(_ address: UnsafePointer<sockaddr>?) -> String? {
        guard let address else { return nil }
        let length =
            address.pointee.sa_family == sa_family_t(AF_INET6)
            ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, socklen_t(length), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0
        else { return nil }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Bookkeeping

    /// Counts a request in; `false` when its client already has the most allowed.
    private func begin(_ client: String) -> Bool {
        activity.lock()
        defer { activity.unlock() }
        activeRequests += 1
        let count = (activeByClient[client] ?? 0) + 1
        activeByClient[client] = count
        return count <= listener.maximumConnectionsPerClient
    }

    /// One access-log line: client, method and path, status, bytes sent and milliseconds,
    /// each value with its control characters escaped (``MessageText/escaped(_:)``), so a
    /// request can never write a line of its own (a `%0a` in a path arrives decoded).
    static func accessLine(
        client: String, method: String, path: String, status: String, bytes: Int, milliseconds: Double
    ) -> String {
        "\(MessageText.escaped(client)) \"\(MessageText.escaped(method)) \(MessageText.escaped(path))\" \(status) "
            + "\(bytes) \(tenths(milliseconds))ms"
    }

    /// A non-negative number with one decimal (`12.3`), without `String(format:)`'s cost
    /// on every access-log line.
    static func tenths(_ value: Double) -> String {
        let tenths = Int64((max(0, value) * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private func completed(_ state: RequestState, isComplete: Bool) {
        if let processor = state.postProcessor { MHD_destroy_post_processor(processor) }
        if case .upload(let receiver, _) = state.plan { receiver.abandon() }
        let milliseconds = (ContinuousClock.now - state.started).components
        let elapsed = Double(milliseconds.seconds) * 1000 + Double(milliseconds.attoseconds) / 1e15
        let status = isComplete ? String(state.status) : "\(state.status == 0 ? "-" : String(state.status)) aborted"
        metrics?.recordRequest(
            route: state.routeTemplate, method: state.request.method, status: state.isAnswered ? state.status : nil,
            seconds: elapsed / 1000)
        log?(
            Self.accessLine(
                client: state.request.clientAddress, method: state.request.method, path: state.request.path,
                status: status, bytes: state.responseBytes, milliseconds: elapsed))
        activity.lock()
        activeRequests -= 1
        let client = state.request.clientAddress
        if let count = activeByClient[client] { activeByClient[client] = count > 1 ? count - 1 : nil }
        activity.broadcast()
        activity.unlock()
    }
}
