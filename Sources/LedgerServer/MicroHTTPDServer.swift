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
/// Connections (issue 20, F1): libmicrohttpd gives each connection a thread of its own
/// (up to ``Listener/maximumConnections``, 4096 by default), on which the routes may block
/// (the database, Argon2, the spool's fsync): a blocked handler holds only its own
/// connection. What let slow clients starve everyone is bounded by the
/// ``ConnectionWatch``: it counts connections per address (IPv6 per /64) and cuts heads
/// that take too long and bodies slower than the minimum rate; at most
/// ``Listener/maximumAnonymous`` requests without a caller may hold the server past their
/// head. (libmicrohttpd's epoll mode with a pool of request threads, suspending each
/// connection while its work runs, was built and measured: two more context switches per
/// request cost the summary route 12-16 % of its throughput; docs/benchmarks.md.) HTTP
/// parsing, chunked bodies, `Expect: 100-continue`, TLS (GnuTLS, with ``TLSCredentials``)
/// are libmicrohttpd's.
final class MicroHTTPDServer: @unchecked Sendable {
    /// Where and how one daemon listens.
    struct Listener: Sendable {
        /// The IP address to listen on.
        var host: String
        /// The port; 0 picks a free one.
        var port: UInt16
        /// Connections at once, in all.
        var maximumConnections: Int
        /// Connections (and requests in progress) at once from one client address key
        /// (``ClientAddressKey``).
        var maximumConnectionsPerClient: Int
        /// Seconds a silent connection stays open.
        var idleTimeoutSeconds: Int
        /// The deadlines of a request's head and body.
        var deadlines: ConnectionDeadlines
        /// Requests without a caller that may hold the server past their head at once.
        var maximumAnonymous: Int
        /// libmicrohttpd's memory per connection.
        var connectionMemoryBytes: Int
        /// The most body bytes read and dropped after an early answer.
        var maximumUploadBytes: Int64
        /// The peer whose forwarded headers are believed.
        var trustedProxy: String?
        /// Certificate and key: the daemon speaks TLS only.
        var tls: TLSCredentials?
        /// Headers every answer carries (`Strict-Transport-Security` over HTTPS).
        var answerHeaders: [HTTPResponse.Header] = []

        /// The API's listener, as configured.
        static func api(_ configuration: ServerConfiguration, tls: TLSCredentials?) -> Listener {
            Listener(
                host: configuration.host, port: configuration.port,
                maximumConnections: configuration.maximumConnections,
                maximumConnectionsPerClient: configuration.maximumConnectionsPerClient,
                idleTimeoutSeconds: configuration.idleTimeoutSeconds, deadlines: configuration.deadlines,
                maximumAnonymous: configuration.maximumAnonymousRequests,
                connectionMemoryBytes: configuration.connectionMemoryBytes,
                maximumUploadBytes: configuration.maximumUploadBytes, trustedProxy: configuration.trustedProxy,
                tls: tls,
                answerHeaders: configuration.strictTransportSecurity.map { [.init("Strict-Transport-Security", $0)] }
                    ?? [])
        }

        /// The metrics listener: plain HTTP, small limits, no body is ever read.
        static func metrics(host: String, port: UInt16) -> Listener {
            Listener(
                host: host, port: port, maximumConnections: 16, maximumConnectionsPerClient: 8, idleTimeoutSeconds: 10,
                deadlines: ConnectionDeadlines(headSeconds: 10, minimumBodyBytesPerSecond: 1024, bodyWindowSeconds: 10),
                maximumAnonymous: 16, connectionMemoryBytes: 32 << 10,
                maximumUploadBytes: 1 << 20, trustedProxy: nil, tls: nil)
        }
    }

    /// What one request carries between the handler's calls (all on its connection's thread).
    final class RequestState {
        var request: HTTPRequest
        var plan: RequestPlan = .respond(HTTPResponse(status: 500))
        /// Counted among the requests without a caller in progress.
        var countsAsAnonymous = false
        /// The upload was cut because the spool ran short (logged and counted as 507).
        var isCutForSpace = false
        let connection: OpaquePointer
        let watched: WatchedConnection?
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
        /// The body being streamed, when the answer is one (its bytes sent count in the log).
        var stream: StreamedBody?
        var isAnswered = false
        /// The answer decided while the body still arrives; libmicrohttpd sends a response
        /// only once the body has been read, so the rest is read and dropped first.
        var deferred: HTTPResponse?
        var droppedBytes: Int64 = 0
        /// The template of the route the path matched, for metrics; `nil`: none.
        var routeTemplate: String?
        /// The key the client's requests are counted under (``ClientAddressKey``).
        let clientKey: String

