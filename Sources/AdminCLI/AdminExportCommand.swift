import CLICommon
import Foundation
import Glibc
import LedgerReadServices

/// `sleepledger-admin export HANDLE --output FILE.zip`: all of a person's data as the zip
/// they download from the settings page (``LedgerReadServices/DataExport``), written as
/// it is read into a file only its owner may read, which replaces `FILE.zip` once complete.
struct AdminExportCommand: AdminCommand {
    static let usage = """
        Usage: sleepledger-admin export HANDLE --output FILE.zip

        Writes all of the user's data as one zip, the same as their "Download all my data":
        samples.csv (every stored sample, in the CSV form `sleepledger import` reads),
        nights.csv and naps.csv, summaries/HORIZON.json (docs/summary-json.md) and
        imports.json. The file is created with mode 0600 (it is health data) and appears
        only once complete.
        """
    static let options: Set<String> = ["output"]
    static let flags: Set<String> = []

    let handle: String
    let output: String

    init(arguments: AdminArguments) throws {
        handle = try arguments.handle()
        guard let output = arguments.value("output"), !output.isEmpty else {
            throw CLIError.usage("missing --output FILE.zip", help: Self.usage)
        }
        self.output = output
    }

    func run(_ context: AdminContext) throws {
        let user = try context.user(handle)
        let partial = output + ".partial"
        func failure(_ what: String, _ code: Int32) -> CLIError {
            CLIError(
                .noInput, "cannot write \(MessageText.escaped(output)): \(what): \(String(cString: strerror(code)))")
        }
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create \(MessageText.escaped(partial))", errno) }
        var isComplete = false
        defer {
            close(descriptor)
            if !isComplete { unlink(partial) }
        }
        // An existing partial file keeps its mode through O_TRUNC: make it the owner's only.
        guard fchmod(descriptor, 0o600) == 0 else { throw failure("chmod", errno) }
        let contents = try DataExport(session: context.session).write(
            userID: user.id, now: Int64(Date().timeIntervalSince1970)
        ) { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw failure("write", errno)
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw failure("fsync", errno) }
        guard rename(partial, output) == 0 else { throw failure("rename", errno) }
        isComplete = true
        context.console.print(
            "Wrote the data of \(contents.handle) to \(MessageText.escaped(output)): \(contents.samples) samples, "
                + "\(contents.nights) nights, \(contents.naps) naps, \(contents.summaries.count) summaries, "
                + "\(contents.imports) imports")
    }
}
