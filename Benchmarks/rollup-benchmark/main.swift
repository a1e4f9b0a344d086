// rollup-benchmark: how long `sleepledger rollup` takes over many users, against the
// time PostgreSQL needs just to send every stored sample to a client.
//
//     swift run -c release rollup-benchmark [--users 1000] [--days 365] [--workers 2] [--seed 20260101]
//
// Uses DATABASE_URL when set (a superuser connection to an empty database), else starts a
// private embedded cluster in a temporary folder and removes it afterwards. Loads the
// users' Apple-Watch-style samples with COPY (not timed as part of the goal), then
// measures in one run:
//   (a) COPY (SELECT ... FROM sleep_samples) TO STDOUT, every row discarded: the floor;
//   (b) the rollup with --all (full rebuild of every user);
//   (c) the nightly incremental run after one new night per user.
// Goals (issue): (b) <= 3 x (a) with 2 workers; (c) <= 15 % of (b); memory bounded by
// one user's data: the benchmark process's own VmHWM (/proc/self/status) is printed for
// each step, reset between steps (ProcessMemory). Run the built binary or `swift run`:
// both print the same VmHWM. Results: docs/benchmarks.md.

import EmbeddedPostgres
import Foundation
import Glibc
import LedgerServices
import LedgerStore
import PostgresClient
import SleepCore
import SleepFixtures

struct BenchmarkSettings {
    var users = 1000
    var days = 365
    var workers = 2
    var seed: UInt64 = 20_260_101
    /// Extra nightly runs after (c), each a day later with no new samples (summary
    /// refresh only), for profiling. Default 0.
    var extraNightlyRuns = 0
    /// The first evening of every generated history.
    var firstEvening = LocalDate(year: 2025, month: 1, day: 1)

    static let usage = "usage: rollup-benchmark [--users N] [--days N] [--workers N] [--seed N]"

    static func parse(_ arguments: [String]) -> BenchmarkSettings? {
        var settings = BenchmarkSettings()
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            guard let value = remaining.popFirst(), let number = Int(value), number >= 0 else { return nil }
            switch flag {
            case "--users": settings.users = number
            case "--days": settings.days = number
            case "--workers": settings.workers = number
            case "--seed": settings.seed = UInt64(number)
            case "--extra-nightly-runs": settings.extraNightlyRuns = number
            default: return nil
            }
        }
        return settings
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// `getrusage(RUSAGE_SELF).ru_maxrss` in MB. Not the benchmark's figure (it was until
/// 2026-12-06): on Linux it also keeps the peak of the program image this process replaced
/// by `execve`, so under `swift run` (which builds, then execs the product) it reports
/// SwiftPM's own peak, about 125 MB, whatever the benchmark does. It is read once at start,
/// before the benchmark does anything, to show that inherited part; after a reset of
/// VmHWM it mixes the inherited peak, the peaks at worker threads' exits and the peak since
/// the reset, so it is not read again.
func getrusagePeakMegabytes() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// The benchmark process's own memory, from /proc/self/status (Linux): `VmHWM`, the
/// highest resident set size of this process since it started or since the last
/// ``reset()``, and `VmRSS`, the current one. Both count every resident page mapped by this
/// process, all threads together: heap (every malloc arena), stacks, and the pages of the
/// program and its libraries (Swift runtime, Foundation, libpq) that were touched. They do
/// not count PostgreSQL's processes (the embedded cluster's postmaster and backends are
/// other processes) nor anything that exec'd this one.
///
/// The benchmark splits the run into steps: at the end of each it reads VmHWM (the step's
/// peak) and resets the high-water mark by writing "5" to /proc/self/clear_refs (Linux
/// 4.0 and later), which sets VmHWM to the current VmRSS. The whole run's peak is the
/// largest step peak.
struct ProcessMemory {
    struct Step {
        let name: String
        /// VmRSS when the step began (after the previous step's reset), in kB.
        let startKilobytes: Int
        /// VmHWM at the end of the step, in kB.
        let peakKilobytes: Int
    }