        init(
            request: HTTPRequest, connection: OpaquePointer, watched: WatchedConnection?,
            started: ContinuousClock.Instant
        ) {
            self.request = request
            clientKey = ClientAddressKey.key(request.clientAddress)
            self.connection = connection
            self.watched = watched
            self.started = started
        }
    }

    let listener: Listener
    private let route: @Sendable (HTTPRequest) -> RoutedRequest
    private let metrics: ServerMetrics?
    private let log: (@Sendable (String) -> Void)?
    private var daemon: OpaquePointer?
    private let activity = NSCondition()
    private var activeRequests = 0
    private var activeByClient: [String: Int] = [:]
    private var anonymousRequests = 0
    let watch: ConnectionWatch
    private let trustedProxyKey: String?

    /// A daemon for `listener` answering with what `route` makes of a request; after each
    /// request, records it in `metrics` under the template `route` matched (never the raw
    /// path), and writes an access-log line to `log` (both optional: the metrics listener
    /// has neither).
    init(
        listener: Listener, route: @escaping @Sendable (HTTPRequest) -> RoutedRequest,
        metrics: ServerMetrics? = nil, log: (@Sendable (String) -> Void)?
    ) {
        self.listener = listener
        self.route = route
        self.metrics = metrics
        self.log = log
        watch = ConnectionWatch(
            deadlines: listener.deadlines, perAddressLimit: listener.maximumConnectionsPerClient,
            onCut: { [metrics] cut in metrics?.recordCut(cut) })
        trustedProxyKey = listener.trustedProxy.map(ClientAddressKey.key)
    }

    /// The API's daemon: ``ServerRoutes`` on the configured listener, TLS with `tls`.
    convenience init(
        routes: ServerRoutes, tls: TLSCredentials?, metrics: ServerMetrics?, log: @escaping @Sendable (String) -> Void
    ) {
        self.init(
            listener: .api(routes.configuration, tls: tls), route: routes.route, metrics: metrics, log: log)
    }

    /// Requests being answered now.
    var requestsInFlight: Int {
        activity.lock()
        defer { activity.unlock() }
        return activeRequests
    }

    /// Connections open now.
    var openConnections: Int { watch.openCount }

