import Foundation
import LedgerTestSupport
import Testing

@Suite("Scheduling files: crontab line and systemd units")
struct SchedulingFileTests {
    /// Whether `field` is a valid cron time field for values `range` (`*`, `*/n`, `a`,
    /// `a-b`, `a-b/n`, comma lists).
    static func isValidCronField(_ field: String, _ range: ClosedRange<Int>) -> Bool {
        field.split(separator: ",", omittingEmptySubsequences: false).allSatisfy { item in
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count) else { return false }
            if parts.count == 2 { guard let step = Int(parts[1]), step >= 1 else { return false } }
            if parts[0] == "*" { return true }
            let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            guard (1...2).contains(bounds.count), bounds.allSatisfy({ $0.map(range.contains) == true }) else {
                return false
            }
            return bounds.count == 1 || (bounds[0] ?? 0) <= (bounds[1] ?? 0)
        }
    }

    @Test(
        "the cron field check accepts and refuses what cron does",
        arguments: [
            ("17", 0...59, true), ("*/15", 0...59, true), ("1-5", 0...6, true), ("0,30", 0...59, true),
            ("60", 0...59, false), ("5-1", 0...23, false), ("*/0", 0...59, false), ("", 0...59, false),
            ("a", 0...59, false),
        ])
    func cronFieldCheck(field: String, range: ClosedRange<Int>, valid: Bool) {
        #expect(Self.isValidCronField(field, range) == valid)
    }

    @Test(
        "deploy/cron/sleepledger-backup: a weekly full and the other nights' differential backup, as the service user")
    func backupCrontab() throws {
        let text = try repositoryFile("deploy/cron/sleepledger-backup")
        #expect(text.hasSuffix("\n"))
        let jobs = text.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
            .filter { $0.count >= 7 && !$0[0].hasPrefix("#") && !$0[0].contains("=") }
        #expect(jobs.map { $0[4] } == ["0", "1-6"])
        for (job, type) in zip(jobs, ["full", "diff"]) {
            for (field, range) in zip(job.prefix(5), [0...59, 0...23, 1...31, 1...12, 0...7]) {
                #expect(Self.isValidCronField(String(field), range), "bad time field \(field)")
            }
            #expect(job[5] == "sleepledger")
            #expect(job.dropFirst(6).joined(separator: " ").hasPrefix("sleepledger db backup --type \(type) "))
        }
        let unit = try repositoryFile("deploy/systemd/sleepledger-backup@.service").split(separator: "\n")
        for line in ["User=sleepledger", "ExecStart=/usr/local/bin/sleepledger db backup --type %i", "Type=oneshot"] {
            #expect(unit.contains { $0 == line }, "missing \(line)")
        }
        for (timer, instance) in [("full", "full"), ("diff", "diff")] {
            let lines = try repositoryFile("deploy/systemd/sleepledger-backup-\(timer).timer").split(separator: "\n")
            #expect(lines.contains { $0 == "Unit=sleepledger-backup@\(instance).service" })
            #expect(lines.contains { $0 == "Persistent=true" })
        }
    }

    @Test("deploy/cron/sleepledger has one job line: five time fields, the user, a locked rollup command")
    func crontabLine() throws {
        let lines = try repositoryFile("deploy/cron/sleepledger").split(separator: "\n").map(String.init)
        let jobs = lines.filter { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return false }
            // NAME=value lines set the environment.
            return trimmed.range(of: #"^[A-Za-z_][A-Za-z0-9_]*="#, options: .regularExpression) == nil
        }
        #expect(jobs.count == 1)
        let fields = try #require(jobs.first).split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        try #require(fields.count >= 7)
        let ranges = [0...59, 0...23, 1...31, 1...12, 0...7]
        for (field, range) in zip(fields.prefix(5), ranges) {
            #expect(Self.isValidCronField(field, range), "bad time field \(field)")
        }
        #expect(fields[5] == "sleepledger")
        let command = fields.dropFirst(6).joined(separator: " ")
        #expect(command.hasPrefix("flock -n -E 75 "))
        #expect(command.contains("sleepledger rollup"))
        // cron ignores an unterminated last line.
        #expect(try repositoryFile("deploy/cron/sleepledger").hasSuffix("\n"))
    }

    /// What both services set: the dedicated user, no new privileges or capabilities, the
    /// file system read-only but the state folder, and SIGTERM to stop.
    static let hardening = [
        "User=sleepledger", "NoNewPrivileges=yes", "ProtectSystem=strict", "ReadWritePaths=/var/lib/sleepledger",
        "ProtectHome=yes", "PrivateTmp=yes", "KillSignal=SIGTERM", "CapabilityBoundingSet=",
    ]

    @Test(
        "the services are hardened for the dedicated user: the rollup a oneshot, the server restarted on failure",
        arguments: [
            (
                "sleepledger-rollup.service",
                ["Type=oneshot", "SuccessExitStatus=75", "ExecStart=/usr/local/bin/sleepledger rollup"]
            ),
            (
                "sleepledger-server.service",
                [
                    "Type=simple", "Restart=on-failure", "UMask=0077",
                    "ExecStart=/usr/local/bin/sleepledger serve --spool /var/lib/sleepledger/spool",
                ]
            ),
        ])
    func serviceSettings(unit: String, settings: [String]) throws {
        let lines = try repositoryFile("deploy/systemd/" + unit).split(separator: "\n")
        for setting in Self.hardening + settings {
            #expect(lines.contains { $0 == setting }, "\(unit): missing \(setting)")
        }
    }

    @Test("the rollup's timer is nightly and persistent")
    func timerSettings() throws {
        let timer = try repositoryFile("deploy/systemd/sleepledger-rollup.timer")
        #expect(timer.contains("OnCalendar=*-*-* 03:17:00"))
        #expect(timer.contains("Persistent=true"))
        #expect(timer.contains("WantedBy=timers.target"))
    }

    @Test(
        "systemd-analyze verify accepts the units",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"),
            "needs systemd-analyze (Debian's systemd package)"))
    func systemdVerify() throws {
        let analyze = "/usr/bin/systemd-analyze"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("units-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // verify checks that ExecStart exists: point it at the built executable.
        let built = builtProductsDirectory().appendingPathComponent("sleepledger").path
        for unit in ["sleepledger-rollup.service", "sleepledger-server.service"] {
            let service = try repositoryFile("deploy/systemd/" + unit)
                .replacingOccurrences(of: "/usr/local/bin/sleepledger", with: built)
            try service.write(to: folder.appendingPathComponent(unit), atomically: true, encoding: .utf8)
        }
        try repositoryFile("deploy/systemd/sleepledger-rollup.timer").write(
            to: folder.appendingPathComponent("sleepledger-rollup.timer"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: analyze)
        process.arguments = [
            "verify", "--man=no", folder.appendingPathComponent("sleepledger-rollup.service").path,
            folder.appendingPathComponent("sleepledger-rollup.timer").path,
            folder.appendingPathComponent("sleepledger-server.service").path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
    }
}
