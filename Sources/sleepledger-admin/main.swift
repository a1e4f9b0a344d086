import AdminCLI
import Foundation

let code = AdminTool.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment, console: .standard)
exit(code.rawValue)
