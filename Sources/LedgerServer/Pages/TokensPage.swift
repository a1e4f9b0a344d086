import LedgerServices
import LedgerStore
import WebPages

/// `GET /tokens`: the person's API tokens and the Health Auto Export settings; creating
/// one (its secret shown on the answer page this once, never in an address) and revoking.
enum TokensPage {
    static let routes: [Route] = [
        Route("GET", WebPaths.tokens, access: .signedIn) { context in
            let (_, notice) = try PageRendering.query(context)
            return .respond(try page(context, notice: notice))
        },
        Route("POST", WebPaths.tokens, access: .signedIn) { context in
            PageRendering.form(context) { request in try create(request.form, context) }
        },
        Route("POST", WebPaths.revokeToken("{id}"), access: .signedIn) { context in
            PageRendering.form(context) { _ in try revoke(context.captures["id"] ?? "", context) }
        },
    ]

    /// The tokens page with `created` shown once and `notice`, answered with `status`.
    static func page(
        _ context: RequestContext, created: TokensView.CreatedToken? = nil, notice: WebNotice?, status: Int = 200
    ) throws -> HTTPResponse {
        let service = try context.account()
        let handle = try service.account().user.handle
        let visitor = try context.requireVisitor()
        let page = TokensView.page(
            tokens: try service.tokens().map(TokenRow.init), created: created,
            publicURL: context.server.baseURL(for: context.request), csrfToken: visitor.csrfToken, notice: notice)
        return PageRendering.personal(page, visitor, handle: handle, status: status)
    }

    /// `POST /tokens` (`name`, `scope`): a new token; a blank name takes the default.
    static func create(_ form: [String: String], _ context: RequestContext) throws -> HTTPResponse {
        let name = form["name"].map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard let scope = form["scope"].flatMap(TokenStore.Scope.init(rawValue:)) else {
            return try page(context, notice: WebNotice(.error, "Choose what the token may do."), status: 400)
        }
        do {
            let issued = try context.account().createToken(name: name.isEmpty ? nil : name, scope: scope)
            let row = TokenRow(issued.record)
            return try page(
                context, created: TokensView.CreatedToken(token: issued.token, name: row.name, scope: row.scope),
                notice: nil, status: 201)
        } catch let error as ServiceError where [.invalidInput, .busy, .conflict].contains(error.kind) {
            return try page(context, notice: WebNotice(.error, PageRendering.sentence(error.message)), status: 400)
        }
    }

    /// `POST /tokens/{id}/revoke`: the token revoked; `303` back with a notice; 404 when the
    /// person has no token of that id (or it is no token id at all).
    static func revoke(_ id: String, _ context: RequestContext) throws -> HTTPResponse {
        do {
            try context.account().revokeToken(id: id, now: context.server.now())
        } catch  where [.notFound, .invalidInput].contains(error.kind) {
            return try PageRendering.personalMessage(
                context, title: "Not found", message: "You have no such token.", status: 404)
        }
        return .seeOther(PageNotice.tokenRevoked.on(WebPaths.tokens))
    }
}

extension TokenRow {
    /// The page's row of a token: its id as the API shows it, never a secret.
    init(_ record: TokenStore.Record) {
        self.init(
            id: TokenService.idText(record.id), name: record.name,
            scope: record.scope == .full ? .full : .ingest, createdAt: record.createdAt,
            lastUsedAt: record.lastUsedAt, revokedAt: record.revokedAt)
    }
}
