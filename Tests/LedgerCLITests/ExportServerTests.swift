import Foundation
import LedgerCLI
import LedgerTestSupport
import Testing

/// "Download all my data" through the real `sleepledger serve` and `sleepledger-admin
/// export` on a real database: the zip, opened with libarchive, holds what was uploaded.
@Suite("sleepledger serve and sleepledger-admin: download all my data", .serialized)
struct ExportServerTests {
    /// The zip's files by name (the folder dropped).
    static func files(_ path: String) throws -> [String: String] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var files: [String: String] = [:]
        for entry in try ZipEntries.read(bytes) {
            files[String(entry.name.dropFirst("sleepledger-export/".count))] = String(
                decoding: entry.bytes, as: UTF8.self)
        }
        return files
    }

    @Test(
        "the API streams the zip (chunked, no length) with what was uploaded; the admin tool writes the same to a 0600 file"
    )
    func download() throws {
        let server = try ServerProcess(["--workers", "1"])
        let token = try AccountServerTests.user("anna", server)
        let uploaded = AccountServerTests.csv(nights: 30)
        try AccountServerTests.upload(
            ["-H", "Content-Type: text/csv", "--data-binary", uploaded], token: token, server)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let apiZip = folder.appendingPathComponent("api.zip").path
        let response = try server.curl("/api/v1/me/export", ["-o", apiZip], token: token)
        #expect(response.status == 200 && response.headers["content-type"] == "application/zip")
        #expect(response.headers["transfer-encoding"] == "chunked" && response.headers["content-length"] == nil)
        #expect(response.headers["cache-control"] == "no-store")
        #expect(
            response.headers["content-disposition"]?.hasPrefix("attachment; filename=\"sleepledger-export-") == true)
        let files = try Self.files(apiZip)

        // The samples are the uploaded rows: same source, instants and stage, in order.
        let sent = uploaded.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        let samples = parseCSV(try #require(files["samples.csv"]))
        #expect(samples.first == ["sourceName", "startDate", "endDate", "value", "timeZone"])
        #expect(samples.dropFirst().map { Array($0.prefix(4)) } == sent)
        #expect(samples.dropFirst().allSatisfy { $0.last == "" }, "the upload gave no zone")

        // One night per uploaded sleep, the upload's import, and the summary the API serves.
        let nights = parseCSV(try #require(files["nights.csv"]))
        #expect(nights.count == 31 && Set(nights.dropFirst().map { $0[0] }).count == 30)
        let importsText = try #require(files["imports.json"])
        let imports = try #require(try JSONSerialization.jsonObject(with: Data(importsText.utf8)) as? [String: Any])
        let only = (imports["imports"] as? [[String: Any]])?.first
        #expect(only?["id"] as? Int == 1 && only?["state"] as? String == "done")
        #expect((only?["counts"] as? [String: Any])?["inserted"] as? Int == 30)
        let weekly = try server.curl("/api/v1/summary?horizon=weekly", token: token)
        #expect(
            AccountServerTests.canonical(try #require(files["summaries/weekly.json"]))
                == AccountServerTests.canonical(weekly.body))

        // The admin tool's file: the same contents, only its owner may read it.
        let admin = try AccountServerTests.adminEnvironment(server)
        let adminZip = folder.appendingPathComponent("admin.zip").path
        let (code, printed) = runAdmin(["export", "ANNA", "--output", adminZip], environment: admin)
        #expect(code == .success, "\(printed.errorText)")
        #expect(printed.printed.contains("30 samples, 30 nights"), "\(printed.printed)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: adminZip)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let adminFiles = try Self.files(adminZip)
        #expect(adminFiles.keys.sorted() == files.keys.sorted())
        #expect(adminFiles["samples.csv"] == files["samples.csv"] && adminFiles["nights.csv"] == files["nights.csv"])

        // Refusals: no --output (64), an unknown handle (66) leaves no file; an ingest token 403.
        #expect(runAdmin(["export", "anna"], environment: admin).0 == .usage)
        let missing = folder.appendingPathComponent("nobody.zip").path
        #expect(runAdmin(["export", "nobody", "--output", missing], environment: admin).0 == .noInput)
        #expect(
            !FileManager.default.fileExists(atPath: missing)
                && !FileManager.default.fileExists(atPath: missing + ".partial"))
        let ingest = try AccountServerTests.user("anna", server, scope: "ingest")
        #expect(try server.curl("/api/v1/me/export", token: ingest).status == 403)
    }
}
