import Foundation
import Testing

/// `sleepledger-admin` stays small: it links neither the server's library (libmicrohttpd)
/// nor the password hashing's (libargon2), because it is built on the read-only services
/// only (docs/architecture.md). It does link libarchive, whose zip writer makes a person's
/// data export (`sleepledger-admin export`); the importer's reader code is not in it. `readelf -d` lists the shared
/// libraries the dynamic linker loads (`NEEDED`); `sleepledger`, which links all three,
/// shows that the check reads real output.
@Suite("sleepledger-admin links no server or password hashing")
struct AdminLinkageTests {
    /// The sonames `readelf -d` lists as `NEEDED` for the built executable `name`, such as
    /// `libpq.so.5`.
    static func neededLibraries(of name: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["readelf", "-d", builtProductsDirectory().appendingPathComponent(name).path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "readelf -d \(name) failed")
        // ` 0x0000000000000001 (NEEDED)             Shared library: [libpq.so.5]`
        return String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.contains("(NEEDED)") }
            .compactMap { line in
                guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]"), open < close else {
                    return nil
                }
                return String(line[line.index(after: open)..<close])
            }
    }

    @Test(
        "sleepledger needs the library, sleepledger-admin does not",
        arguments: ["libmicrohttpd", "libargon2"])
    func notLinked(library: String) throws {
        func needs(_ libraries: [String]) -> Bool { libraries.contains { $0.hasPrefix(library + ".so") } }
        let server = try Self.neededLibraries(of: "sleepledger")
        #expect(needs(server), "sleepledger's NEEDED entries: \(server)")
        let admin = try Self.neededLibraries(of: "sleepledger-admin")
        #expect(admin.contains { $0.hasPrefix("libpq.so") }, "sleepledger-admin's NEEDED entries: \(admin)")
        #expect(!needs(admin), "sleepledger-admin's NEEDED entries: \(admin)")
    }
}
