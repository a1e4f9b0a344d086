// What both executables share (the console, arguments, errors, exit codes, configuration)
// is the target `CLICommon`; every file here and every caller of `LedgerCLI` sees it through
// this one import (docs/architecture.md).
@_exported public import CLICommon
