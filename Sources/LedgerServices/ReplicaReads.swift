import Foundation
import Glibc
import PostgresClient
import Synchronization

/// Reads sent to a replica (`SLEEPLEDGER_READ_DATABASE_URL`) while each person still reads
/// their own writes: the server keeps, per person, the primary's WAL position at that
/// person's last request on the primary (a write, or a read such as the imports status a
/// client polls), and sends the person's reads to the replica only once the replica has
/// replayed up to it, waiting at most ``maximumWaitSeconds``; otherwise to the primary.
///
/// The positions live in this process: with several server processes a person's next
/// request may reach another one, which has not seen their write (docs/operations.md, "High
/// availability").
public final class ReplicaReads: Sendable {
    /// The replica's sessions.
    public let sessions: SessionPool
    /// How long a read waits for the replica to reach the person's position: 200 ms.
    public static let maximumWaitSeconds = 0.2
    private let seen = Mutex<[Int64: UInt64]>([:])
    private let replayed = Mutex<UInt64>(0)

    /// Reads through `sessions`, the replica's pool.
    public init(sessions: SessionPool) {
        self.sessions = sessions
    }

    /// A WAL position as PostgreSQL writes it (`16/B374D848`), as one number; `nil` for
    /// anything else.
    public static func position(_ text: String) -> UInt64? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16),
            high <= UInt64(UInt32.max), low <= UInt64(UInt32.max)
        else { return nil }
        return high << 32 | low
    }

    /// Records the primary's current WAL position (read on a session of `primary`) as the
    /// one person `userID` has seen; a failure to read it records nothing (the person's
    /// earlier position stays).
    public func recordPrimaryPosition(userID: Int64, primary: SessionPool) {
        guard
            let text = try? primary.withSession({ session in
                try session.connection.execute("SELECT pg_current_wal_lsn()::text", name: "replica.primaryPosition")
                    .first?.string(0)
            }), let position = Self.position(text)
        else { return }
        seen.withLock { positions in positions[userID] = max(positions[userID] ?? 0, position) }
    }

    /// The position this process last recorded for `userID`; `nil` when none.
    public func recordedPosition(userID: Int64) -> UInt64? {
        seen.withLock { $0[userID] }
    }

    /// Whether person `userID`'s reads may go to the replica now: nothing recorded for
    /// them, or the replica has replayed up to their position (asked again every 10 ms
    /// for at most ``maximumWaitSeconds``). A read URL that reached a primary (no replay
    /// position) is always caught up; a replica that cannot be asked is not.
    public func isCaughtUp(userID: Int64) -> Bool {
        guard let needed = seen.withLock({ $0[userID] }) else { return true }
        if replayed.withLock({ $0 }) >= needed { return true }
        let deadline = ContinuousClock.now + .milliseconds(Int(Self.maximumWaitSeconds * 1000))
        while true {
            guard let position = replayPosition() else { return false }
            if position >= needed { return true }
            if ContinuousClock.now >= deadline { return false }
            usleep(10_000)
        }
    }

    /// The replica's replay position, read now (and kept as the last known); `UInt64.max`
    /// when the read URL reached a primary; `nil` when it cannot be asked.
    private func replayPosition() -> UInt64? {
        guard
            let text = try? sessions.withSession({ session in
                try session.connection.execute(
                    "SELECT coalesce(pg_last_wal_replay_lsn()::text, 'primary')", name: "replica.replayPosition"
                ).first?.string(0)
            })
        else { return nil }
        let position = text == "primary" ? UInt64.max : Self.position(text) ?? 0
        replayed.withLock { $0 = max($0, position) }
        return position
    }

    /// The replica's lag in seconds: 0 when it has replayed all it received, else the time
    /// since the last transaction it replayed committed on the primary
    /// (`now() - pg_last_xact_replay_timestamp()`); 0 for a read URL that reached a primary;
    /// `nil` when it cannot be asked.
    public func lagSeconds() -> Double? {
        try? sessions.withSession(timeout: 2) { session in
            try session.connection.execute(
                """
                SELECT CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                    ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 0) END::float8
                """, name: "replica.lag"
            ).first?.double(0)
        } ?? nil
    }
}
