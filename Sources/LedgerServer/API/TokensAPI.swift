import LedgerServices
import LedgerStore

/// The caller's API tokens: list, create (the secret shown once), revoke one, revoke all.
enum TokensAPI {
    static let routes: [Route] = [
        Route("GET", "/api/v1/tokens", access: .token(.full)) { context in
            struct Listing: Encodable { var tokens: [TokenDocument] }
            _ = try context.query([])
            return .respond(.json(Listing(tokens: try context.account().tokens().map(TokenDocument.init))))
        },
        Route("POST", "/api/v1/tokens", access: .token(.full)) { context in
            let account = try context.account()
            return try JSONBody.plan(context) { body in try create(body, account) }
        },
        Route("DELETE", "/api/v1/tokens", access: .token(.full)) { context in
            struct Revoked: Encodable {
                var revokedTokens: Int
                enum CodingKeys: String, CodingKey { case revokedTokens = "revoked_tokens" }
            }
            _ = try context.query([])
            let revoked = try context.account().revokeAllTokens(now: context.server.now())
            return .respond(.json(Revoked(revokedTokens: revoked)))
        },
        Route("DELETE", "/api/v1/tokens/{id}", access: .token(.full)) { context in
            _ = try context.query([])
            try context.account().revokeToken(id: context.captures["id"] ?? "", now: context.server.now())
            return .respond(HTTPResponse(status: 204))
        },
    ]

    static func create(_ body: [UInt8], _ account: AccountService) throws -> HTTPResponse {
        struct Request: Decodable {
            var name: String?
            var scope: String?
        }
        struct Created: Encodable {
            var token: String
            var record: TokenDocument
            func encode(to encoder: any Encoder) throws {
                try record.encode(to: encoder)
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(token, forKey: .token)
            }
            enum Key: String, CodingKey { case token }
        }
        let request = try JSONBody.decode(Request.self, from: body, fields: ["name", "scope"])
        var scope: TokenStore.Scope?
        if let text = request.scope {
            guard let known = TokenStore.Scope(rawValue: text) else {
                throw JSONBody.Refusal("field 'scope' must be ingest or full, not \(MessageText.quoted(text))")
            }
            scope = known
        }
        let issued = try account.createToken(name: request.name, scope: scope)
        return .json(Created(token: issued.token, record: TokenDocument(issued.record)), status: 201)
    }
}
