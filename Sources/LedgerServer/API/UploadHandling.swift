import LedgerServices

/// The steps every upload route shares (the API's imports, Health Auto Export pushes, the
/// upload page's form): refusals from the head, the body streamed into a spool file, and
/// the complete upload queued by ``UploadService``.
enum UploadHandling {
    /// The plan for an upload whose caller is known: answered from the head (413 for a
    /// declared length over the policy's cap, 411, 415; 429 and 507 from the upload
    /// service), or streamed to a spool file and answered by ``finish(_:caller:base:policy:server:)``.
    static func plan(_ context: RequestContext, policy: UploadPolicy) throws -> RequestPlan {
        let request = context.request
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
        let caller = try context.requireCaller()
        let server = context.server
        let file = try server.uploads.admit(
            userID: caller.userID, limits: policy.limits, declaredBytes: request.contentLength)
        let receiver = UploadReceiver(
            file: file, fileName: policy.fileName, contentType: request.header("content-type"))
        let base = server.baseURL(for: request)
        return .upload(receiver) { receiver in
            try finish(receiver, caller: caller, base: base, policy: policy, server: server)
        }
    }

    /// Queues a complete upload that passes the policy's check: 202 with the new import,
    /// or 200 with the earlier import of the same bytes.
    static func finish(
        _ receiver: UploadReceiver, caller: Caller, base: String, policy: UploadPolicy, server: ServerEnvironment
    ) throws -> HTTPResponse {
        if receiver.file.isOverCap { return policy.tooLarge }
        let queued = try server.uploads.queue(
            receiver.file, fileName: receiver.fileName, contentType: receiver.contentType, userID: caller.userID,
            limits: policy.limits)
        struct Status: Encodable { var `import`: ImportDocument? }
        let (job, status) =
            switch queued {
            case .queued(let job): (job, 202)
            case .sameAsEarlier(let job): (job, 200)
            }
        return .json(
            Status(import: ImportDocument(ImportView(job))), status: status,
            headers: [.init("Location", base + "/api/v1/imports/\(job.number)")])
    }
}
