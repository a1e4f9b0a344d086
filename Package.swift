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
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),

        // Glibc's posix_spawn extensions and wait-status macros for Swift (a tiny C shim).
        .target(name: "CProcessShims"),
        // ICU's case folding and normalization behind plain C types (libicu-dev; Foundation's
        // own ICU declares the same type names, so ICU's headers stay inside the C file).
        .target(name: "CICU", linkerSettings: [.linkedLibrary("icuuc")]),

        // Pure sleep math: no I/O, no clock.
        .target(name: "SleepCore"),
        // Seeded generator of realistic sample streams, for tests and benchmarks.
        .target(name: "SleepFixtures", dependencies: ["SleepCore"]),
        // SHA-256, HMAC, secure random bytes and constant-time comparison through libcrypto.
        .target(name: "LedgerCrypto", dependencies: ["COpenSSL"]),
        // Argon2id password hashes through libargon2 (a target of its own, so what needs only
        // SHA-256, such as HealthImport, does not link libargon2).
        .target(name: "LedgerPasswordHash", dependencies: ["CArgon2"]),
        // Readers: export.zip / export.xml / CSV to SleepCore samples plus diagnostics.
        .target(name: "HealthImport", dependencies: ["SleepCore", "CArchive", "LedgerCrypto"]),
        // Reports from SleepCore values: SVG charts, duration, time and label formatting.
        .target(name: "SleepReports", dependencies: ["SleepCore"]),
        // The PostgreSQL client on libpq: connections, parameters, rows, COPY, pipelining,
        // transactions, errors with SQLSTATE. Knows no sleep types.
        .target(name: "PostgresClient", dependencies: ["CLibPQ"]),
        // The private cluster of the embedded default (initdb, pg_ctl) and its OS helpers.
        .target(name: "EmbeddedPostgres", dependencies: ["PostgresClient", "CProcessShims"]),
        // Repositories and migrations: SleepLedger's tables on top of the client (ICU for
        // the handle keys).
        .target(name: "LedgerStore", dependencies: ["PostgresClient", "SleepCore", "CICU"]),
        // The services' basics (where the database is, sessions, ServiceError) and the read-only
        // use cases: users, summaries, nights, debt, the imports list, the users overview, a
        // person's data export (a zip written with libarchive). No importer, no password
        // hashing, no server: all the admin tool links.
        .target(
            name: "LedgerReadServices",
            dependencies: [
                "LedgerStore", "PostgresClient", "EmbeddedPostgres", "SleepCore", "SleepReports", "CArchive",
            ]),
        // The use cases every front end calls: import, rollup, users, summaries, tokens, passwords.
        .target(
            name: "LedgerServices",
            dependencies: [
                "LedgerReadServices", "LedgerStore", "PostgresClient", "EmbeddedPostgres", "HealthImport",
                "LedgerCrypto", "LedgerPasswordHash", "SleepCore", "SleepReports",
            ]),
        // The upload server: HTTP on libmicrohttpd, routes, spooling, the import workers.
        .target(
            name: "LedgerServer",
            dependencies: [
                "CMicroHTTPD", "LedgerServices", "LedgerStore", "LedgerCrypto", "HealthImport", "SleepReports",
                "WebPages",
            ],
            // The API's OpenAPI document (docs/openapi.json links here), compiled into the binary.
            resources: [.embedInCode("OpenAPI/openapi.json")]),
        // The web pages: HTML strings rendered from plain values (no I/O, no database, no server
        // types) and the static assets they link, compiled into the binary.
        .target(
            name: "WebPages", dependencies: ["SleepCore", "SleepReports"],
            resources: [
                .embedInCode("Assets/app.css"), .embedInCode("Assets/app.js"), .embedInCode("Assets/upload.js"),
                .embedInCode("Assets/icon.svg"),
            ]),
        // Every web page rendered from generated nights, for WebPagesTests and web-pages-preview.
        .target(name: "WebPageFixtures", dependencies: ["WebPages", "SleepCore", "SleepFixtures"]),
        // What both executables share: console, argument parsing, configuration, output formats,
        // errors and exit codes.
        .target(name: "CLICommon", dependencies: ["LedgerReadServices", "LedgerStore", "SleepCore", "SleepReports"]),
        // The commands of `sleepledger`: database, migrations, users, import, rollup, tokens, the server.
        .target(
            name: "LedgerCLI",
            dependencies: [
                "CLICommon", "LedgerServices", "LedgerServer", "SleepReports", "LedgerStore", "HealthImport",
                "SleepCore", "CProcessShims",
            ]),
        // The commands of the read-only `sleepledger-admin`, on the read-only services only.
        .target(
            name: "AdminCLI",
            dependencies: ["CLICommon", "LedgerReadServices", "LedgerStore", "SleepCore", "SleepReports"]),

        // Test support: a throwaway PostgreSQL cluster and fresh databases for tests, and a zip
        // reader (libarchive) for checking what an export holds.
        .target(
            name: "LedgerTestSupport",
            dependencies: ["PostgresClient", "EmbeddedPostgres", "LedgerStore", "SleepCore", "CArchive"]),
        // Writes realistic export.xml / export.zip / CSV files from samples, for tests and benchmarks.
        .target(name: "ExportFixtures", dependencies: ["SleepCore", "SleepFixtures", "CArchive"]),

        .executableTarget(name: "sleepledger", dependencies: ["LedgerCLI"]),
        .executableTarget(name: "sleepledger-admin", dependencies: ["AdminCLI"]),

        // Benchmarks: `swift run -c release <name>`; results in docs/benchmarks.md.
        .executableTarget(
            name: "sleepcore-benchmark", dependencies: ["SleepCore", "SleepFixtures"],
            path: "Benchmarks/sleepcore-benchmark"),
        .executableTarget(
            name: "make-export", dependencies: ["ExportFixtures", "SleepFixtures", "HealthImport"],
            path: "Benchmarks/make-export"),
        .executableTarget(
            name: "reader-scaling", dependencies: ["HealthImport", "ExportFixtures"], path: "Benchmarks/reader-scaling"),
        .executableTarget(
            name: "admin-benchmark-data",
            dependencies: ["LedgerStore", "PostgresClient", "SleepCore", "SleepFixtures"],
            path: "Benchmarks/admin-benchmark-data"),
        .executableTarget(
            name: "rollup-benchmark",
            dependencies: [
                "LedgerServices", "LedgerStore", "PostgresClient", "EmbeddedPostgres", "SleepCore", "SleepFixtures",
            ],
            path: "Benchmarks/rollup-benchmark"),

        // Writes every web page into a folder to look at in a browser (docs/web-pages.md).
        .executableTarget(
            name: "web-pages-preview", dependencies: ["WebPageFixtures", "WebPages"],
            path: "Benchmarks/web-pages-preview"),

        // Fuzzing: `deploy/fuzz/run.sh` builds this with libFuzzer and AddressSanitizer; an ordinary
        // debug build compiles its targets too and replays files through them.
        .systemLibrary(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
        .executableTarget(
            name: "sleepledger-fuzz",
            dependencies: ["HealthImport", "LedgerServer", "LedgerServices", "SleepCore", "CLibFuzzer"],
            path: "Sources/sleepledger-fuzz"),

        .testTarget(name: "SleepCoreTests", dependencies: ["SleepCore", "SleepFixtures"]),
        .testTarget(name: "LedgerCryptoTests", dependencies: ["LedgerCrypto"]),
        .testTarget(name: "LedgerPasswordHashTests", dependencies: ["LedgerPasswordHash", "LedgerCrypto"]),
        .testTarget(
            name: "HealthImportTests",
            dependencies: ["HealthImport", "LedgerCrypto", "SleepCore", "SleepFixtures", "ExportFixtures"],
            exclude: ["Fixtures"]),
        .testTarget(name: "PostgresClientTests", dependencies: ["PostgresClient", "LedgerTestSupport"]),
        .testTarget(
            name: "EmbeddedPostgresTests", dependencies: ["EmbeddedPostgres", "PostgresClient", "LedgerTestSupport"]),
        .testTarget(
            name: "LedgerStoreTests",
            dependencies: ["LedgerStore", "PostgresClient", "LedgerTestSupport", "SleepCore", "SleepFixtures"]),
        .testTarget(
            name: "LedgerServicesTests",
            dependencies: [
                "LedgerServices", "LedgerStore", "PostgresClient", "EmbeddedPostgres", "LedgerTestSupport", "SleepCore",
                "SleepFixtures", "HealthImport", "ExportFixtures", "LedgerCrypto", "LedgerPasswordHash",
                "LedgerReadServices",
            ]),
        .testTarget(
            name: "LedgerServerTests",
            dependencies: [
                "LedgerServer", "LedgerServices", "LedgerStore", "PostgresClient", "LedgerTestSupport", "SleepCore",
                "WebPages",
            ]),
        .testTarget(
            name: "WebPagesTests",
            dependencies: ["WebPages", "WebPageFixtures", "SleepCore", "SleepReports", "SleepFixtures"]),
        .testTarget(name: "SleepReportsTests", dependencies: ["SleepReports", "SleepCore"]),
        .testTarget(
            name: "LedgerCLITests",
            dependencies: [
                "LedgerCLI", "AdminCLI", "CLICommon", "LedgerServer", "LedgerServices", "LedgerReadServices",
                "LedgerStore", "PostgresClient", "LedgerTestSupport", "SleepCore",
                "SleepFixtures", "SleepReports", "sleepledger", "sleepledger-admin", "HealthImport", "ExportFixtures",
                "make-export", "WebPages",
            ],
            exclude: ["Golden", "openapi-conformance.py"]
        ),
    ]
)

// Strict compiler for every Swift target (swift-log's Package.swift does the same).
for target in package.targets where target.type != .system && !["CProcessShims", "CICU"].contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
