/// The SleepLedger release both executables report with `--version`.
public enum SleepLedgerVersion {
    /// Semantic version of this build.
    public static let current = "0.1.0"
}
