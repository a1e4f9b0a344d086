import Foundation
import Glibc
import HealthImport
public import LedgerServices
import LedgerStore
import SleepReports

/// The server's routes: functions from a request to a response, testable without
/// sockets. Routes that read no body answer from the request's head; an upload streams
/// into an ``UploadReceiver`` and is answered when its body ended.
public final class ServerRoutes: @unchecked Sendable {
    /// What to do with a request whose head has arrived.
    public enum Plan {
        /// Answer now; the body (if any) is not read.
        case respond(HTTPResponse)
        /// Read a body of at most `limit` bytes into memory, then answer.
        case collect(limit: Int, (HTTPRequest) -> HTTPResponse)
        /// Read a form body of at most `limit` bytes into ``HTTPRequest/form`` (through
        /// libmicrohttpd's post processor), then answer.
        case form(limit: Int, (HTTPRequest) -> HTTPResponse)
        /// Stream the body into the receiver, then answer with `finish`.
        case upload(UploadReceiver, finish: (UploadReceiver) -> HTTPResponse)
    }

    /// The server's settings.
    public let configuration: ServerConfiguration
    let database: LedgerDatabase
    let pool: SessionPool
    let now: @Sendable () -> Int64
    /// Password hashing for sign-ins, bounded by ``ServerConfiguration/maximumConcurrentPasswordHashes``.
    let passwordHashing: PasswordHashing
    /// Failed sign-ins of this process (``ServerConfiguration/signInLimits``).
    let signInThrottle: SignInThrottle
    /// Waits the given seconds (a slowed sign-in); injected so that tests need not wait.
    let pause: @Sendable (Double) -> Void
    private let onQueued: @Sendable () -> Void
    private let isStopping: @Sendable () -> Bool
    private let publicURLLock = NSLock()
    private var publicURLValue: String

    /// The address people use, as printed in `Location` headers.
    public var publicURL: String {
        get {
            publicURLLock.lock()
            defer { publicURLLock.unlock() }
            return publicURLValue
        }
        set {
            publicURLLock.lock()
            publicURLValue = newValue
            publicURLLock.unlock()
        }
    }

