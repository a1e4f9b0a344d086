#!/usr/bin/env bash
# Builds SleepLedger's fuzz targets with libFuzzer and AddressSanitizer and runs each for a
# given time, one after the other, printing executions, executions per second, coverage and
# crashes. Usage: deploy/fuzz/run.sh [--seconds N] [TARGET...]   (default: 60 s, every target)
#
# Build:     .build/fuzz/build (release, -sanitize=fuzzer,address, -enable-testing, -DFUZZING, lld;
#            a scratch path of its own: SwiftPM empties its scratch path's artifacts folder)
# Corpus:    Tests/FuzzCorpus/<target> (the committed seeds, read only) and .build/fuzz/corpus/<target>
#            (what the runs add; kept between runs)
# Crashes:   .build/fuzz/artifacts/<target>/ (crash-*, timeout-*, oom-*, leak-*)
# Logs:      .build/fuzz/logs/<target>.log
# Replay:    swift build && .build/debug/sleepledger-fuzz <target> <file>... (no sanitizers), or
#            .build/fuzz/build/release/sleepledger-fuzz <target> <file>... (with them)
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=60
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#--seconds=}"; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done

out=.build/fuzz
build="$out/build"
echo "building the fuzzers in $build ..."
mkdir -p "$out"
nice -n 19 swift build -c release --scratch-path "$build" --product sleepledger-fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -DFUZZING -Xswiftc -use-ld=lld \
  >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fuzzer="$build/release/sleepledger-fuzz"

if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <("$fuzzer" --list 2>&1 | sed -n 's/^  \([a-z-]*\): .*/\1/p')
fi

status=0
printf '%-13s %8s %12s %9s %7s %7s %8s\n' target seconds executions exec/s cov ft crashes
for target in "${targets[@]}"; do
  seeds="Tests/FuzzCorpus/$target"
  corpus="$out/corpus/$target"
  artifacts="$out/artifacts/$target"
  log="$out/logs/$target.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  [ -d "$seeds" ] || { echo "no seed corpus $seeds" >&2; exit 2; }
  # The licensed real-world fixtures are seeds too, read in place.
  extra=()
  case "$target" in
    xml|zip) extra+=(Tests/HealthImportTests/Fixtures/real) ;;
  esac
  case "$target" in
    hae|zip) extra+=(Tests/HealthImportTests/Fixtures/hae) ;;
  esac
  # FoundationXML leaks 72 bytes per malformed record (deploy/fuzz/lsan.supp): with libFuzzer's
  # leak check after each such input the XML targets would run 10 to 20 times slower, so
  # they check for leaks only at exit.
  leaks=1
  case "$target" in
    xml|sleep-record|zip) leaks=0 ;;
  esac
  before=$(find "$artifacts" -type f 2>/dev/null | wc -l)
  started=$(date +%s)
  # Exits non-zero at a crash; the table says so.
  LSAN_OPTIONS="suppressions=$PWD/deploy/fuzz/lsan.supp:print_suppressions=0" nice -n 19 "$fuzzer" "$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=$leaks -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" "$seeds" "${extra[@]}" >"$log" 2>&1 || true
  elapsed=$(( $(date +%s) - started ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.*(cov|ft):' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  crashes=$(( $(find "$artifacts" -type f 2>/dev/null | wc -l) - before ))
  printf '%-13s %8s %12s %9s %7s %7s %8s\n' "$target" "$elapsed" "${runs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
    "$crashes"
  if [ "$crashes" -gt 0 ] || ! grep -q '^stat::number_of_executed_units' "$log"; then
    status=1
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*Fatal error|.*Precondition failed|artifact_prefix)' "$log" | head -5 \
      | sed 's/^/    /'
  fi
done
exit $status
