// libFuzzer's driver, called from the fuzzer's own `main` (SwiftPM names an executable's
// entry point after its module, so libFuzzer's `main` is never linked in). Defined by
// libclang_rt.fuzzer, which `-sanitize=fuzzer` links; only deploy/fuzz/run.sh's build calls it.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
