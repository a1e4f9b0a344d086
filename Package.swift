// swift-tools-version:6.0
// SleepLedger: server-side sleep debt from Apple Health exports.
import PackageDescription

let package = Package(
    name: "SleepLedger",
    products: [
        .executable(name: "sleepledger", targets: ["sleepledger"]),
        .executable(name: "sleepledger-admin", targets: ["sleepledger-admin"]),
        .library(name: "SleepCore", targets: ["SleepCore"]),
    ],
    targets: [
        // C libraries from Debian packages.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),

        // Pure sleep math: no I/O, no clock.
        .target(name: "SleepCore"),
        // Seeded generator of realistic sample streams, for tests and benchmarks.
        .target(name: "SleepFixtures", dependencies: ["SleepCore"]),
        // Readers: export.zip / export.xml / CSV to SleepCore samples plus diagnostics.
        .target(name: "HealthImport", dependencies: ["SleepCore", "CArchive", "COpenSSL"]),
        // The only code that speaks to PostgreSQL.
        .target(name: "LedgerStore", dependencies: ["CLibPQ", "SleepCore"]),
        // Argument parsing, configuration and the commands behind both executables.
        .target(name: "LedgerCLI", dependencies: ["SleepCore", "LedgerStore", "HealthImport"]),

        // Test support: a throwaway PostgreSQL cluster and fresh databases for tests.
        .target(name: "LedgerTestSupport", dependencies: ["LedgerStore"]),
        // Writes realistic export.xml / export.zip / CSV files from samples, for tests and benchmarks.
        .target(name: "ExportFixtures", dependencies: ["SleepCore", "SleepFixtures", "CArchive"]),

        .executableTarget(name: "sleepledger", dependencies: ["LedgerCLI"]),
        .executableTarget(name: "sleepledger-admin", dependencies: ["LedgerCLI"]),

        // Benchmarks: `swift run -c release <name>`; results in docs/benchmarks.md.
        .executableTarget(
            name: "sleepcore-benchmark", dependencies: ["SleepCore", "SleepFixtures"],
            path: "Benchmarks/sleepcore-benchmark"),
        .executableTarget(
            name: "make-export", dependencies: ["ExportFixtures", "SleepFixtures", "HealthImport"],
            path: "Benchmarks/make-export"),
        .executableTarget(
            name: "admin-benchmark-data", dependencies: ["LedgerStore", "SleepCore", "SleepFixtures"],
            path: "Benchmarks/admin-benchmark-data"),
        .executableTarget(
            name: "rollup-benchmark", dependencies: ["LedgerStore", "SleepCore", "SleepFixtures"],
            path: "Benchmarks/rollup-benchmark"),

        .testTarget(name: "SleepCoreTests", dependencies: ["SleepCore", "SleepFixtures"]),
        .testTarget(
            name: "HealthImportTests", dependencies: ["HealthImport", "SleepCore", "SleepFixtures", "ExportFixtures"]),
        .testTarget(
            name: "LedgerStoreTests", dependencies: ["LedgerStore", "LedgerTestSupport", "SleepCore", "SleepFixtures"]),
        .testTarget(
            name: "LedgerCLITests",
            dependencies: [
                "LedgerCLI", "LedgerStore", "LedgerTestSupport", "SleepCore", "SleepFixtures", "sleepledger",
                "sleepledger-admin", "HealthImport", "ExportFixtures",
            ],
            exclude: ["Golden"]
        ),
    ]
)

// Strict compiler for every Swift target (swift-log's Package.swift does the same).
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
