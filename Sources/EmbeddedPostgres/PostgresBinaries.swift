import Foundation
import Glibc

/// The folder holding a matching `initdb` and `pg_ctl`: the first on `PATH`, else the
/// highest-numbered `/usr/lib/postgresql/<version>/bin`.
struct PostgresBinaries: Sendable {
    var initdb: String
    var pgCtl: String

    static func locate(path: String? = ProcessInfo.processInfo.environment["PATH"]) throws -> PostgresBinaries {
        var folders = (path ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap { name in Double(name).map { (name, $0) } }
            .sorted { $0.1 > $1.1 }
        folders += versions.map { "/usr/lib/postgresql/\($0.0)/bin" }
        for folder in folders {
            let initdb = folder + "/initdb"
            let pgCtl = folder + "/pg_ctl"
            if access(initdb, X_OK) == 0, access(pgCtl, X_OK) == 0 {
                return PostgresBinaries(initdb: initdb, pgCtl: pgCtl)
            }
        }
        throw ClusterError(
            "cannot find PostgreSQL's initdb and pg_ctl on PATH or in /usr/lib/postgresql/*/bin",
            detail: "install the PostgreSQL server (for example `apt-get install postgresql`) or set DATABASE_URL")
    }
}
