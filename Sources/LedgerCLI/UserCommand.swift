import Foundation
import LedgerStore
import SleepCore

/// `sleepledger user add|list|set|remove`: manages the people whose sleep is tracked.
enum UserCommand {
    static let usage = """
        Usage: sleepledger user <action> [options]

          add HANDLE --time-zone ZONE [--target 8h] [--minimum 7h]
                               Create a user (IANA zone such as Europe/Berlin)
          list [--format text|json|csv]
                               List users
          set HANDLE [--time-zone ZONE] [--target D] [--minimum D]
                               Change settings; marks the user's summaries stale
          remove HANDLE --yes  Delete the user and all of their data

        Durations are written like 8h, 7h30m, 450m or 7.5h. Target sleep drives debt;
        minimum acceptable drives compliance. The target may not be below the minimum.
        """

    static func run(_ words: [String], environment: [String: String], console: Console) throws {
        let arguments = try Arguments(
            words, options: ["time-zone", "target", "minimum", "format"], flags: ["yes"], usage: usage)
        if arguments.has("help") { return console.print(usage) }
        guard let action = arguments.positionals.first else {
            throw CLIError.usage("user needs an action: add, list, set or remove", help: usage)
        }
        let handles = Array(arguments.positionals.dropFirst())
        let configuration = try Configuration(environment: environment, isTerminal: console.isTerminal)
        switch action {
        case "add":
            let handle = try singleHandle(handles)
            guard let zone = arguments.value("time-zone") else {
                throw CLIError.usage("user add needs --time-zone (an IANA zone such as Europe/Berlin)", help: usage)
            }
            let settings = try UserSettingsInput(
                timeZone: zone, target: arguments.value("target"), minimum: arguments.value("minimum"))
            let goals = SleepGoals(
                targetSeconds: settings.targetSeconds ?? SleepGoals().targetSeconds,
                minimumSeconds: settings.minimumSeconds ?? SleepGoals().minimumSeconds)
            try checkGoals(goals)
            try HandleRule.validate(handle)
            let session = try DatabaseSession.open(configuration, access: .writes)
            defer { session.close() }
            let user: User
            do {
                user = try UserStore(connection: session.connection).add(handle: handle, timeZone: zone, goals: goals)
            } catch let error as StoreError where error.kind == .alreadyExists {
                throw CLIError.badInput("a user with handle '\(handle)' already exists")
            }
            console.print("added \(describe(user))")
        case "list":
            guard handles.isEmpty else { throw CLIError.usage("user list takes no handle", help: usage) }
            let format = try OutputFormat.parse(arguments.value("format"), allowed: [.text, .json, .csv], usage: usage)
            let session = try DatabaseSession.open(configuration, access: .reads)
            defer { session.close() }
            let users = try UserStore(connection: session.connection).list()
            try printUsers(users, format: format, console: console)
        case "set":
            let handle = try singleHandle(handles)
            let settings = try UserSettingsInput(
                timeZone: arguments.value("time-zone"), target: arguments.value("target"),
                minimum: arguments.value("minimum"))
            guard settings.timeZone != nil || settings.targetSeconds != nil || settings.minimumSeconds != nil else {
                throw CLIError.usage("user set needs --time-zone, --target or --minimum", help: usage)
            }
            let session = try DatabaseSession.open(configuration, access: .writes)
            defer { session.close() }
            let store = UserStore(connection: session.connection)
            guard let user = try store.find(handle: handle) else {
                throw CLIError.notFound("unknown user '\(handle)'")
            }
            let goals = SleepGoals(
                targetSeconds: settings.targetSeconds ?? user.goals.targetSeconds,
                minimumSeconds: settings.minimumSeconds ?? user.goals.minimumSeconds)
            try checkGoals(goals)
            let updated = try store.update(
                handle: handle, timeZone: settings.timeZone ?? user.timeZoneIdentifier, goals: goals)
            console.print("updated \(describe(updated))")
        case "remove":
            let handle = try singleHandle(handles)
            guard arguments.has("yes") else {
                throw CLIError.usage(
                    "user remove deletes '\(handle)' and all of their sleep data; repeat with --yes to confirm")
            }
            let session = try DatabaseSession.open(configuration, access: .writes)
            defer { session.close() }
            do {
                try UserStore(connection: session.connection).remove(handle: handle)
            } catch let error as StoreError where error.kind == .notFound {
                throw CLIError.notFound("unknown user '\(handle)'")
            }
            console.print("removed \(handle) and all of their data")
        default:
            throw CLIError.usage("unknown user action '\(action)'", help: usage)
        }
    }