    /// Routes over `pool` (sessions of `database` as the server's role), with the clock
    /// `now`; `onQueued` wakes the workers after an upload was queued; `isStopping` turns
    /// new work away with 503; `pause` waits before a slowed sign-in.
    public init(
        configuration: ServerConfiguration, database: LedgerDatabase, pool: SessionPool,
        now: @escaping @Sendable () -> Int64, onQueued: @escaping @Sendable () -> Void = {},
        isStopping: @escaping @Sendable () -> Bool = { false },
        pause: (@Sendable (Double) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.database = database
        self.pool = pool
        self.now = now
        self.pause = pause ?? { seconds in usleep(UInt32(min(seconds, 60) * 1_000_000)) }
        passwordHashing = PasswordHashing(maximumConcurrent: configuration.maximumConcurrentPasswordHashes)
        signInThrottle = SignInThrottle(limits: configuration.signInLimits)
        self.onQueued = onQueued
        self.isStopping = isStopping
        publicURLValue = configuration.effectivePublicURL
    }

    /// Media types an upload may have: an export zip, its XML, a CSV of samples, bytes
    /// of unknown kind (the importer decides by content), or a browser form.
    static let uploadMediaTypes: Set<String> = [
        "application/zip", "application/x-zip-compressed", "application/xml", "text/xml", "text/csv",
        "application/csv", "application/octet-stream", "multipart/form-data",
    ]

    /// One route: a method and a path template whose `{name}` segments capture a value.
    public struct Route: Sendable {
        /// The HTTP method; a `GET` route also answers `HEAD`.
        public let method: String
        /// The path, such as `/api/v1/imports/{id}`.
        public let template: String
        let plan: @Sendable (ServerRoutes, HTTPRequest, [String: String]) -> Plan
        /// The template's segments, split once (every request is matched against them).
        private let pattern: [Substring]

        init(
            _ method: String, _ template: String,
            _ plan: @escaping @Sendable (ServerRoutes, HTTPRequest, [String: String]) -> Plan
        ) {
            self.method = method
            self.template = template
            self.plan = plan
            pattern = template.split(separator: "/")
        }

        /// The captured values when `segments` match the template; `nil` otherwise.
        func captures(_ segments: [Substring]) -> [String: String]? {
            guard pattern.count == segments.count else { return nil }
            var values: [String: String] = [:]
            for (expected, actual) in zip(pattern, segments) {
                if expected.hasPrefix("{") && expected.hasSuffix("}") {
                    values[String(expected.dropFirst().dropLast())] = String(actual)
                } else if expected != actual {
                    return nil
                }
            }
            return values
        }
    }

    /// Every route the server answers, in the order they are tried.
    public static let table: [Route] = apiTable + pageRoutes

    /// The API's routes: exactly the operations of the OpenAPI document (docs/openapi.json).
    public static let apiTable: [Route] = importRoutes + accountRoutes + healthAutoExportRoutes

    /// Health and the import queue.
    static let importRoutes: [Route] = [
        Route("GET", "/healthz") { routes, _, _ in .respond(routes.health()) },
        Route("GET", "/api/v1/openapi.json") { _, _, _ in
            .respond(
                HTTPResponse(
                    status: 200, headers: [.init("Content-Type", "application/json")],
                    body: PackageResources.openapi_json))
        },
        Route("GET", "/api/v1/imports") { routes, request, _ in
            .respond(routes.authorized(request) { caller in try routes.listImports(caller) })
        },
        Route("POST", "/api/v1/imports") { routes, request, _ in
            routes.planUpload(request, policy: routes.exportUploadPolicy)
        },
        Route("GET", "/api/v1/imports/{id}") { routes, request, captured in
            guard let id = importID(captured) else { return .respond(noSuchImport) }
            return .respond(routes.authorized(request) { caller in try routes.importStatus(id, caller) })
        },
        Route("DELETE", "/api/v1/imports/{id}") { routes, request, captured in
            guard let id = importID(captured) else { return .respond(noSuchImport) }
            return .respond(routes.authorized(request) { caller in try routes.cancelImport(id, caller) })
        },
    ]

    static let noSuchImport = HTTPResponse.error(404, code: "not_found", message: "no such import")

    static func importID(_ captured: [String: String]) -> Int64? {
        guard let id = captured["id"].flatMap({ Int64($0) }), id > 0 else { return nil }
        return id
    }

    /// The plan for a request whose head has arrived: the first route whose template and
    /// method match; 405 with `Allow` when only the template does; 404 otherwise.
    public func plan(_ request: HTTPRequest) -> Plan {
        let segments = request.path.split(separator: "/")
        var allowed: [String] = []
        for route in Self.table {
            guard let captured = route.captures(segments) else { continue }
            if route.method == request.method || (route.method == "GET" && request.method == "HEAD") {
                return route.plan(self, request, captured)
            }
            allowed.append(route.method)
        }
        let isAPI = Self.isAPI(path: request.path)
        if !allowed.isEmpty {
            let methods = allowed.joined(separator: ", ")
            return .respond(
                isAPI
                    ? Self.notAllowed(methods)
                    : Self.messagePage(
                        title: "Not allowed", message: "This address does not take that kind of request.",
                        status: 405, headers: [.init("Allow", methods)]))
        }
        return .respond(isAPI ? .error(404, code: "not_found", message: "no such route") : Self.pageNotFound)
    }

    /// Whether `path` belongs to the API (`/api/...` and `/healthz`), answered in JSON and
    /// described by the OpenAPI document; everything else is a page, answered in HTML.
    public static func isAPI(path: String) -> Bool {
        path == "/healthz" || path == "/api" || path.hasPrefix("/api/")
    }

    /// The template of the first route whose path matches `path`, whatever its method
    /// (`/api/v1/imports/{id}` for `/api/v1/imports/7`); `nil` when none does. Metrics label
    /// requests with it, never with the raw path, so label values stay few.
    public static func template(matching path: String) -> String? {
        let segments = path.split(separator: "/")
        return table.first { $0.captures(segments) != nil }?.template
    }

    /// The address URLs the server prints back start with (`Location` headers, `next`
    /// links): the configured public URL; without one, the scheme and host the trusted
    /// proxy says the client used; else the listen address.
    func baseURL(for request: HTTPRequest) -> String {
        configuration.publicURL.isEmpty ? (request.forwardedOrigin ?? publicURL) : publicURL
    }

    static func notAllowed(_ allowed: String) -> HTTPResponse {
        .error(405, code: "method_not_allowed", message: "allowed: \(allowed)", headers: [.init("Allow", allowed)])
    }

    // MARK: Authentication

    /// Runs `body` for the caller the request's token names, or answers 401 (no body read),
    /// or 403 when the token's scope is narrower than `scope`. Without a token, a web
    /// session's cookie may speak for the caller instead (``authorizedBySession(_:_:)``).
    func authorized(
        _ request: HTTPRequest, requiring scope: TokenStore.Scope = .ingest,
        _ body: (TokenService.Caller) throws -> HTTPResponse
    ) -> HTTPResponse {
        guard let token = request.bearerToken else {
            if request.cookies[WebCookie.session] != nil { return authorizedBySession(request, body) }
            return HTTPResponse(ServiceError(.unauthorized, "a valid API token is required"))
        }
        do {
            let caller = try pool.withSession { session in
                try TokenService(session: session).authenticate(token, now: now())
            }
            guard scope == .ingest || caller.scope == .full else { return HTTPResponse(Self.fullScopeRequired) }
            return try body(caller)
        } catch {
            return Self.response(for: error)
        }
    }

    /// The refusal of an `ingest` token on a route that needs the `full` scope.
    static let fullScopeRequired = ServiceError(.forbidden, "this route needs a token with the full scope")

    /// The response for any failure: a use case's kind decides; anything else is a 500
    /// whose message says nothing of the internals.
    static func response(for error: any Error) -> HTTPResponse {
        guard let failure = error as? ServiceError else {
            return .error(500, code: "internal", message: "an internal error occurred")
        }
        if failure.kind == .internalFailure {
            return .error(500, code: "internal", message: "an internal error occurred")
        }
        return HTTPResponse(failure)
    }

    // MARK: Routes

    func health() -> HTTPResponse {
        struct Health: Encodable { var status: String }
        do {
            try pool.withSession(timeout: 2) { session in try database.checkSchema(on: session) }
            return .json(Health(status: "ok"))
        } catch {
            return .json(Health(status: "unavailable"), status: 503)
        }
    }

    func listImports(_ caller: TokenService.Caller) throws -> HTTPResponse {
        struct Listing: Encodable { var imports: [ImportDocument] }
        let jobs = try pool.withSession { session in
            try ImportQueue(session: session, host: configuration.hostName).jobs(userID: caller.userID, limit: 100)
        }
        return .json(Listing(imports: jobs.map(ImportDocument.init)))
    }

    func importStatus(_ id: Int64, _ caller: TokenService.Caller) throws -> HTTPResponse {
        struct Status: Encodable { var `import`: ImportDocument }
        let job = try pool.withSession { session in
            try ImportQueue(session: session, host: configuration.hostName).job(id, userID: caller.userID)
        }
        return .json(Status(import: ImportDocument(job)))
    }

    func cancelImport(_ id: Int64, _ caller: TokenService.Caller) throws -> HTTPResponse {
        try pool.withSession { session in
            try ImportQueue(session: session, host: configuration.hostName).cancel(id, userID: caller.userID)
        }
        return HTTPResponse(status: 204)
    }

    // MARK: Uploads

    /// `POST /api/v1/imports`: an export.zip, export.xml or CSV up to the configured cap,
    /// refused now (422) only when its first bytes are no export at all.
    var exportUploadPolicy: UploadPolicy {
        UploadPolicy(
            maximumBytes: configuration.maximumUploadBytes, subject: "uploads", mediaTypes: Self.uploadMediaTypes,
            unsupportedMediaTypeMessage:
                "send an export.zip, export.xml or CSV (application/zip, text/xml, text/csv) or a form",
            maximumPending: configuration.maximumPendingUploadsPerUser, fileName: "upload"
        ) { descriptor, name throws(ServiceError) in
            do {
                _ = try HealthImportReader().kind(of: .fileDescriptor(descriptor, name: name))
            } catch {
                throw ServiceError(error)
            }
        }
    }

    /// The plan for an upload route: answered from the head (503 while stopping, 401, 403,
    /// 413 for a declared length over the policy's cap, 411, 415, 429, 507), or streamed to
    /// a spool file and answered by ``finishUpload(_:caller:base:policy:)``.
    func planUpload(_ request: HTTPRequest, policy: UploadPolicy) -> Plan {
        if isStopping() { return .respond(Self.stopping) }
        var caller: TokenService.Caller?
        let refusal = authorized(request) { found in
            caller = found
            return HTTPResponse(status: 100)
        }
        guard let caller else { return .respond(refusal) }
        return planUpload(request, policy: policy, caller: caller)
    }

    /// The answer while the server stops.
    static let stopping = HTTPResponse.error(
        503, code: "stopping", message: "the server is stopping; try again shortly")

    /// ``planUpload(_:policy:)`` for a caller known already (the upload page's form, signed
    /// in by its session cookie): the same refusals from the head, the same spooling.
    func planUpload(_ request: HTTPRequest, policy: UploadPolicy, caller: TokenService.Caller) -> Plan {
        if isStopping() { return .respond(Self.stopping) }
        if let length = request.contentLength, length > policy.maximumBytes {
            return .respond(policy.tooLarge)
        }
        guard request.contentLength != nil || request.isChunked else {
            return .respond(.error(411, code: "length_required", message: "send Content-Length or a chunked body"))
        }
        guard let mediaType = request.mediaType, policy.mediaTypes.contains(mediaType) else {
            return .respond(
                .error(415, code: "unsupported_media_type", message: policy.unsupportedMediaTypeMessage))
        }
        do {
            let pending = try pool.withSession { session in
                try ImportQueue(session: session, host: configuration.hostName).pendingCount(userID: caller.userID)
            }
            guard pending < policy.maximumPending else {
                return .respond(
                    HTTPResponse(
                        ServiceError(
                            .busy, "\(policy.maximumPending) uploads already wait or run; try again when one is done")))
            }
            guard Self.freeBytes(configuration.spoolFolder) >= configuration.minimumFreeSpoolBytes else {
                return .respond(
                    .error(507, code: "insufficient_storage", message: "the server is short of space; try again later"))
            }
            let receiver = try UploadReceiver(
                spoolFolder: configuration.spoolFolder, maximumBytes: policy.maximumBytes,
                fileName: policy.fileName, contentType: request.header("content-type"))
            let base = baseURL(for: request)
            return .upload(receiver) { [self] receiver in
                finishUpload(receiver, caller: caller, base: base, policy: policy)
            }
        } catch {
            return .respond(Self.response(for: error))
        }
    }

    /// Queues a complete upload that passes the policy's check: 202 with the new import,
    /// or 200 with the earlier import of the same bytes; 422 with the check's reason.
    func finishUpload(
        _ receiver: UploadReceiver, caller: TokenService.Caller, base: String, policy: UploadPolicy
    ) -> HTTPResponse {
        if receiver.isOverCap {
            return policy.tooLarge
        }
        // After the job's commit (or the file's removal), never before.
        defer { receiver.release() }
        do {
            let upload = try receiver.finish()
            do {
                // Refuse what cannot be imported now (422), with the importer's reason; read
                // through a descriptor so that messages name the upload, never the spool path.
                let descriptor = open(upload.spoolPath, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    throw ServiceError(.unavailable, "cannot read the upload back from the spool folder")
                }
                defer { close(descriptor) }
                try policy.check(descriptor, upload.fileName)
            } catch {
                try? FileManager.default.removeItem(atPath: upload.spoolPath)
                return Self.response(for: error)
            }
            let queued: ImportQueue.Queued
            do {
                queued = try pool.withSession { session in
                    try ImportQueue(session: session, host: configuration.hostName).enqueue(
                        upload, userID: caller.userID, maximumPending: policy.maximumPending)
                }
            } catch {
                // Not queued (the database went away, or the person's queue filled up
                // meanwhile): the file is nobody's, and the client sends it again.
                try? FileManager.default.removeItem(atPath: upload.spoolPath)
                throw error
            }
            struct Status: Encodable { var `import`: ImportDocument }
            switch queued {
            case .queued(let job):
                onQueued()
                return .json(
                    Status(import: ImportDocument(job)), status: 202,
                    headers: [.init("Location", base + "/api/v1/imports/\(job.id)")])
            case .sameAsEarlier(let job):
                try? FileManager.default.removeItem(atPath: upload.spoolPath)
                return .json(
                    Status(import: ImportDocument(job)), status: 200,
                    headers: [.init("Location", base + "/api/v1/imports/\(job.id)")])
            }
        } catch {
            receiver.abandon()
            return Self.response(for: error)
        }
    }

    /// Free bytes on the file system holding `folder` (for unprivileged users).
    static func freeBytes(_ folder: String) -> Int64 {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return 0 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
