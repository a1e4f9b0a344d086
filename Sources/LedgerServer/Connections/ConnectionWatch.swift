import Foundation
import Glibc
import Synchronization

/// One open connection as the ``ConnectionWatch`` sees it: its socket, the address key it
/// is counted under, where it is (``ConnectionDeadlines/Phase``) and why it was cut, if it
/// was. Made when libmicrohttpd tells of the connection's start, kept with the connection
/// (its socket context) until libmicrohttpd tells of its close.
final class WatchedConnection: Sendable {
    /// The connection's socket (owned by libmicrohttpd; only ever shut down here).
    let socket: Int32
    /// The key its address is counted under; `nil` when it is not counted (the trusted proxy).
    let addressKey: String?
    private let state: Mutex<(phase: ConnectionDeadlines.Phase, cut: ConnectionDeadlines.Cut?)>

    init(socket: Int32, addressKey: String?, now: Double) {
        self.socket = socket
        self.addressKey = addressKey
        state = Mutex((.head(since: now), nil))
    }

    /// Why the watch cut the connection; `nil` when it did not.
    var cut: ConnectionDeadlines.Cut? { state.withLock { $0.cut } }

    /// The connection now waits for a request head (a new one, or the next on a kept-alive
    /// connection).
    func awaitHead(now: Double) { state.withLock { $0.phase = .head(since: now) } }

    /// The request's body starts arriving.
    func awaitBody(now: Double) { state.withLock { $0.phase = .body(ConnectionDeadlines.Body(started: now)) } }

    /// The server's turn (routing, answering, sending): no deadline of the watch.
    func serve() { state.withLock { $0.phase = .serving } }

    /// `count` more body bytes arrived.
    func received(_ count: Int) {
        state.withLock { state in
            guard case .body(var body) = state.phase else { return }
            body.receivedBytes += Int64(count)
            state.phase = .body(body)
        }
    }

    /// Applies `deadlines` at `now`: the cut, when the connection is to be cut now.
    func check(_ deadlines: ConnectionDeadlines, now: Double) -> ConnectionDeadlines.Cut? {
        state.withLock { state in
            guard state.cut == nil, let cut = deadlines.verdict(&state.phase, now: now) else { return nil }
            state.cut = cut
            return cut
        }
    }
}

/// Watches every connection of a listener (issue 20, F1): counts them by address key for
/// the per-address limit (libmicrohttpd's accept policy asks ``admits(_:)``), and once a
/// second applies the ``ConnectionDeadlines``, shutting down the socket of a connection
/// whose head or body is too slow; libmicrohttpd then sees the connection fail and closes
/// it. A socket is shut down only while its connection is registered: libmicrohttpd tells
/// of a close before it closes the socket, so a number reused by a later socket is never
/// touched.
final class ConnectionWatch: Sendable {
    /// The deadlines applied.
    let deadlines: ConnectionDeadlines
    /// Connections at once per address key.
    let perAddressLimit: Int
    private let registry = Mutex(Registry())
    private let onCut: @Sendable (ConnectionDeadlines.Cut) -> Void
    private let running = Mutex<Thread?>(nil)
    private let stopping = Atomic<Bool>(false)

    private struct Registry {
        var open: [ObjectIdentifier: WatchedConnection] = [:]
        var byAddress: [String: Int] = [:]
    }

    /// A watch applying `deadlines`, allowing `perAddressLimit` connections per address
    /// key; `onCut` is told of each cut (metrics).
    init(
        deadlines: ConnectionDeadlines, perAddressLimit: Int,
        onCut: @escaping @Sendable (ConnectionDeadlines.Cut) -> Void = { _ in }
    ) {
        self.deadlines = deadlines
        self.perAddressLimit = perAddressLimit
        self.onCut = onCut
    }

    /// The monotonic clock the watch and its connections use, in seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Connections open now.
    var openCount: Int { registry.withLock { $0.open.count } }

    /// Whether a new connection counted under `key` may open (`nil`: not counted).
    func admits(_ key: String?) -> Bool {
        guard let key else { return true }
        return registry.withLock { ($0.byAddress[key] ?? 0) < perAddressLimit }
    }

    /// Registers a connection that started on `socket`, counted under `key`.
    func opened(socket: Int32, key: String?, now: Double = ConnectionWatch.now()) -> WatchedConnection {
        let connection = WatchedConnection(socket: socket, addressKey: key, now: now)
        registry.withLock { registry in
            registry.open[ObjectIdentifier(connection)] = connection
            if let key { registry.byAddress[key, default: 0] += 1 }
        }
        return connection
    }

    /// Forgets a connection libmicrohttpd is about to close.
    func closed(_ connection: WatchedConnection) {
        registry.withLock { registry in
            guard registry.open.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
            if let key = connection.addressKey, let count = registry.byAddress[key] {
                registry.byAddress[key] = count > 1 ? count - 1 : nil
            }
        }
    }

    /// Applies the deadlines to every connection at `now`, shutting down those cut;
    /// returns how many were cut.
    @discardableResult
    func check(now: Double = ConnectionWatch.now()) -> Int {
        let cuts = registry.withLock { registry in
            var cuts: [ConnectionDeadlines.Cut] = []
            for connection in registry.open.values {
                guard let cut = connection.check(deadlines, now: now) else { continue }
                // Under the registry's lock: the socket is still the connection's.
                _ = shutdown(connection.socket, Int32(SHUT_RDWR))
                cuts.append(cut)
            }
            return cuts
        }
        for cut in cuts { onCut(cut) }
        return cuts.count
    }

    /// Starts checking once a second on a thread of its own.
    func start() {
        running.withLock { running in
            guard running == nil else { return }
            let thread = Thread { [self] in
                while !stopping.load(ordering: .acquiring) {
                    check()
                    usleep(1_000_000)
                }
            }
            thread.name = "connection-watch"
            thread.start()
            running = thread
        }
    }

    /// Stops checking (within a second).
    func stop() { stopping.store(true, ordering: .releasing) }
}
