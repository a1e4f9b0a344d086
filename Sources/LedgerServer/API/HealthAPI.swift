import LedgerServices

/// `GET /healthz` and the OpenAPI document: open to anyone.
enum HealthAPI {
    static let routes: [Route] = [
        Route("GET", "/healthz", access: .open) { context in .respond(health(context)) },
        Route("GET", "/api/v1/openapi.json", access: .open) { _ in
            .respond(
                HTTPResponse(
                    status: 200, headers: [.init("Content-Type", "application/json")],
                    body: PackageResources.openapi_json))
        },
    ]

    /// `{"status":"ok"}` while the database answers with a schema this server can use,
    /// `503 {"status":"unavailable"}` otherwise.
    static func health(_ context: RequestContext) -> HTTPResponse {
        struct Health: Encodable { var status: String }
        let isHealthy = context.server.database.isHealthy(using: context.server.pool, waitingUpTo: 2)
        return isHealthy ? .json(Health(status: "ok")) : .json(Health(status: "unavailable"), status: 503)
    }
}
