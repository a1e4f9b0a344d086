import Foundation
import LedgerServices
import LedgerStore
import SleepCore
import SleepReports

/// `sleepledger user add|list|set|remove|passwd`: manages the people whose sleep is tracked.
enum UserCommand {
    static let usage = """
        Usage: sleepledger user <action> [options]

          add HANDLE --time-zone ZONE [--target 8h] [--minimum 7h]
                               Create a user (IANA zone such as Europe/Berlin)
          list [--format text|json|csv]
                               List users
          set HANDLE [--handle NEW] [--time-zone ZONE] [--target D] [--minimum D]
                [--work-days DAYS] [--target-mode fixed|estimated_need]
                               Rename the user, or change settings (which marks the
                               user's summaries stale)
          remove HANDLE --yes  Delete the user and all of their data (waits for a
                               running import of the user to finish)
          passwd HANDLE        Set the user's password for the web pages: prompted twice
                               without echo on a terminal, else the first line of
                               standard input; ends the user's web sessions

        A handle is 1-64 letters, digits, '.', '_', '-' or '@'; handles are unique
        regardless of letter case and accent encoding (Åsa and åsa are one user).
        Durations are written like 8h, 7h30m, 450m or 7.5h. Target sleep drives debt;
        minimum acceptable drives compliance: 0 < minimum <= target <= 24h.
        Work days are weekdays such as mon-fri (the default), mon,tue,thu or none; free
        days are the others. --target-mode estimated_need measures debt against the need
        estimated from the user's own nights instead of the target (docs/sleep-rules.md).
        A password has at least 10 characters and at most 1024 bytes (after Unicode NFKC
        normalization); it is stored as an Argon2id hash.
        """

    static func run(_ words: [String], environment: [String: String], console: Console) throws {
        let arguments = try Arguments(
            words, options: ["handle", "time-zone", "target", "minimum", "format", "work-days", "target-mode"],
            flags: ["yes"], usage: usage)
        if arguments.has("help") { return console.print(usage) }
        guard let action = arguments.positionals.first else {
            throw CLIError.usage("user needs an action: add, list, set, remove or passwd", help: usage)
        }
        let handles = Array(arguments.positionals.dropFirst())
        let database = try Configuration(environment: environment, isTerminal: console.isTerminal).database
        switch action {
        case "add": try add(handles, arguments, database: database, console: console)
        case "list": try list(handles, arguments, database: database, console: console)
        case "set": try set(handles, arguments, database: database, console: console)
        case "remove": try remove(handles, arguments, database: database, console: console)
        case "passwd": try passwd(handles, database: database, console: console)
        default: throw CLIError.usage("unknown user action \(MessageText.quoted(action))", help: usage)
        }
    }

    /// `user add HANDLE --time-zone ZONE [--target D] [--minimum D]`.
    static func add(_ handles: [String], _ arguments: Arguments, database: LedgerDatabase, console: Console) throws {
        let handle = try singleHandle(handles)
        guard arguments.value("handle") == nil else {
            throw CLIError.usage("user add takes the handle as its argument, not --handle", help: usage)
        }
        guard let zone = arguments.value("time-zone") else {
            throw CLIError.usage("user add needs --time-zone (an IANA zone such as Europe/Berlin)", help: usage)
        }
        let target = try duration(arguments.value("target"), option: "target", example: "8h or 7h30m")
        let minimum = try duration(arguments.value("minimum"), option: "minimum", example: "7h or 6h45m")
        try UserService.validate(timeZone: zone)
        try UserService.validate(
            goals: SleepGoals(
                targetSeconds: target ?? SleepGoals().targetSeconds,
                minimumSeconds: minimum ?? SleepGoals().minimumSeconds))
        try UserService.validate(handle: handle)
        let session = try database.open(access: .writes)
        defer { session.close() }
        let user = try UserService(session: session).add(
            handle: handle, timeZone: zone, targetSeconds: target, minimumSeconds: minimum)
        console.print("added \(describe(user))")
    }

    /// `user list [--format text|json|csv]`.
    static func list(_ handles: [String], _ arguments: Arguments, database: LedgerDatabase, console: Console) throws {
        guard handles.isEmpty else { throw CLIError.usage("user list takes no handle", help: usage) }
        let format = try OutputFormat.parse(arguments.value("format"), allowed: [.text, .json, .csv], usage: usage)
        let session = try database.open(access: .reads)
        defer { session.close() }
        try printUsers(try UserService(session: session).list(), format: format, console: console)
    }