    /// Starts listening and returns the port (the configured one, or the one picked for 0).
    func start() throws(ServiceError) -> UInt16 {
        var storage = try Self.socketAddress(host: listener.host, port: listener.port)
        var flags =
            UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue) | UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
            | UInt32(MHD_USE_ITC.rawValue) | UInt32(MHD_USE_AUTO.rawValue)
        if storage.ss_family == sa_family_t(AF_INET6) { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: listener.maximumConnections, ptr_value: nil),
            // The per-address limit is the watch's (IPv6 per /64, the trusted proxy exempt).
            MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: 0, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: listener.idleTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(
                option: .CONNECTION_MEMORY_LIMIT, value: listener.connectionMemoryBytes, ptr_value: nil),
            // HTTP/1.1 without Host is refused with 400 (F5).
            MHD_OptionItem(option: .STRICT_FOR_CLIENT, value: 1, ptr_value: nil),
            MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: 1024, ptr_value: nil),
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
                                flags, address, Self.acceptCallback, Self.connectionCallback, Self.accessCallback,
                                Self.completedCallback, context, certificate.baseAddress, key.baseAddress, &options)
                        }
                    }
                }
            }
        } else {
            daemon = withUnsafePointer(to: &storage) { address in
                address.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    CMicroHTTPD_start(
                        flags, address, Self.acceptCallback, Self.connectionCallback, Self.accessCallback,
                        Self.completedCallback, context, &options)
                }
            }
        }
        guard let daemon else {
            throw ServiceError(
                .unavailable,
                "cannot listen on \(listener.host):\(listener.port) (in use, or not this machine's address"
                    + (listener.tls == nil ? ")" : "; or GnuTLS refused the certificate or key)"))
        }
        watch.start()
        return CMicroHTTPD_port(daemon)
    }

    /// The socket address of `host` (an IPv4 or IPv6 literal) and `port`.
    private static func socketAddress(host: String, port: UInt16) throws(ServiceError) -> sockaddr_storage {
        var storage = sockaddr_storage()
        var ipv4 = sockaddr_in()
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = port.bigEndian
            withUnsafeBytes(of: ipv4) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        } else if inet_pton(AF_INET6, host, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = port.bigEndian
            withUnsafeBytes(of: ipv6) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        } else {
            throw ServiceError(.invalidInput, "the listen address '\(host)' is not an IP address")
        }
        return storage
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
        guard let daemon else { return }
        MHD_stop_daemon(daemon)
        self.daemon = nil
        watch.stop()
    }

    // MARK: Callbacks

    private static let acceptCallback: MHD_AcceptPolicyCallback = { context, address, _ in
        guard let context, let address else { return .NO }
        let server = Unmanaged<MicroHTTPDServer>.fromOpaque(context).takeUnretainedValue()
        return server.watch.admits(server.countedKey(address)) ? .YES : .NO
    }

    private static let connectionCallback: MHD_NotifyConnectionCallback = {
        context, connection, socketContext, code in
        guard let context, let connection, let socketContext else { return }
        let server = Unmanaged<MicroHTTPDServer>.fromOpaque(context).takeUnretainedValue()
        if code == .CONNECTION_NOTIFY_STARTED {
            let key = CMicroHTTPD_clientAddress(connection).flatMap(server.countedKey)
            let watched = server.watch.opened(socket: CMicroHTTPD_socket(connection), key: key)
            socketContext.pointee = Unmanaged.passRetained(watched).toOpaque()
        } else if let pointer = socketContext.pointee {
            let watched = Unmanaged<WatchedConnection>.fromOpaque(pointer).takeRetainedValue()
            socketContext.pointee = nil
            server.watch.closed(watched)
        }
    }

    /// The key a peer's connections count under; `nil` for the trusted proxy (its clients
    /// are counted per request, by their forwarded address).
    private func countedKey(_ address: UnsafePointer<sockaddr>) -> String? {
        guard let key = ClientAddressKey.key(address) else { return nil }
        return key == trustedProxyKey ? nil : key
    }

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

    private static let fieldCallback: MHD_KeyValueIterator = { context, _, key, value in
        guard let context, let key else { return .YES }
        let box = Unmanaged<Box<[(name: String, value: String)]>>.fromOpaque(context).takeUnretainedValue()
        box.value.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
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

    /// libmicrohttpd's one handler for a request: its head, each body chunk, the body's end.
    private func access(
        _ connection: OpaquePointer, url: String, method: String, uploadData: UnsafePointer<CChar>?,
        uploadDataSize: UnsafeMutablePointer<Int>, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let pointer = requestContext.pointee else {
            let (state, isRefused) = begin(connection, url: url, method: method)
            requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
            if !isRefused {
                let routed = route(state.request)
                state.plan = routed.plan
                state.routeTemplate = routed.template
                if let refusal = routed.refusalWhenBusy, !admitAnonymous(state) { state.plan = .respond(refusal) }
            }
            return routed(state)
        }
        let state = Unmanaged<RequestState>.fromOpaque(pointer).takeUnretainedValue()
        let size = uploadDataSize.pointee
        if case .upload = state.plan, size > 0 { metrics?.recordUploadBytes(route: state.routeTemplate, count: size) }
        if size > 0 { state.watched?.received(size) }
        if state.isAnswered {
            uploadDataSize.pointee = 0
            return .YES
        }
        if let deferred = state.deferred {
            guard size == 0 else {
                uploadDataSize.pointee = 0
                state.droppedBytes += Int64(size)
                // Dropping is bounded by the cap too: past it, the connection is cut.
                return state.droppedBytes > listener.maximumUploadBytes ? .NO : .YES
            }
            return queue(deferred, state)
        }
        if size > 0, let uploadData {
            uploadDataSize.pointee = 0
            return receive(UnsafeRawBufferPointer(start: uploadData, count: size), state)
        }
        state.watched?.serve()
        return bodyEnded(state)
    }

    /// The head's state: the request, refused at once (400 for a malformed head, 429 for
    /// too many requests of its client key; `isRefused`) or to be routed.
    private func begin(_ connection: OpaquePointer, url: String, method: String) -> (
        RequestState, isRefused: Bool
    ) {
        let started = ContinuousClock.now
        let watched = CMicroHTTPD_socketContext(connection).map {
            Unmanaged<WatchedConnection>.fromOpaque($0).takeUnretainedValue()
        }
        watched?.serve()
        let (request, problem) = head(connection, url: url, method: method)
        let state = RequestState(request: request, connection: connection, watched: watched, started: started)
        state.isMultipart = request.mediaType == "multipart/form-data"
        let isWithinLimit = countIn(state.clientKey)
        if let problem {
            state.plan = .respond(
                .error(400, code: "bad_request", message: problem, headers: [.init("Connection", "close")]))
        } else if !isWithinLimit {
            state.plan = .respond(
                .error(
                    429, code: "too_many_connections", message: "too many connections from your address",
                    headers: [.init("Retry-After", "5")]))
        }
        return (state, problem != nil || !isWithinLimit)
    }

    /// The plan is known: a request without a body is answered on the next call, which
    /// follows at once (libmicrohttpd closes the connection after a response queued with
    /// the head: it cannot know no body follows, so a client could not keep it alive); a
    /// request with a body is answered now, before any of it is read; otherwise the body
    /// is read.
    private func routed(_ state: RequestState) -> MHD_Result {
        let request = state.request
        let hasBody = request.isChunked || (request.contentLength ?? 0) > 0
        if case .respond(let response) = state.plan {
            guard hasBody else {
                state.deferred = response
                return .YES
            }
            return queue(response, state)
        }
        if hasBody { state.watched?.awaitBody(now: ConnectionWatch.now()) }
        return .YES
    }

    /// The body is in: the answer.
    private func bodyEnded(_ state: RequestState) -> MHD_Result {
        switch state.plan {
        case .respond(let response):
            return queue(response, state)
        case .collect:
            if state.isOverLimit {
                return queue(
                    .error(413, code: "too_large", message: "the body is larger than this route accepts"), state)
            }
            state.request.body = state.collected
            state.collected = []
        case .form:
            if let processor = state.postProcessor {
                let complete = MHD_destroy_post_processor(processor) == .YES
                state.postProcessor = nil
                guard complete else { return queue(Self.badForm, state) }
            }
            state.request.form = state.formFields.mapValues { String(decoding: $0, as: UTF8.self) }
        case .upload:
            if let processor = state.postProcessor {
                MHD_destroy_post_processor(processor)
                state.postProcessor = nil
            }
        }
        return queue(Self.answer(state), state)
    }

    /// The answer of a plan whose body is in.
    private static func answer(_ state: RequestState) -> HTTPResponse {
        switch state.plan {
        case .respond(let response): response
        case .collect(_, let handler), .form(_, let handler): answering { try handler(state.request) }
        case .upload(let receiver, let finish): answering { try finish(receiver) }
        }
    }

    /// One chunk of a body.
    private func receive(_ bytes: UnsafeRawBufferPointer, _ state: RequestState) -> MHD_Result {
        let connection = state.connection
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
                // Cut at the cap, or short of space: the connection closes without reading
                // more (libmicrohttpd 0.9.75 sends no answer before a body's end).
                if receiver.isOverCap { return .NO }
                if receiver.isOutOfSpace {
                    state.isCutForSpace = true
                    return .NO
                }
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
    private func queue(_ response: HTTPResponse, _ state: RequestState) -> MHD_Result {
        guard !state.isAnswered else { return .YES }
        var response = response
        for header in listener.answerHeaders where !response.headers.contains(where: { $0.name == header.name }) {
            response.headers.append(header)
        }
        state.isAnswered = true
        state.status = response.status
        state.responseBytes = response.body.count
        state.stream = response.stream
        let made: OpaquePointer?
        if let stream = response.stream {
            // libmicrohttpd owns a reference until it frees the response (``streamFreed``).
            let reference = Unmanaged.passRetained(stream)
            made = MHD_create_response_from_callback(
                UInt64.max, Self.streamBlockBytes, Self.streamReader, reference.toOpaque(), Self.streamFreed)
            if made == nil {
                reference.release()
                stream.cancel()
            }
        } else {
            made = response.body.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let made else { return .NO }
        defer { MHD_destroy_response(made) }
        for header in response.headers {
            _ = MHD_add_response_header(made, header.name, header.value)
        }
        return MHD_queue_response(state.connection, UInt32(response.status), made)
    }

    /// The most bytes one call of ``streamReader`` hands libmicrohttpd.
    static let streamBlockBytes = 64 << 10

    /// libmicrohttpd asks a streamed body (``StreamedBody``) for its next bytes, on the
    /// connection's thread (which may wait for the producer): a count, `-1` at the end
    /// (`MHD_CONTENT_READER_END_OF_STREAM`), `-2` when the producer failed
    /// (`MHD_CONTENT_READER_END_WITH_ERROR`: the connection closes, the body incomplete).
    private static let streamReader: MHD_ContentReaderCallback = { context, _, buffer, maximum in
        guard let context, let buffer else { return -2 }
        let stream = Unmanaged<StreamedBody>.fromOpaque(context).takeUnretainedValue()
        switch stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: maximum)) {
        case .bytes(let count): return count
        case .end: return -1
        case .failed: return -2
        }
    }

    /// libmicrohttpd is done with a streamed body (sent, or the client went away): its
    /// producer stops at its next write, and the response's reference is given back.
    private static let streamFreed: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        let stream = Unmanaged<StreamedBody>.fromOpaque(context).takeRetainedValue()
        stream.cancel()
    }

    /// The request's head from libmicrohttpd: method, path, query, headers, client address;
    /// and what is wrong with it (``RequestHeadCheck``), if anything.
    private func head(_ connection: OpaquePointer, url: String, method: String) -> (HTTPRequest, problem: String?) {
        let fields = Box<[(name: String, value: String)]>([])
        let query = Box<[String: String]>([:])
        let cookies = Box<[String: String]>([:])
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND, Self.fieldCallback, Unmanaged.passUnretained(fields).toOpaque())
        var headers: [String: String] = [:]
        for (name, value) in fields.value {
            let name = name.lowercased()
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        _ = MHD_get_connection_values(
            connection, .GET_ARGUMENT_KIND, Self.headerCallback, Unmanaged.passUnretained(query).toOpaque())
        _ = MHD_get_connection_values(
            connection, .COOKIE_KIND, Self.cookieCallback, Unmanaged.passUnretained(cookies).toOpaque())
        let peer = Self.address(CMicroHTTPD_clientAddress(connection)) ?? "unknown"
        let (client, origin) = Self.forwarded(headers: headers, peer: peer, trustedProxy: listener.trustedProxy)
        let request = HTTPRequest(
            method: method, path: url, query: query.value, headers: headers, clientAddress: client,
            forwardedOrigin: origin, cookies: cookies.value)
        return (request, RequestHeadCheck.problem(fields.value))
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

    /// Counts a request in under its client's key (``ClientAddressKey``: behind the trusted
    /// proxy, the forwarded address's); `false` when that key already has the most allowed.
    private func countIn(_ key: String) -> Bool {
        activity.lock()
        defer { activity.unlock() }
        activeRequests += 1
        let count = (activeByClient[key] ?? 0) + 1
        activeByClient[key] = count
        return count <= listener.maximumConnectionsPerClient
    }

    /// Counts a request without a caller in, when fewer than the most allowed are in progress.
    private func admitAnonymous(_ state: RequestState) -> Bool {
        activity.lock()
        defer { activity.unlock() }
        guard anonymousRequests < listener.maximumAnonymous else { return false }
        anonymousRequests += 1
        state.countsAsAnonymous = true
        return true
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

    /// Why a request ended without an answer, as the status its log line and metrics give
    /// it: a body cut for space (507) or for its rate (408), which libmicrohttpd 0.9.75
    /// cannot answer before the body ends; `nil` for an answered or merely aborted request.
    private static func cut(_ state: RequestState) -> (status: Int, reason: String)? {
        if state.isAnswered { return nil }
        if state.isCutForSpace { return (507, "spool short of space") }
        if state.watched?.cut == .slowBody { return (408, "body too slow") }
        return nil
    }

    private func completed(_ state: RequestState, isComplete: Bool) {
        // A streamed answer decided but never queued (the client left first) stops its producer.
        if !state.isAnswered { state.deferred?.stream?.cancel() }
        if let processor = state.postProcessor { MHD_destroy_post_processor(processor) }
        if case .upload(let receiver, _) = state.plan { receiver.abandon() }
        state.watched?.awaitHead(now: ConnectionWatch.now())
        let milliseconds = (ContinuousClock.now - state.started).components
        let elapsed = Double(milliseconds.seconds) * 1000 + Double(milliseconds.attoseconds) / 1e15
        let cut = Self.cut(state)
        let status =
            if let cut { "\(cut.status) cut (\(cut.reason))" } else if isComplete { String(state.status) } else {
                "\(state.status == 0 ? "-" : String(state.status)) aborted"
            }
        metrics?.recordRequest(
            route: state.routeTemplate, method: state.request.method,
            status: state.isAnswered ? state.status : cut?.status, seconds: elapsed / 1000)
        log?(
            Self.accessLine(
                client: state.request.clientAddress, method: state.request.method, path: state.request.path,
                status: status, bytes: state.stream?.sentBytes ?? state.responseBytes, milliseconds: elapsed))
        activity.lock()
        activeRequests -= 1
        if state.countsAsAnonymous { anonymousRequests -= 1 }
        if let count = activeByClient[state.clientKey] {
            activeByClient[state.clientKey] = count > 1 ? count - 1 : nil
        }
        activity.broadcast()
        activity.unlock()
    }
}
