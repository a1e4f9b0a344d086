import LedgerServices
import WebPages

/// The upload page: the form with the cap, and the form sent without JavaScript
/// (`multipart/form-data` with `csrf_token` and `file`), spooled and queued as
/// `POST /api/v1/imports` does, then `303` to the imports page. A refusal (too large, not
/// an export, too many waiting) is the upload page again with the reason.
enum UploadPage {
    static let routes: [Route] = [
        Route("GET", WebPaths.upload, access: .signedIn) { context in .respond(try page(context, notice: nil)) },
        Route("POST", WebPaths.upload, access: .signedIn, isNewWork: true) { context in try upload(context) },
    ]

    /// The upload form with `notice`, answered with `status`.
    static func page(
        _ context: RequestContext, notice: WebNotice?, status: Int = 200, headers: [HTTPResponse.Header] = []
    ) throws -> HTTPResponse {
        let handle = try context.account().account().user.handle
        let page = UploadView.page(
            maximumUploadBytes: context.server.configuration.maximumUploadBytes,
            csrfToken: try context.requireVisitor().csrfToken, notice: notice)
        return PageRendering.personal(
            page, try context.requireVisitor(), handle: handle, status: status, headers: headers)
    }

    /// `POST /upload`: the API's upload steps, their answers turned into pages.
    static func upload(_ context: RequestContext) throws -> RequestPlan {
        guard context.request.mediaType == "multipart/form-data" else {
            return .respond(try refused(context, .error(415, code: "unsupported_media_type", message: "")))
        }
        let plan: RequestPlan
        do {
            plan = try UploadHandling.plan(context, policy: .exports(context.server.configuration))
        } catch let error as ServiceError {
            return .respond(try refused(context, HTTPResponse(error)))
        }
        switch plan {
        case .respond(let refusal):
            return .respond(try refused(context, refusal))
        case .upload(let receiver, let finish):
            return .upload(receiver) { receiver in
                let answer: HTTPResponse
                do {
                    answer = try finish(receiver)
                } catch let error as ServiceError {
                    answer = HTTPResponse(error)
                }
                switch answer.status {
                case 202: return .seeOther(PageNotice.importQueued.on(WebPaths.imports))
                case 200: return .seeOther(PageNotice.importKnown.on(WebPaths.imports))
                default: return try refused(context, answer)
                }
            }
        case let other:
            return other
        }
    }

    /// The upload page again with the API's refusal in words, its status and `Retry-After`.
    static func refused(_ context: RequestContext, _ refusal: HTTPResponse) throws -> HTTPResponse {
        let message: String
        switch refusal.status {
        case 413:
            let cap = WebFormat.bytes(context.server.configuration.maximumUploadBytes)
            message = "The file is larger than the \(cap) this server accepts."
        case 415, 400:
            message = "Choose a file to upload: an export.zip, export.xml or a CSV of sleep samples."
        default:
            message =
                refusal.problem.map { PageRendering.sentence($0) } ?? "The upload could not be stored. Try again later."
        }
        return try page(
            context, notice: WebNotice(.error, message), status: refusal.status,
            headers: refusal.headers.filter { $0.name == "Retry-After" })
    }
}
