import WebPages

/// `GET /static/<name>.<hash>.<ext>`: a file of ``WebAssets`` by its hashed path, with its
/// content type and cached for a year (``WebAssets/cacheControl``: a changed file gets a
/// new name). An unknown name, or a known one with another hash, is a 404 page.
enum StaticAssets {
    static let routes: [Route] = [
        Route("GET", "/static/{name}", access: .open) { context in
            .respond(asset(atPath: context.request.path))
        }
    ]

    static func asset(atPath path: String) -> HTTPResponse {
        guard let asset = WebAssets.asset(atPath: path) else {
            return PageRendering.message(title: "Not found", message: "There is no such file.", status: 404)
        }
        return HTTPResponse(
            status: 200,
            headers: [
                HTTPResponse.Header("Content-Type", asset.contentType),
                HTTPResponse.Header("Cache-Control", WebAssets.cacheControl),
            ] + HTTPResponse.pageSecurityHeaders,
            body: asset.bytes)
    }
}
