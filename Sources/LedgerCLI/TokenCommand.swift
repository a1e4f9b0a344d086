import Foundation
import LedgerServices
import LedgerStore
import SleepReports

/// `sleepledger token create|list|revoke`: personal API tokens for the upload server.
enum TokenCommand {
    static let usage = """
        Usage: sleepledger token <action> --user HANDLE [options]

          create --user H [--name NAME] [--scope ingest|full]
                               Create a token and print it once (default name "token",
                               default scope full)
          list --user H [--format text|json|csv]
                               The user's tokens: id, name, scope, created, last used,
                               revoked; never the secret
          revoke --user H ID   Revoke the token with that id (16 hex digits)

        An ingest token can upload exports and read import status; a full token can also
        read the person's data and manage tokens. Only SHA-256 of a token's secret is
        stored: a lost token cannot be shown again, only revoked and replaced.
        """

    static func run(_ words: [String], environment: [String: String], console: Console) throws {
        let arguments = try Arguments(words, options: ["user", "name", "scope", "format"], usage: usage)
        if arguments.has("help") { return console.print(usage) }
        guard let action = arguments.positionals.first else {
            throw CLIError.usage("token needs an action: create, list or revoke", help: usage)
        }
        guard let handle = arguments.value("user") else {
            throw CLIError.usage("token \(action) needs --user HANDLE", help: usage)
        }
        let rest = Array(arguments.positionals.dropFirst())
        let now = Int64(Date().timeIntervalSince1970)
        let database = try Configuration(environment: environment, isTerminal: console.isTerminal).database
        switch action {
        case "create":
            guard rest.isEmpty else { throw CLIError.usage("token create takes no positional argument", help: usage) }
            let scopeText = arguments.value("scope") ?? TokenService.defaultScope.rawValue
            guard let scope = TokenStore.Scope(rawValue: scopeText) else {
                throw CLIError.usage("--scope must be ingest or full, not '\(scopeText)'", help: usage)
            }
            let session = try database.open(access: .writes)
            defer { session.close() }
            let user = try UserService(session: session).user(handle: handle)
            let issued = try TokenService(session: session).create(
                for: user, name: arguments.value("name"), scope: scope)
            console.print(issued.token)
            console.note(
                "sleepledger: created \(scope.rawValue) token \(hex(issued.record.id)) \"\(issued.record.name)\" for \(user.handle); "
                    + "it is shown only now")
        case "list":
            guard rest.isEmpty else { throw CLIError.usage("token list takes no positional argument", help: usage) }
            let format = try OutputFormat.parse(arguments.value("format"), allowed: OutputFormat.allCases, usage: usage)
            let session = try database.open(access: .reads)
            defer { session.close() }
            let user = try UserService(session: session).user(handle: handle)
            try printTokens(try TokenService(session: session).list(for: user), format: format, console: console)
        case "revoke":
            guard rest.count == 1, let id = rest.first else {
                throw CLIError.usage("token revoke needs exactly one token ID", help: usage)
            }
            let session = try database.open(access: .writes)
            defer { session.close() }
            let user = try UserService(session: session).user(handle: handle)
            try TokenService(session: session).revoke(for: user, id: id, now: now)
            console.print("revoked token \(id) of \(user.handle)")
        default:
            throw CLIError.usage("unknown token action '\(action)'", help: usage)
        }
    }

    /// A token id as `token list` shows it: 16 hex digits.
    static func hex(_ id: Int64) -> String { TokenService.idText(id) }

    static func printTokens(_ records: [TokenStore.Record], format: OutputFormat, console: Console) throws {
        let rows = records.map(TokenDocument.init)
        switch format {
        case .json:
            console.print(try JSONText.encode(rows))
        case .csv:
            var table = CSVTable(header: ["id", "name", "scope", "created_at", "last_used_at", "revoked_at"])
            for row in rows {
                table.append([row.id, row.name, row.scope, row.createdAt, row.lastUsedAt ?? "", row.revokedAt ?? ""])
            }
            console.writeOutput(table.rendered)
        case .text:
            guard !rows.isEmpty else {
                return console.print("no tokens yet; create one with: sleepledger token create --user HANDLE")
            }
            var table = TextTable(header: ["ID", "NAME", "SCOPE", "CREATED", "LAST USED", "REVOKED"])
            for record in records {
                table.append([
                    hex(record.id), record.name, record.scope.rawValue, ReportFormat.utcTime(record.createdAt),
                    ReportFormat.utcTime(record.lastUsedAt), ReportFormat.utcTime(record.revokedAt),
                ])
            }
            console.writeOutput(table.rendered)
        }
    }
}