    private(set) var steps: [Step] = []
    /// False when /proc/self/clear_refs refused the reset: then each step's peak is the
    /// peak since the process started.
    private(set) var resetsWork = true
    private var stepStart: Int
    /// `ru_maxrss` and VmRSS when the benchmark started, in MB.
    let startGetrusagePeak: Double
    let startResident: Double

    init() {
        startGetrusagePeak = getrusagePeakMegabytes()
        stepStart = ProcessMemory.kilobytes("VmRSS") ?? 0
        startResident = Double(stepStart) / 1024
    }

    /// A field of /proc/self/status in kB ("VmHWM", "VmRSS", "RssAnon", "RssFile"), `nil`
    /// when unreadable.
    static func kilobytes(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return line.dropFirst(field.count + 1).split { $0 == " " || $0 == "\t" }.first.flatMap { Int($0) }
        }
        return nil
    }

    /// Sets VmHWM to the current VmRSS; false when the kernel refuses.
    static func reset() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// Ends the step `name`: records its peak, resets the high-water mark for the next step.
    mutating func endStep(_ name: String) {
        steps.append(Step(name: name, startKilobytes: stepStart, peakKilobytes: ProcessMemory.kilobytes("VmHWM") ?? 0))
        if !ProcessMemory.reset() { resetsWork = false }
        stepStart = ProcessMemory.kilobytes("VmRSS") ?? 0
    }

    /// The peak of the step `name` in MB.
    func peakMegabytes(_ name: String) -> Double {
        Double(steps.last { $0.name == name }?.peakKilobytes ?? 0) / 1024
    }

    /// The whole run's peak in MB.
    var wholeRunPeakMegabytes: Double { Double(steps.map(\.peakKilobytes).max() ?? 0) / 1024 }

    /// The table printed after the timings.
    func report() -> String {
        var lines = [
            "memory of this process only (not PostgreSQL's processes): VmHWM from /proc/self/status, "
                + (resetsWork
                    ? "reset after each step (echo 5 > /proc/self/clear_refs)"
                    : "NOT reset between steps (/proc/self/clear_refs refused): each peak is since start"),
            "step                                   start RSS MB  peak MB",
        ]
        for step in steps {
            lines.append(
                step.name.padding(toLength: 39, withPad: " ", startingAt: 0)
                    + String(
                        format: "%12.1f  %7.1f", Double(step.startKilobytes) / 1024, Double(step.peakKilobytes) / 1024)
            )
        }
        lines.append(String(format: "whole run (largest step peak)                       %7.1f", wholeRunPeakMegabytes))
        let anonymous = ProcessMemory.kilobytes("RssAnon").map { Double($0) / 1024 }
        let files = ProcessMemory.kilobytes("RssFile").map { Double($0) / 1024 }
        lines.append(
            "resident now: " + formatted(anonymous) + " MB anonymous (heap, stacks) + " + formatted(files)
                + " MB file-backed (program, libraries)")
        lines.append(
            String(
                format:
                    "getrusage ru_maxrss at start: %.1f MB, resident %.1f MB (ru_maxrss keeps the peak of the program that exec'd this one, e.g. swift run: not counted above)",
                startGetrusagePeak, startResident))
        return lines.joined(separator: "\n")
    }
}

/// CPU seconds (user + system) this process has used so far.
func clientCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// The fields of /proc/PID/stat after the command name (field 3, the state, first).
func processStatFields(_ pid: Int32) -> [Substring]? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return nil }
    return text[text.index(after: close)...].split(separator: " ")
}

/// The parent process id of `pid` from /proc, `nil` when unreadable.
func parentProcessID(of pid: Int32) -> Int32? {
    processStatFields(pid).flatMap { $0.count > 1 ? Int32($0[1]) : nil }
}

