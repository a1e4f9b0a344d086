// admin-benchmark-data: fills a migrated database the way `sleepledger rollup` would, for
// Benchmarks/admin-benchmark.sh: USERS users with DAYS days of generated nights each, plus
// one user (`decade`) with 10 years of nights; nights, naps, six summaries per user and
// rollup_state bookkeeping. Deterministic (seeded generator, fixed as-of day).
//
// Usage: DATABASE_URL=<superuser conninfo> admin-benchmark-data [USERS] [DAYS]
// (defaults 1000 and 365). The database must be migrated and empty of these handles.
import Foundation
import LedgerStore
import PostgresClient
import SleepCore
import SleepFixtures

let arguments = CommandLine.arguments
let userCount = arguments.count > 1 ? Int(arguments[1]) ?? 1000 : 1000
let days = arguments.count > 2 ? Int(arguments[2]) ?? 365 : 365
let asOf = LocalDate(year: 2025, month: 3, day: 17)
let computedAt = Int64(asOf.daysSinceEpoch) * 86_400 + 4 * 3600
let zones = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Europe/London", "Australia/Sydney"]

guard let conninfo = ProcessInfo.processInfo.environment["DATABASE_URL"] else {
    FileHandle.standardError.write(Data("admin-benchmark-data: set DATABASE_URL\n".utf8))
    exit(64)
}

do {
    let connection = try Connection(conninfo: conninfo)
    defer { connection.close() }
    let users = UserStore(connection: connection)
    let nightStore = NightStore(connection: connection)
    let summaryStore = SummaryStore(connection: connection)
    let generator = SleepStreamGenerator(seed: 2025)
    let started = ContinuousClock.now

    func fill(handle: String, zone: String, user: Int, first: LocalDate) throws -> Int {
        let configuration = SleepStreamConfiguration(homeTimeZoneIdentifier: zone)
        let samples = SleepStreamGenerator(seed: generator.seed, configuration: configuration).samples(
            forUser: user, from: first, through: asOf.adding(days: -1))
        let built = NightBuilder().build(from: samples, userTimeZoneIdentifier: zone)
        let added = try users.add(handle: handle, timeZone: zone)
        try connection.transaction { _ in
            try nightStore.replace(userID: added.id, from: nil, nights: built.nights, naps: built.naps)
            try summaryStore.replace(
                userID: added.id, summaries: SummaryBuilder(nights: built.nights).summaries(asOf: asOf),
                computedAt: computedAt)
            try connection.execute(
                "UPDATE rollup_state SET last_as_of = $2, last_rollup_at = $3 WHERE user_id = $1",
                [.int64(added.id), .date(asOf), .timestamp(epochSeconds: computedAt)])
        }
        return built.nights.count
    }

    var nights = 0
    for user in 0..<userCount {
        nights += try fill(
            handle: String(format: "user%04d", user), zone: zones[user % zones.count], user: user,
            first: asOf.adding(days: -days))
        if (user + 1) % 100 == 0 {
            FileHandle.standardError.write(Data("admin-benchmark-data: \(user + 1) users\n".utf8))
        }
    }
    let decadeNights = try fill(
        handle: "decade", zone: "Europe/Berlin", user: userCount,
        first: LocalDate(year: asOf.year - 10, month: asOf.month, day: asOf.day))
    let seconds = Double((ContinuousClock.now - started).components.seconds)
    print(
        "filled \(userCount) users with \(nights) nights and user decade with \(decadeNights) nights in \(Int(seconds)) s"
    )
} catch {
    FileHandle.standardError.write(Data("admin-benchmark-data: \(error)\n".utf8))
    exit(70)
}