    static func singleHandle(_ handles: [String]) throws(CLIError) -> String {
        guard handles.count == 1, let handle = handles.first else {
            throw CLIError.usage("expected exactly one user handle", help: usage)
        }
        return handle
    }

    static func checkGoals(_ goals: SleepGoals) throws(CLIError) {
        guard goals.minimumSeconds > 0 else { throw .badInput("minimum acceptable sleep must be above zero") }
        guard goals.targetSeconds >= goals.minimumSeconds else {
            throw .badInput(
                "target sleep \(SleepDuration.format(seconds: goals.targetSeconds)) is below the minimum "
                    + SleepDuration.format(seconds: goals.minimumSeconds))
        }
    }

    static func describe(_ user: User) -> String {
        "\(user.handle) (\(user.timeZoneIdentifier), target \(SleepDuration.format(seconds: user.goals.targetSeconds)), "
            + "minimum \(SleepDuration.format(seconds: user.goals.minimumSeconds)))"
    }

    static func printUsers(_ users: [User], format: OutputFormat, console: Console) throws {
        struct Row: Encodable {
            var handle: String
            var timeZone: String
            var targetSeconds: Int64
            var minimumSeconds: Int64
            var createdAt: String

            enum CodingKeys: String, CodingKey {
                case handle
                case timeZone = "time_zone"
                case targetSeconds = "target_seconds"
                case minimumSeconds = "minimum_seconds"
                case createdAt = "created_at"
            }
        }
        let stamp = ISO8601DateFormatter()
        stamp.timeZone = TimeZone(identifier: "UTC")
        let rows = users.map {
            Row(
                handle: $0.handle, timeZone: $0.timeZoneIdentifier, targetSeconds: $0.goals.targetSeconds,
                minimumSeconds: $0.goals.minimumSeconds,
                createdAt: stamp.string(from: Date(timeIntervalSince1970: TimeInterval($0.createdAt))))
        }
        switch format {
        case .json:
            console.print(try JSONText.encode(rows))
        case .csv:
            var table = CSVTable(header: ["handle", "time_zone", "target_seconds", "minimum_seconds", "created_at"])
            for row in rows {
                table.append([
                    row.handle, row.timeZone, "\(row.targetSeconds)", "\(row.minimumSeconds)", row.createdAt,
                ])
            }
            console.writeOutput(table.rendered)
        case .text:
            guard !rows.isEmpty else {
                return console.print("no users yet; add one with: sleepledger user add HANDLE --time-zone ZONE")
            }
            var table = TextTable(header: ["HANDLE", "TIME ZONE", "TARGET", "MINIMUM", "CREATED"])
            for row in rows {
                table.append([
                    row.handle, row.timeZone, SleepDuration.format(seconds: row.targetSeconds),
                    SleepDuration.format(seconds: row.minimumSeconds), row.createdAt,
                ])
            }
            console.writeOutput(table.rendered)
        }
    }
}

/// User settings as typed on the command line, validated before any database work.
struct UserSettingsInput {
    var timeZone: String?
    var targetSeconds: Int64?
    var minimumSeconds: Int64?

    init(timeZone: String?, target: String?, minimum: String?) throws(CLIError) {
        if let timeZone {
            guard TimeZoneNames.isKnown(timeZone) else {
                throw .badInput("unknown time zone '\(timeZone)'; use an IANA name such as Europe/Berlin")
            }
        }
        self.timeZone = timeZone
        targetSeconds = try target.map { text throws(CLIError) in
            guard let seconds = SleepDuration.parse(text), seconds > 0 else {
                throw .badInput("malformed duration '\(text)' for --target; write it like 8h or 7h30m")
            }
            return seconds
        }
        minimumSeconds = try minimum.map { text throws(CLIError) in
            guard let seconds = SleepDuration.parse(text), seconds > 0 else {
                throw .badInput("malformed duration '\(text)' for --minimum; write it like 7h or 6h45m")
            }
            return seconds
        }
    }
}

/// The rule for user handles: 1-64 characters of letters, digits, `.`, `_`, `-`, `@`.
enum HandleRule {
    static func validate(_ handle: String) throws(CLIError) {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-@"))
        guard (1...64).contains(handle.count), handle.unicodeScalars.allSatisfy(allowed.contains) else {
            throw .badInput("invalid handle '\(handle)': use 1-64 letters, digits, '.', '_', '-' or '@'")
        }
    }
}

/// IANA zone names known to this system's time zone database.
enum TimeZoneNames {
    static let known = Set(TimeZone.knownTimeZoneIdentifiers)
    static func isKnown(_ name: String) -> Bool { known.contains(name) || name == "UTC" }
}
