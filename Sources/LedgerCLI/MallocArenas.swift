import CProcessShims

/// glibc gives threads up to 8 malloc arenas per core and seldom returns what is freed in
/// them, so a process of many threads holds more memory than its work needs: the server's
/// resident memory climbed with every import under a long load (deploy/soak.sh: +38 % in
/// ten minutes), and the rollup took about 5.5 MB more per worker (docs/benchmarks.md,
/// "Memory, measured"). Two arenas hold both level.
enum MallocArenas {
    /// Limits glibc to two malloc arenas, unless `MALLOC_ARENA_MAX` in `environment` decides.
    static func limit(_ environment: [String: String]) {
        if environment["MALLOC_ARENA_MAX"] == nil { _ = CProcessShims_limitMallocArenas(2) }
    }
}
