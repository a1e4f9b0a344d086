/// One `sleepledger-admin` command: what it accepts, how it reads its arguments, and
/// what it does with a read-only ``AdminContext``.
protocol AdminCommand {
    /// The command's usage text (printed by `--help` and after usage errors).
    static var usage: String { get }
    /// Value-taking options.
    static var options: Set<String> { get }
    /// Boolean flags.
    static var flags: Set<String> { get }
    /// Validates the arguments before any connection is made.
    init(arguments: AdminArguments) throws
    /// Reads and prints, inside the command's read-only transaction.
    func run(_ context: AdminContext) throws
}
