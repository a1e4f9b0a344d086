import Foundation

/// The threads that do a request's blocking work (issue 20, F1): routing with its
/// database look-ups, the answer after a body (the spool's fsync, the content sniff, the
/// database, Argon2). libmicrohttpd's polling threads never block: they suspend the
/// connection, hand the work here, and the work resumes the connection when done. A
/// fixed number of threads take work first in, first out (the state behind `condition`).
final class RequestWorkers: @unchecked Sendable {
    /// The threads.
    let count: Int
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var busy = 0
    private var isStopping = false
    private var threads: [Thread] = []

    /// `count` threads (at least one), named after `name`.
    init(count: Int, name: String) {
        self.count = max(1, count)
        for index in 0..<self.count {
            let thread = Thread { [self] in run() }
            thread.name = "\(name)-\(index)"
            thread.stackSize = 1 << 20
            threads.append(thread)
        }
        for thread in threads { thread.start() }
    }

    /// Work waiting for a thread, and work being done now.
    var load: (waiting: Int, busy: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (queue.count - head, busy)
    }

    /// Runs `work` on one of the threads, after the work handed in before it.
    func submit(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(work)
        let isWaited = busy < count
        condition.unlock()
        // Signalled after the unlock: the woken thread does not wait for the lock.
        if isWaited { condition.signal() }
    }

    /// Lets the threads end once the work handed in is done.
    func stop() {
        condition.lock()
        isStopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while head == queue.count && !isStopping { condition.wait() }
            if head == queue.count {
                condition.unlock()
                return
            }
            let work = queue[head]
            head += 1
            if head > 1024 && head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            busy += 1
            condition.unlock()
            work()
            condition.lock()
            busy -= 1
            condition.unlock()
        }
    }
}
