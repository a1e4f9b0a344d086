#!/usr/bin/env bash
# Runs the database tests (client, embedded cluster, repositories, services) under a leak checker and fails on any definite leak (for
# example a PGresult without PQclear, a PGconn without PQfinish, a PQfreemem forgotten
# after COPY) or, with AddressSanitizer, any invalid memory access.
#
#   deploy/leakcheck.sh                       # all database tests, LeakSanitizer
#   deploy/leakcheck.sh 'CopyTests'           # a Swift Testing --filter of your choice
#   LEAKCHECK_TOOL=valgrind deploy/leakcheck.sh
#
# LeakSanitizer (default): the package is built with `--sanitize=address` into
# .build/leakcheck (your normal .build is untouched) and the test binary is run with
# detect_leaks=1. LSan intercepts malloc for the whole process, so allocations made inside
# libpq are tracked even though libpq itself is not instrumented. "Direct leak" is a
# definite leak and fails the run.
#
# valgrind: memcheck with --errors-for-leak-kinds=definite. valgrind is installed with
# apt-get when missing. Note: Debian 12's valgrind 3.19 crashes on start-up in
# libdispatch's signal thread (rt_sigsuspend) of Swift 6 test binaries, so this mode only
# works with a newer valgrind; LeakSanitizer is the default for that reason.
#
# Suppressions: deploy/lsan.supp and deploy/valgrind.supp, for Swift runtime / Foundation
# noise only. A suppression must never cover libpq, PostgresClient or LedgerStore.
set -euo pipefail

cd "$(dirname "$0")/.."
filter="${1:-PostgresClientTests|EmbeddedPostgresTests|LedgerStoreTests|LedgerServicesTests}"
tool="${LEAKCHECK_TOOL:-lsan}"
log="$(mktemp /tmp/sleepledger-leakcheck-XXXXXX.log)"

run_lsan() {
    swift build --build-tests --sanitize=address --scratch-path .build/leakcheck
    local binary=.build/leakcheck/debug/SleepLedgerPackageTests.xctest
    echo "leakcheck: running '$filter' with LeakSanitizer (log: $log)" >&2
    set +e
    ASAN_OPTIONS="detect_leaks=1:exitcode=97:abort_on_error=0" \
    LSAN_OPTIONS="suppressions=$PWD/deploy/lsan.supp:print_suppressions=1:exitcode=97" \
        "$binary" --testing-library swift-testing --filter "$filter" >"$log" 2>&1
    local status=$?
    set -e
    grep -E "Test run with|SUMMARY: AddressSanitizer|Suppressions used" -A3 "$log" >&2 || true
    if grep -q "ERROR: AddressSanitizer" "$log"; then
        echo "leakcheck: FAILED: AddressSanitizer found a memory error; see $log" >&2
        grep -n -A30 "ERROR: AddressSanitizer" "$log" | head -n 60 >&2
        exit 1
    fi
    if grep -q "Direct leak" "$log"; then
        echo "leakcheck: FAILED: definite leaks; see $log" >&2
        grep -n -A16 "Direct leak" "$log" | head -n 120 >&2
        exit 1
    fi
    if [[ $status -ne 0 ]]; then
        echo "leakcheck: FAILED: the tests failed (exit status $status); see $log" >&2
        tail -n 40 "$log" >&2
        exit 1
    fi
}

run_valgrind() {
    if ! command -v valgrind >/dev/null 2>&1; then
        echo "leakcheck: installing valgrind" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq valgrind
    fi
    swift build --build-tests
    local binary
    binary="$(swift build --show-bin-path)/SleepLedgerPackageTests.xctest"
    echo "leakcheck: running '$filter' under valgrind (log: $log)" >&2
    set +e
    valgrind --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
        --error-exitcode=97 --suppressions=deploy/valgrind.supp --num-callers=40 --log-file="$log" \
        "$binary" --testing-library swift-testing --filter "$filter"
    local status=$?
    set -e
    grep -E "definitely lost|ERROR SUMMARY" "$log" | tail -n 2 >&2 || true
    if grep -q "VALGRIND INTERNAL ERROR\|the 'impossible' happened" "$log"; then
        echo "leakcheck: FAILED: valgrind itself crashed (see the note at the top of this script); see $log" >&2
        exit 1
    fi
    if [[ $status -ne 0 ]]; then
        echo "leakcheck: FAILED: valgrind found errors or definite leaks, or tests failed (status $status); see $log" >&2
        grep -n -A25 "definitely lost in" "$log" | head -n 120 >&2 || true
        exit 1
    fi
}

case "$tool" in
    lsan) run_lsan ;;
    valgrind) run_valgrind ;;
    *) echo "leakcheck: LEAKCHECK_TOOL must be lsan or valgrind, not $tool" >&2; exit 64 ;;
esac
echo "leakcheck: OK: no definite leaks, no memory errors ($tool, filter '$filter')" >&2
rm -f "$log"
