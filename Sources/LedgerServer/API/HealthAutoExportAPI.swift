import HealthImport
import LedgerServices

/// Samples pushed by the Health Auto Export app (`POST /api/v1/ingest/health-auto-export`):
/// a JSON payload the app's REST API automation sends, spooled and queued like an upload
/// (202 and its import, or 200 and the earlier import of the same bytes).
enum HealthAutoExportAPI {
    static let routes: [Route] = [
        Route("POST", "/api/v1/ingest/health-auto-export", access: .token(.ingest), isNewWork: true) { context in
            try UploadHandling.plan(context, policy: policy(context.server.configuration))
        }
    ]

    /// The largest Health Auto Export payload accepted: 64 MiB (years of sleep samples are
    /// a few MB), or the server's upload cap when that is lower.
    static let maximumBytes: Int64 = 64 << 20

    /// Pushes of one person that may wait or run at once: the app's "Batch Requests" send
    /// one run's data as several requests in a row, so more than the uploads' default may
    /// wait; with the 64 MiB cap they hold at most 1 GiB of spool.
    static let maximumPending = 16

    /// The payload is checked to its end before it is queued (building no sample), so
    /// that a payload of per-night summaries ("Summarize Data" on), JSON that is no
    /// payload and malformed JSON are answered 422 while the app still listens, instead of
    /// failing later in the queue.
    static func policy(_ configuration: ServerConfiguration) -> UploadPolicy {
        UploadPolicy(
            maximumBytes: min(maximumBytes, configuration.maximumUploadBytes),
            subject: "Health Auto Export payloads", mediaTypes: ["application/json"],
            unsupportedMediaTypeMessage:
                "send the Health Auto Export payload as JSON (Content-Type: application/json)",
            maximumPending: max(maximumPending, configuration.maximumPendingUploadsPerUser),
            fileName: "health-auto-export.json", check: check)
    }

    /// Checks a spooled payload (``HealthImport/HealthImportReader/check(_:)``): throws
    /// ``ServiceError/Kind/refusedInput`` with the importer's reason when it will not import.
    @Sendable static func check(_ descriptor: Int32, _ name: String) throws(ServiceError) {
        let kind: InputKind
        do {
            // Reads a payload to its end, building no sample; an export sent here only
            // its first bytes.
            kind = try HealthImportReader().check(.fileDescriptor(descriptor, name: name))
        } catch {
            throw ServiceError(error)
        }
        guard kind == .healthAutoExport else {
            let found = kind == .zip ? "a zip archive" : kind == .xml ? "XML" : "CSV"
            throw ServiceError(
                .refusedInput,
                "\(name): not a Health Auto Export payload (JSON starting with '{') but \(found); "
                    + "send exports to /api/v1/imports")
        }
    }
}