/// CPU seconds (user + system) the server has used so far, from /proc (`nil` when
/// unreadable, for example a remote server): the postmaster's own, its reaped children's
/// (finished backends) and its live children's (backends, background processes).
/// Counting live children too makes the figure independent of when a closed backend is
/// reaped.
func serverCPUSeconds(postmaster: Int32) -> Double? {
    func field(_ fields: [Substring], _ n: Int) -> Double { fields.count > n - 3 ? Double(fields[n - 3]) ?? 0 : 0 }
    guard let own = processStatFields(postmaster) else { return nil }
    var ticks = field(own, 14) + field(own, 15) + field(own, 16) + field(own, 17)
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    for entry in entries {
        guard let pid = Int32(entry), let fields = processStatFields(pid), fields.count > 1,
            Int32(fields[1]) == postmaster
        else { continue }
        ticks += field(fields, 14) + field(fields, 15)
    }
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// "12.34" or "n/a".
func formatted(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "n/a" }

func log(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

func copySamples(_ samples: [SleepSample], userID: Int64, on connection: Connection) throws {
    try connection.copyIn(
        "COPY sleep_samples (user_id, source, start_at, end_at, stage, time_zone, printed_utc_offset) FROM STDIN"
    ) { writer in
        for sample in samples {
            try writer.writeRow(
                [
                    .int64(userID), .text(sample.source), .timestamp(epochSeconds: sample.start),
                    .timestamp(epochSeconds: sample.end), .text(sample.stage.rawValue),
                    sample.timeZoneIdentifier.map { .text($0) }, sample.printedUTCOffset.map { .int(Int($0)) },
                ] as [SQLValue?])
        }
    }
}

/// Samples as the generator makes them can repeat a key (same source, instants and
/// stage); the table keeps one.
func unique(_ samples: [SleepSample]) -> [SleepSample] {
    struct Key: Hashable {
        let source: String
        let start: Int64
        let end: Int64
        let stage: SleepStage
    }
    var seen = Set<Key>()
    return samples.filter {
        seen.insert(Key(source: $0.source, start: $0.start, end: $0.end, stage: $0.stage)).inserted
    }
}

func main() throws {
    var memory = ProcessMemory()
    guard let settings = BenchmarkSettings.parse(Array(CommandLine.arguments.dropFirst())) else {
        log(BenchmarkSettings.usage)
        exit(64)
    }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    var cluster: EmbeddedCluster?
    var home: String?
    let conninfo: String
    if let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty {
        conninfo = url
    } else {
        var template = Array("/tmp/rollup-benchmark-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw ClusterError("mkdtemp failed") }
        let folder = template.withUnsafeBufferPointer { $0.baseAddress.map { String(cString: $0) } ?? "" }
        chmod(folder, 0o755)
        let embedded = EmbeddedCluster(home: folder, isDurable: true)
        _ = try embedded.start()
        cluster = embedded
        home = folder
        conninfo = embedded.conninfo()
    }
    defer {
        if let cluster { try? cluster.stop() }
        if let home { try? FileManager.default.removeItem(atPath: home) }
    }
    let connection = try Connection(conninfo: conninfo)
    let migrator = try Migrator(folder: root.appendingPathComponent("migrations").path)
    _ = try migrator.migrate(on: connection)

    // Load (not part of the goal).
    let clock = ContinuousClock()
    let generator = SleepStreamGenerator(seed: settings.seed)
    let lastEvening = settings.firstEvening.adding(days: settings.days - 1)
    let loadStart = clock.now
    // Lower-case ASCII handles are their own keys (UserHandle.key).
    try connection.execute(
        """
        INSERT INTO users (handle, handle_key, time_zone)
        SELECT 'user' || n, 'user' || n, 'Europe/Berlin' FROM generate_series(1, $1) n
        """, [.int(settings.users)])
    try connection.execute("INSERT INTO rollup_state (user_id) SELECT id FROM users")
    let ids = try connection.execute("SELECT id FROM users ORDER BY id").rows.compactMap { try $0.int64(0) }
    var loaded = 0
    for (index, id) in ids.enumerated() {
        let samples = unique(generator.samples(forUser: index, from: settings.firstEvening, through: lastEvening))
        try copySamples(samples, userID: id, on: connection)
        loaded += samples.count
        if index % 100 == 99 { log("loaded \(index + 1) users, \(loaded) samples") }
    }
    try connection.execute("VACUUM ANALYZE sleep_samples")
    log(String(format: "load: %d samples in %.1f s", loaded, seconds(clock.now - loadStart)))
    memory.endStep("start-up and load")

    // Server CPU: every server process (local servers only).
    let backendPID = try connection.execute("SELECT pg_backend_pid()").first?.int(0).map { Int32($0) }
    let postmasterPID = backendPID.flatMap(parentProcessID(of:))
    // Read half a second after a step, once the postmaster has reaped the step's backends
    // (a backend reaped between reading the postmaster and listing its children would be
    // missed).
    func serverCPU() -> Double? {
        usleep(500_000)
        return postmasterPID.flatMap(serverCPUSeconds(postmaster:))
    }
    func difference(_ before: Double?, _ after: Double?) -> Double? {
        guard let before, let after else { return nil }
        return after - before
    }

    // (a) the floor: every sample out through COPY, discarded.
    var floorRows = 0
    var floorBytes = 0
    // A checkpoint before each timed step, so that none lands inside one by chance.
    try connection.execute("CHECKPOINT")
    let floorClientBefore = clientCPUSeconds()
    let floorServerBefore = serverCPU()
    let floorStart = clock.now
    floorRows = try connection.copyOut(
        "COPY (SELECT user_id, source, start_at, end_at, stage, time_zone, printed_utc_offset FROM sleep_samples) TO STDOUT"
    ) { buffer in floorBytes += buffer.count }
    let floor = seconds(clock.now - floorStart)
    let floorClientCPU = clientCPUSeconds() - floorClientBefore
    let floorServerCPU = difference(floorServerBefore, serverCPU())
    log(String(format: "(a) COPY out: %d rows, %d MB in %.2f s", floorRows, floorBytes >> 20, floor))
    memory.endStep("(a) COPY out")

    // (b) rollup --all.
    let nowB = Int64(lastEvening.adding(days: 1).daysSinceEpoch) * 86_400 + 12 * 3_600
    let database = LedgerDatabase(
        configuration: DatabaseConfiguration(source: .url(conninfo)),
        migrationsFolder: root.appendingPathComponent("migrations").path)
    try connection.execute("CHECKPOINT")
    let fullClientBefore = clientCPUSeconds()
    let fullServerBefore = serverCPU()
    let fullStart = clock.now
    let full = try RollupService(
        database: database, settings: RollupSettings(isFullRebuild: true, workers: settings.workers)
    ).run(now: nowB)
    let fullSeconds = seconds(clock.now - fullStart)
    let fullClientCPU = clientCPUSeconds() - fullClientBefore
    let fullServerCPU = difference(fullServerBefore, serverCPU())
    memory.endStep("(b) rollup --all")
    log(
        String(
            format: "(b) rollup --all: %d users, %d samples read, %d nights, %d summaries in %.2f s; VmHWM %.1f MB",
            full.usersDone, full.samplesRead, full.nightsWritten, full.summariesWritten, fullSeconds,
            memory.peakMegabytes("(b) rollup --all")))

    // (c) one new night per user, then the nightly run the next day.
    let newEvening = lastEvening.adding(days: 1)
    var newSamples = 0
    for (index, id) in ids.enumerated() {
        let samples = unique(generator.samples(forUser: index, from: newEvening, through: newEvening))
        // Drop what the earlier load already holds (a night's samples can repeat the
        // previous evening's key only if they are identical).
        try connection.transaction { connection in
            try connection.execute(
                "CREATE TEMP TABLE IF NOT EXISTS incoming (LIKE sleep_samples) ON COMMIT DELETE ROWS")
            try connection.copyIn(
                "COPY incoming (user_id, source, start_at, end_at, stage, time_zone, printed_utc_offset) FROM STDIN"
            ) { writer in
                for sample in samples {
                    try writer.writeRow(
                        [
                            .int64(id), .text(sample.source), .timestamp(epochSeconds: sample.start),
                            .timestamp(epochSeconds: sample.end), .text(sample.stage.rawValue),
                            sample.timeZoneIdentifier.map { .text($0) }, sample.printedUTCOffset.map { .int(Int($0)) },
                        ] as [SQLValue?])
                }
            }
            try connection.execute("INSERT INTO sleep_samples SELECT * FROM incoming ON CONFLICT DO NOTHING")
            try connection.execute(
                "UPDATE rollup_state SET dirty_from = LEAST(dirty_from, $2) WHERE user_id = $1",
                [.int64(id), .date(newEvening)])
        }
        newSamples += samples.count
    }
    let nowC = nowB + 86_400
    // Steady state for the nightly run: the full rebuild just rewrote every night and
    // summary, and without this autovacuum cleans up after it during (c), on the same two
    // cores (a nightly run in service follows a day without such a rewrite). Not timed.
    try connection.execute("VACUUM ANALYZE")
    try connection.execute("CHECKPOINT")
    memory.endStep("one new night per user, VACUUM")
    let nightlyClientBefore = clientCPUSeconds()
    let nightlyServerBefore = serverCPU()
    let nightlyStart = clock.now
    let nightly = try RollupService(database: database, settings: RollupSettings(workers: settings.workers)).run(
        now: nowC)
    let nightlySeconds = seconds(clock.now - nightlyStart)
    let nightlyClientCPU = clientCPUSeconds() - nightlyClientBefore
    let nightlyServerCPU = difference(nightlyServerBefore, serverCPU())
    memory.endStep("(c) nightly")
    log(
        String(
            format:
                "(c) nightly: %d new samples; %d users, %d samples read, %d nights written in %.2f s; VmHWM %.1f MB",
            newSamples, nightly.usersDone, nightly.samplesRead, nightly.nightsWritten, nightlySeconds,
            memory.peakMegabytes("(c) nightly")))

    for run in 0..<settings.extraNightlyRuns {
        try connection.execute("CHECKPOINT")
        let clientBefore = clientCPUSeconds()
        let serverBefore = serverCPU()
        let start = clock.now
        let report = try RollupService(database: database, settings: RollupSettings(workers: settings.workers)).run(
            now: nowC + Int64(run + 1) * 86_400)
        let elapsed = seconds(clock.now - start)
        log(
            String(
                format: "extra nightly run %d: %d users in %.2f s; CPU s client %.2f, server ", run + 1,
                report.usersDone, elapsed, clientCPUSeconds() - clientBefore)
                + formatted(difference(serverBefore, serverCPU())))
        memory.endStep("extra nightly run \(run + 1)")
    }

    print(
        "users  days  samples     workers  (a) COPY s  (b) --all s  b/a    (c) nightly s  c/b     VmHWM MB (b)  (c)   run"
    )
    print(
        String(
            format: "%5d  %4d  %10d  %7d  %10.2f  %11.2f  %5.2f  %13.2f  %5.1f%%  %12.1f  %5.1f  %5.1f", settings.users,
            settings.days, loaded, settings.workers, floor, fullSeconds, fullSeconds / floor, nightlySeconds,
            100 * nightlySeconds / fullSeconds, memory.peakMegabytes("(b) rollup --all"),
            memory.peakMegabytes("(c) nightly"), memory.wholeRunPeakMegabytes))
    // CPU seconds: steadier than wall time on a shared machine. Server CPU is read from
    // /proc (n/a for a remote server); c/b uses client + server.
    func total(_ client: Double, _ server: Double?) -> Double? { server.map { client + $0 } }
    let fullTotal = total(fullClientCPU, fullServerCPU)
    let nightlyTotal = total(nightlyClientCPU, nightlyServerCPU)
    print("CPU s    (a) client  (a) server  (b) client  (b) server  (c) client  (c) server  b/a     c/b")
    print(
        "         "
            + [
                formatted(floorClientCPU), formatted(floorServerCPU), formatted(fullClientCPU),
                formatted(fullServerCPU), formatted(nightlyClientCPU), formatted(nightlyServerCPU),
            ].map { $0.padding(toLength: 12, withPad: " ", startingAt: 0) }.joined()
            + formatted(ratio(fullTotal, total(floorClientCPU, floorServerCPU)))
            + "   " + (ratio(nightlyTotal, fullTotal).map { String(format: "%.1f%%", 100 * $0) } ?? "n/a"))
    print(memory.report())
}

func ratio(_ numerator: Double?, _ denominator: Double?) -> Double? {
    guard let numerator, let denominator, denominator > 0 else { return nil }
    return numerator / denominator
}

do {
    try main()
} catch {
    log("rollup-benchmark: \(error)")
    exit(1)
}
