import HealthImport
public import LedgerServices

/// What one upload route accepts (``UploadHandling``): its cap, its media types, how many
/// of a person's uploads may wait, and the check of the spooled bytes before they are
/// queued.
public struct UploadPolicy: Sendable {
    /// The largest body accepted, in bytes: a larger declared `Content-Length` is answered
    /// 413 before the body is read, a chunked body is cut off there.
    public var maximumBytes: Int64
    /// What the 413 message says is limited (`uploads`, `Health Auto Export payloads`).
    public var subject: String
    /// The media types accepted (lower case, without parameters); others get 415.
    public var mediaTypes: Set<String>
    /// The 415 message: what to send instead.
    public var unsupportedMediaTypeMessage: String
    /// Uploads of one person that may wait or run at once; more are answered 429.
    public var maximumPending: Int
    /// The name a raw body is recorded under (a form's file part keeps its own).
    public var fileName: String
    /// Checks a complete upload before it is queued: reads the spooled file through
    /// `descriptor` (named `name` in messages) and throws a ``ServiceError`` to refuse it
    /// (422 for ``ServiceError/Kind/refusedInput``).
    public var check: @Sendable (_ descriptor: Int32, _ name: String) throws(ServiceError) -> Void

    /// Creates a policy.
    public init(
        maximumBytes: Int64, subject: String, mediaTypes: Set<String>, unsupportedMediaTypeMessage: String,
        maximumPending: Int, fileName: String,
        check: @escaping @Sendable (_ descriptor: Int32, _ name: String) throws(ServiceError) -> Void
    ) {
        self.maximumBytes = maximumBytes
        self.subject = subject
        self.mediaTypes = mediaTypes
        self.unsupportedMediaTypeMessage = unsupportedMediaTypeMessage
        self.maximumPending = maximumPending
        self.fileName = fileName
        self.check = check
    }

    /// What the upload service enforces of this policy.
    var limits: UploadService.Limits {
        UploadService.Limits(maximumBytes: maximumBytes, maximumPending: maximumPending, check: check)
    }

    /// The 413 answer.
    var tooLarge: HTTPResponse {
        .error(413, code: "too_large", message: "\(subject) are limited to \(maximumBytes) bytes")
    }

    /// Media types an export upload may have: an export zip, its XML, a CSV of samples,
    /// bytes of unknown kind (the importer decides by content), or a browser form.
    static let exportMediaTypes: Set<String> = [
        "application/zip", "application/x-zip-compressed", "application/xml", "text/xml", "text/csv",
        "application/csv", "application/octet-stream", "multipart/form-data",
    ]

    /// `POST /api/v1/imports` and the upload page: an export.zip, export.xml or CSV up to
    /// the configured cap, refused (422) only when its first bytes are no export at all.
    static func exports(_ configuration: ServerConfiguration) -> UploadPolicy {
        UploadPolicy(
            maximumBytes: configuration.maximumUploadBytes, subject: "uploads", mediaTypes: exportMediaTypes,
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
}
