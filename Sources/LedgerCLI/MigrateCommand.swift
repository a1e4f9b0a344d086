import Foundation
import LedgerServices
import LedgerStore

/// `sleepledger migrate [--status]`: applies pending migrations in order, or lists them.
enum MigrateCommand {
    static let usage = """
        Usage: sleepledger migrate [--status] [--format text|json]

          (no option)  Apply every pending migration, each in its own transaction
          --status     List applied and pending migrations; change nothing
        """

    static func run(_ words: [String], environment: [String: String], console: Console) throws {
        let arguments = try Arguments(words, options: ["format"], flags: ["status"], usage: usage)
        if arguments.has("help") { return console.print(usage) }
        guard arguments.positionals.isEmpty else {
            throw CLIError.usage("migrate takes no arguments", help: usage)
        }
        let format = try OutputFormat.parse(arguments.value("format"), usage: usage)
        let database = try Configuration(environment: environment, isTerminal: console.isTerminal).database
        if arguments.has("status") {
            let statuses = try database.migrationStatus()
            if format == .json {
                let rows = statuses.map { ["version": "\($0.version)", "name": $0.name, "state": $0.state.rawValue] }
                console.print(try JSONText.encode(rows))
            } else {
                for status in statuses {
                    let state = status.state.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                    console.print("\(state) \(Migration(version: status.version, name: status.name, sql: "").fileName)")
                }
            }
            return
        }
        let applied = try database.migrate()
        try DeletionsAtStart.reapply(database) { console.note("sleepledger: " + $0) }
        if format == .json {
            console.print(try JSONText.encode(["applied": applied.map(\.fileName)]))
        } else if applied.isEmpty {
            console.print("schema is up to date")
        } else {
            for migration in applied { console.print("applied  \(migration.fileName)") }
        }
    }

}
