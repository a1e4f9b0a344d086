import Foundation
import HealthImport
import LedgerServices

/// The progress line of `sleepledger import` on standard error: input bytes done of the
/// total when known, throughput, sleep samples found and the time left. Redrawn in place
/// (`\r`) at most ``interval`` apart; silent when disabled (not a terminal, `--quiet`).
final class ImportProgressLine {
    /// Shortest time between two redraws: four per second.
    static let interval: Duration = .milliseconds(250)

    private let console: Console
    private let isEnabled: Bool
    private let name: String
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDrawn: ContinuousClock.Instant?
    private var hasDrawn = false

    init(console: Console, isEnabled: Bool, name: String) {
        self.console = console
        self.isEnabled = isEnabled
        self.name = MessageText.escaped(name)
        started = clock.now
    }

    /// Redraws the line if enough time passed since the last redraw.
    func update(_ progress: ImportProgress) {
        guard isEnabled else { return }
        let now = clock.now
        if let lastDrawn, now - lastDrawn < Self.interval { return }
        lastDrawn = now
        hasDrawn = true
        // The program's own carriage return and line clear; the file name is a value.
        console.writeError("\r\u{1B}[2K\(Self.text(progress, name: name, elapsed: now - started))" as TerminalText)
    }

    /// Clears the line so the summary or an error starts on a clean line.
    func finish() {
        guard isEnabled, hasDrawn else { return }
        console.writeError("\r\u{1B}[2K" as TerminalText)
        hasDrawn = false
    }

    /// `export.zip  12.3 of 35.9 MB (34%)  81.2 MB/s  1234 sleep samples  ETA 0:03`.
    static func text(_ progress: ImportProgress, name: String, elapsed: Duration) -> String {
        let seconds = max(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, 0.001)
        let megabytes = Double(progress.inputBytesRead) / 1_000_000
        let rate = megabytes / seconds
        var text = "\(name)  " + String(format: "%.1f", megabytes)
        if let total = progress.inputBytesTotal, total > 0 {
            let totalMegabytes = Double(total) / 1_000_000
            let percent = min(100, Int(Double(progress.inputBytesRead) * 100 / Double(total)))
            text += " of " + String(format: "%.1f MB (%d%%)", totalMegabytes, percent)
        } else {
            text += " MB"
        }
        text += String(format: "  %.1f MB/s  %d sleep samples", rate, progress.sleepRecords)
        if let total = progress.inputBytesTotal, rate > 0, total >= progress.inputBytesRead {
            let left = Int((Double(total - progress.inputBytesRead) / 1_000_000 / rate).rounded())
            text += String(format: "  ETA %d:%02d", left / 60, left % 60)
        }
        return text
    }
}
