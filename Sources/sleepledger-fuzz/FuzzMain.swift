// The fuzz targets of SleepLedger in one executable (one link instead of one per target).
//
// Built by deploy/fuzz/run.sh with `-sanitize=fuzzer,address -DFUZZING`: the first argument names
// the target, the rest go to libFuzzer (`sleepledger-fuzz xml -max_total_time=60 corpus`).
// In an ordinary debug build the same targets compile (so they keep up with the code) and
// the executable replays files through one: `sleepledger-fuzz xml crash-1234 ...`, which
// reproduces a crash without the sanitizers. A release build outside deploy/fuzz/run.sh has no
// targets: they reach internal types through `@testable import`.
import Foundation

#if FUZZING
    import CLibFuzzer
#endif

/// One fuzz target: a name and a function that must not crash on any bytes.
struct FuzzTarget: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (UnsafeRawBufferPointer) -> Void
}

/// The targets, by name.
let fuzzTargets: [FuzzTarget] = {
    #if DEBUG || FUZZING
        return readerTargets + [httpTarget]
    #else
        return []
    #endif
}()

/// The target libFuzzer's callback runs (set once, before the driver starts).
nonisolated(unsafe) private var selected: FuzzTarget?

@main
enum FuzzMain {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = fuzzTargets.first(where: { $0.name == arguments[1] }) else {
            var usage = "usage: sleepledger-fuzz TARGET [libFuzzer flags | files to replay]\ntargets:\n"
            for target in fuzzTargets { usage += "  \(target.name): \(target.summary)\n" }
            if fuzzTargets.isEmpty { usage += "  (none: build with deploy/fuzz/run.sh or in debug)\n" }
            FileHandle.standardError.write(Data(usage.utf8))
            exit(arguments.count == 2 && arguments[1] == "--list" ? 0 : 2)
        }
        selected = target
        #if FUZZING
            // libFuzzer sees the program name and the flags, without the target's name.
            var argc = CommandLine.argc - 1
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            argv?[1] = argv?[0]
            argv = argv.map { $0 + 1 }
            exit(
                LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                    selected?.run(UnsafeRawBufferPointer(start: data, count: size))
                    return 0
                })
        #else
            for path in arguments.dropFirst(2) {
                guard let data = FileManager.default.contents(atPath: path) else {
                    FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                    exit(1)
                }
                data.withUnsafeBytes { target.run($0) }
                print("\(target.name): \(path): \(data.count) bytes, no crash")
            }
        #endif
    }
}

/// Feeds `bytes` to `feed` in pieces whose size follows from the input's length (the
/// whole input for one length in seven, else 1 to 61 bytes), so that the readers' chunk
/// boundaries are fuzzed without a prefix byte that would change every seed.
func inChunks(_ bytes: UnsafeRawBufferPointer, _ feed: (UnsafeRawBufferPointer) throws -> Void) rethrows {
    let size = bytes.count % 7 == 0 ? max(bytes.count, 1) : bytes.count % 61 + 1
    var start = 0
    while start < bytes.count {
        let end = min(start + size, bytes.count)
        try feed(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        start = end
    }
}
