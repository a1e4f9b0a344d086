#if DEBUG || FUZZING
    import Foundation
    import HealthImport
    import SleepCore

    @testable import LedgerServer
    @testable import LedgerServices

    /// The request handling of ours that parses what a client sends.
    let httpTarget = FuzzTarget(
        name: "http",
        summary:
            "a request (method, path, query, headers, cookies, form, body) through ServerRoutes.plan and its answer, "
            + "QueryParameters, JSONBody, the forwarded headers, bearer tokens, media types and CSRF tokens",
        run: fuzzHTTP)

    /// Routes whose database cannot be reached: every session fails at once, so a route
    /// answers from what it parsed before it needs one.
    private let fuzzRoutes: ServerRoutes = {
        let database = LedgerDatabase(
            configuration: DatabaseConfiguration(source: .url("postgresql:///none?host=/nonexistent")),
            migrationsFolder: nil)
        let pool = SessionPool(capacity: 1) { throw ServiceError(.unavailable, "no database while fuzzing") }
        var configuration = ServerConfiguration(spoolFolder: FileManager.default.temporaryDirectory.path)
        configuration.maximumBodyBytes = 4096
        return ServerRoutes(
            configuration: configuration, database: database, pool: pool, now: { 1_764_590_000 }, pause: { _ in })
    }()

    /// A request in a line-based text form, easy for the fuzzer to mutate:
    ///
    /// ```
    /// POST /api/v1/settings
    /// qhorizon=weekly          (q: query, h: header, c: cookie, f: form field; name=value)
    /// hauthorization=Bearer x
    ///                          (an empty line, then the body)
    /// {"time_zone": "UTC"}
    /// ```
    private func request(_ bytes: UnsafeRawBufferPointer) -> HTTPRequest {
        var lines = bytes.split(separator: 0x0A, maxSplits: 64, omittingEmptySubsequences: false)[...]
        let first = lines.popFirst().map { String(decoding: $0, as: UTF8.self) } ?? ""
        let methodAndPath = first.split(separator: " ", maxSplits: 1)
        var request = HTTPRequest(
            method: methodAndPath.first.map(String.init) ?? "GET",
            path: methodAndPath.count > 1 ? String(methodAndPath[1]) : "/")
        var bodyStart = bytes.count
        while let line = lines.popFirst() {
            guard let kind = line.first else {
                bodyStart = lines.first?.startIndex ?? bytes.count
                break
            }
            let text = String(decoding: line.dropFirst(), as: UTF8.self)
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            switch kind {
            case UInt8(ascii: "q"): request.query[name] = value
            case UInt8(ascii: "h"): request.headers[name.lowercased()] = value
            case UInt8(ascii: "c"): request.cookies[name] = value
            case UInt8(ascii: "f"): request.form[name] = value
            default: break
            }
        }
        request.body = Array(bytes[bodyStart...])
        return request
    }

    private struct Settings: Decodable {
        var timeZone: String?
        var targetSeconds: Int64?
        var minimumSeconds: Int64?
        var confirm: Bool?

        enum CodingKeys: String, CodingKey {
            case timeZone = "time_zone"
            case targetSeconds = "target_seconds"
            case minimumSeconds = "minimum_seconds"
            case confirm
        }
    }

    private func fuzzHTTP(_ bytes: UnsafeRawBufferPointer) {
        var request = request(bytes)
        let forwarded = MicroHTTPDServer.forwarded(headers: request.headers, peer: "10.0.0.1", trustedProxy: "10.0.0.1")
        request.clientAddress = forwarded.client
        request.forwardedOrigin = forwarded.origin
        _ = request.bearerToken.map { TokenService.parse($0) }
        _ = request.mediaType
        _ = request.contentLength
        _ = request.isChunked
        _ = CookieSecret.isValid(request.header("x-csrf-token"), for: request.cookies["session"], purpose: .session)
        _ = Router(routes: ServerRoutes.table).match(method: request.method, path: request.path).template
        if let parameters = try? QueryParameters(request, allowed: ["horizon", "as_of", "from", "to"]) {
            _ = try? parameters.horizon(default: .weekly)
            _ = try? parameters.date("as_of")
            _ = try? parameters.date("from")
        }
        _ = try? JSONBody.decode(
            Settings.self, from: request.body, fields: ["time_zone", "target_seconds", "minimum_seconds", "confirm"])
        switch fuzzRoutes.plan(request) {
        case .respond:
            break
        case .collect(_, let answer), .form(_, let answer):
            _ = try? answer(request)
        case .upload(let receiver, _):
            receiver.abandon()
        }
    }
#endif
