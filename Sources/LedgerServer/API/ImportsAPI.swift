import LedgerServices

/// A person's imports: uploads (`POST /api/v1/imports`, an `ingest` token is enough),
/// their list and status, and cancelling one that waits.
enum ImportsAPI {
    static let routes: [Route] = [
        Route("GET", "/api/v1/imports", access: .token(.ingest)) { context in
            struct Listing: Encodable { var imports: [ImportDocument] }
            let uploads = try context.server.uploads.uploads(userID: try context.requireCaller().userID)
            return .respond(.json(Listing(imports: uploads.compactMap { ImportDocument($0) })))
        },
        Route("POST", "/api/v1/imports", access: .token(.ingest), isNewWork: true) { context in
            try UploadHandling.plan(context, policy: .exports(context.server.configuration))
        },
        Route("GET", "/api/v1/imports/{id}", access: .token(.ingest)) { context in
            struct Status: Encodable { var `import`: ImportDocument? }
            let view = try context.server.uploads.upload(
                try importID(context), userID: try context.requireCaller().userID)
            return .respond(.json(Status(import: ImportDocument(view))))
        },
        Route("DELETE", "/api/v1/imports/{id}", access: .token(.ingest)) { context in
            try context.server.uploads.cancel(try importID(context), userID: try context.requireCaller().userID)
            return .respond(HTTPResponse(status: 204))
        },
    ]

    /// The import id the path names, the person's import number: a positive whole number,
    /// else 404 (as is a number the person has not reached, so an internal id never finds
    /// another person's import).
    static func importID(_ context: RequestContext) throws(ServiceError) -> Int64 {
        guard let id = context.captures["id"].flatMap({ Int64($0) }), id > 0 else {
            throw ServiceError(.notFound, "no such import")
        }
        return id
    }
}