    /// `user set HANDLE [--handle NEW] [--time-zone ZONE] [--target D] [--minimum D]`.
    static func set(_ handles: [String], _ arguments: Arguments, database: LedgerDatabase, console: Console) throws {
        let handle = try singleHandle(handles)
        let newHandle = arguments.value("handle")
        let zone = arguments.value("time-zone")
        let target = try duration(arguments.value("target"), option: "target", example: "8h or 7h30m")
        let minimum = try duration(arguments.value("minimum"), option: "minimum", example: "7h or 6h45m")
        let workDays = try arguments.value("work-days").map(workDays(_:))
        let targetMode = try arguments.value("target-mode").map { name in
            guard let mode = SleepTarget(rawValue: name) else {
                throw CLIError.usage(
                    "--target-mode is fixed or estimated_need, not \(MessageText.quoted(name))", help: usage)
            }
            return mode
        }
        guard newHandle != nil || zone != nil || target != nil || minimum != nil || workDays != nil || targetMode != nil
        else {
            throw CLIError.usage(
                "user set needs --handle, --time-zone, --target, --minimum, --work-days or --target-mode", help: usage)
        }
        if let newHandle { try UserService.validate(handle: newHandle) }
        if let zone { try UserService.validate(timeZone: zone) }
        let session = try database.open(access: .writes)
        defer { session.close() }
        let updated = try UserService(session: session).update(
            handle: handle, timeZone: zone, targetSeconds: target, minimumSeconds: minimum, newHandle: newHandle,
            workDays: workDays, target: targetMode)
        console.print("updated \(describe(updated))")
    }

    /// The weekday names `--work-days` takes, Monday first.
    static let weekdayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// Work days from `mon-fri`, `mon,tue,thu`, `sat-sun,mon` or `none`.
    static func workDays(_ text: String) throws -> WorkDays {
        let lowered = text.lowercased()
        if lowered == "none" { return WorkDays(mask: 0) }
        var days: [Int] = []
        for part in lowered.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(ends.count),
                let first = weekdayNames.firstIndex(of: ends[0]),
                let last = weekdayNames.firstIndex(of: ends[ends.count - 1])
            else {
                throw CLIError.usage(
                    "--work-days takes weekdays such as mon-fri, mon,tue,thu or none, not \(MessageText.quoted(text))",
                    help: usage)
            }
            var day = first
            while true {
                days.append(day + 1)
                if day == last { break }
                day = (day + 1) % 7
            }
        }
        return WorkDays(isoWeekdays: days)
    }

    /// `user remove HANDLE --yes`: waits for a running import of the user.
    static func remove(_ handles: [String], _ arguments: Arguments, database: LedgerDatabase, console: Console) throws {
        let handle = try singleHandle(handles)
        guard arguments.has("yes") else {
            throw CLIError.usage(
                "user remove deletes \(MessageText.quoted(handle)) and all of their sleep data; repeat with --yes to confirm"
            )
        }
        let session = try database.open(access: .writes)
        defer { session.close() }
        let deletion = AccountDeletion(
            tombstoneFile: database.tombstoneFile, spoolHost: ProcessInfo.processInfo.hostName)
        _ = try deletion.delete(.handle(handle), in: session, waitSeconds: nil) { holder in
            console.note(
                "sleepledger: waiting for \(MessageText.escaped(ImportLockHolder.text(holder, handle: handle))) to finish"
            )
        }
        console.print("removed \(MessageText.escaped(handle)) and all of their data")
    }

    /// `user passwd HANDLE`: the password from the terminal or standard input.
    static func passwd(_ handles: [String], database: LedgerDatabase, console: Console) throws {
        let handle = try singleHandle(handles)
        let password = try PasswordInput.read(for: handle, console: console)
        _ = try PasswordRules.newPassword(password)
        let session = try database.open(access: .writes)
        defer { session.close() }
        let (user, ended) = try PasswordService(session: session, hashing: PasswordHashing(maximumConcurrent: 1))
            .set(
                handle: handle, password: password, now: Int64(Date().timeIntervalSince1970))
        console.print(
            "set the password of \(MessageText.escaped(user.handle))"
                + (ended == 0 ? "" : " (ended \(ended) web session\(ended == 1 ? "" : "s"))"))
    }

    /// A duration option as seconds (`8h`, `7h30m`, `450m`); `nil` when not given. The
    /// goals' limits (at most 24h) are the service's to check.
    static func duration(_ text: String?, option: String, example: String) throws(CLIError) -> Int64? {
        guard let text else { return nil }
        guard let seconds = SleepDuration.parse(text), seconds > 0 else {
            throw .badInput(
                "malformed duration \(MessageText.quoted(text)) for --\(option); write it like \(example), at most 24h")
        }
        return seconds
    }

    static func singleHandle(_ handles: [String]) throws(CLIError) -> String {
        guard handles.count == 1, let handle = handles.first else {
            throw CLIError.usage("expected exactly one user handle", help: usage)
        }
        return handle
    }

    static func describe(_ user: User) -> String {
        "\(user.handle) (\(user.timeZoneIdentifier), target \(ReportFormat.hours(user.goals.targetSeconds)), "
            + "minimum \(ReportFormat.hours(user.goals.minimumSeconds)))"
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
                    row.handle, row.timeZone, ReportFormat.hours(row.targetSeconds),
                    ReportFormat.hours(row.minimumSeconds), row.createdAt,
                ])
            }
            console.writeOutput(table.rendered)
        }
    }
}
