import Foundation
import Testing

/// docs/architecture.md's targets table and Package.swift name the same targets: every name
/// in the table's first column is a target, and every target but the test targets is in the
/// table (test targets may be named; a backticked name with a `/`, such as `Tests/Browser`,
/// is a folder, not a target). Both files are read from this repository as text.
@Suite("docs/architecture.md matches Package.swift")
struct ArchitectureDocTests {
    /// The targets of Package.swift's text: the `name:` of every `.target`,
    /// `.executableTarget`, `.systemLibrary` and `.testTarget`, with whether it is a test.
    static func packageTargets(_ manifest: String) -> [(name: String, isTest: Bool)] {
        let pattern = #/\.(target|executableTarget|systemLibrary|testTarget)\(\s*name:\s*"([^"]+)"/#
        return manifest.matches(of: pattern).map { (String($0.output.2), $0.output.1 == "testTarget") }
    }

    /// The names in the first column of the table under `## Targets`, between backticks.
    static func tableTargets(_ document: String) -> [String] {
        let lines = document.components(separatedBy: "\n")
        guard let heading = lines.firstIndex(of: "## Targets") else { return [] }
        let rows = lines[(heading + 1)...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }.dropFirst(2)
        return rows.flatMap { row in
            let cell = row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().first ?? ""
            return cell.matches(of: #/`([^`]+)`/#).map { String($0.output.1) }.filter { !$0.contains("/") }
        }
    }

    /// One sentence per target named on one side only.
    static func mismatches(manifest: String, document: String) -> [String] {
        let targets = packageTargets(manifest)
        let all = Set(targets.map(\.name))
        let table = tableTargets(document)
        let named = Set(table)
        return table.filter { !all.contains($0) }.map {
            "docs/architecture.md names `\($0)` in its targets table, but Package.swift has no target of that name"
        }
            + targets.filter { !$0.isTest && !named.contains($0.name) }.map {
                "Package.swift has the target `\($0.name)`, but the targets table of docs/architecture.md does not name it"
            }
    }

    @Test("every target in the table exists, every target but the tests is in the table")
    func sameTargets() throws {
        let manifest = try repositoryFile("Package.swift")
        let document = try repositoryFile("docs/architecture.md")
        #expect(Self.packageTargets(manifest).count > 20, "Package.swift's targets were not found")
        #expect(Self.tableTargets(document).count > 20, "docs/architecture.md's targets table was not found")
        for mismatch in Self.mismatches(manifest: manifest, document: document) {
            Issue.record(Comment(rawValue: mismatch))
        }
    }

    @Test("a target missing on either side is named")
    func missingTargetsAreNamed() {
        let manifest = """
            .target(name: "SleepCore"),
            .executableTarget(
                name: "make-export", dependencies: ["SleepCore"]),
            .systemLibrary(name: "CLibPQ", pkgConfig: "libpq"),
            .testTarget(name: "SleepCoreTests", dependencies: ["SleepCore"]),
            """
        let document = """
            # Architecture

            ## Targets

            | target | kind | holds | depends on |
            |---|---|---|---|
            | `SleepCore` | library | sleep math | Foundation |
            | `CLibPQ`, `CGone` | system libraries | C | `Debian` |
            | `Tests/Browser` | scripts | browser tests | chromium |

            The graph (`NotATarget` is not in the table).
            """
        #expect(Self.tableTargets(document) == ["SleepCore", "CLibPQ", "CGone"])
        #expect(
            Self.mismatches(manifest: manifest, document: document) == [
                "docs/architecture.md names `CGone` in its targets table, but Package.swift has no target of that name",
                "Package.swift has the target `make-export`, but the targets table of docs/architecture.md does not name it",
            ])
    }
}
