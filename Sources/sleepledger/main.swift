import Foundation
import LedgerCLI

let code = SleepLedgerTool.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment, console: .standard)
exit(code.rawValue)
