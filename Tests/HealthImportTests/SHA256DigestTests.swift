import LedgerCrypto
import Testing

@testable import HealthImport

struct SHA256DigestTests {
    @Test func knownVectors() {
        // FIPS 180-2 test vectors.
        #expect(
            SHA256Digest.hex(of: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256Digest.hex(of: [UInt8]())
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func reportHashesTheRawInput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A CSV whose bytes are exactly "abc"-free; hash compared with the digest of the same bytes.
        let text =
            "sourceName,startDate,endDate,value\nW,2024-01-01T00:00:00Z,2024-01-01T01:00:00Z,AsleepCore\n"
        let path = try directory.write("s.csv", text)
        let outcome = try readAll(.path(path))
        #expect(outcome.report.sha256 == SHA256Digest.hex(of: Array(text.utf8)))
        #expect(outcome.report.inputBytes == Int64(text.utf8.count))
    }
}
