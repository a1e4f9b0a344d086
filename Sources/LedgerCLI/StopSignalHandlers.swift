import Dispatch
import Glibc

/// While installed, SIGTERM and SIGINT call `onStop` instead of ending the process: the
/// rollup's stop, and the wait of `serve` and `worker` (``ServeCommand/waitForStopSignal()``).
final class StopSignalHandlers {
    private var sources: [any DispatchSourceSignal] = []
    private var previous: [(Int32, sighandler_t?)] = []

    /// Ignores SIGTERM and SIGINT as signals and calls `onStop` on a global queue for each.
    init(onStop: @escaping @Sendable () -> Void) {
        for number in [SIGTERM, SIGINT] {
            previous.append((number, signal(number, SIG_IGN)))
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { onStop() }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops calling `onStop`; the signals stay ignored, so a second one during a clean
    /// shutdown does not cut it short.
    func cancel() {
        for source in sources { source.cancel() }
    }

    /// Stops calling `onStop` and gives the signals their previous handlers back.
    func restore() {
        cancel()
        for (number, handler) in previous { signal(number, handler) }
    }
}
