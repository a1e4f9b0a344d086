import Foundation

extension Migrator {
    /// Finds the migrations folder: `SLEEPLEDGER_MIGRATIONS` when set; else
    /// `<executable folder>/../share/sleepledger/migrations`; else the first
    /// `migrations/` holding a `0001_*.sql` file in the executable's folder, the current
    /// folder, or any folder above them. `nil` when none is found.
    public static func locateMigrationsFolder(
        environment: [String: String], executablePath: String? = nil, currentDirectory: String? = nil
    ) -> String? {
        if let configured = environment["SLEEPLEDGER_MIGRATIONS"], !configured.isEmpty { return configured }
        let executable =
            executablePath ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        var starts: [String] = []
        if let executable {
            let folder = ((executable as NSString).resolvingSymlinksInPath as NSString).deletingLastPathComponent
            let installed = ((folder as NSString).deletingLastPathComponent as NSString)
                .appendingPathComponent("share/sleepledger/migrations")
            if isMigrationsFolder(installed) { return installed }
            starts.append(folder)
        }
        starts.append(currentDirectory ?? FileManager.default.currentDirectoryPath)
        for start in starts {
            var folder = start
            while true {
                let candidate = (folder as NSString).appendingPathComponent("migrations")
                if isMigrationsFolder(candidate) { return candidate }
                let parent = (folder as NSString).deletingLastPathComponent
                if parent == folder || parent.isEmpty { break }
                folder = parent
            }
        }
        return nil
    }

    /// Whether `path` is a folder holding a `0001_*.sql` file.
    public static func isMigrationsFolder(_ path: String) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return false }
        return names.contains { $0.hasPrefix("0001_") && $0.hasSuffix(".sql") }
    }
}
