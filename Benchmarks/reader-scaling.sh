#!/usr/bin/env bash
# Reader scaling on hostile inputs (docs/reliability.md, "Readers on hostile inputs").
#
# For each shape of Benchmarks/reader-scaling (a CSV line that never ends, a quote never
# closed, many rejected rows, deeply nested elements in sleep records, sleep records that
# never close, huge start tags read in small chunks, a zip of rejected records with long
# values, records and rows just under their caps), writes inputs of doubling sizes, reads
# each with HealthImportReader (release build) under /usr/bin/time, and prints per size:
# the result, the best wall time of the runs (the reader's own monotonic clock, so process
# start is not counted), the best CPU time of the read (user + system, both threads, from
# getrusage; it varies far less than wall time on a shared machine), CPU seconds per MB,
# and the peak resident set size (/usr/bin/time). Then a verdict per shape:
#   time:   each doubling of the input at most doubles the CPU time, within 10 % (runs
#           under 50 ms are compared as if they took 50 ms: at that scale the clock and
#           the process's start are the size of the read);
#   memory: the peak RSS of every run stays under RSS_LIMIT_MB (default 128).
# Exits 1 when a verdict fails.
#
# Usage: Benchmarks/reader-scaling.sh [--runs N] [--keep DIR] [--shapes "a b"] [--sizes "16MB 32MB"]
#   --runs N      repetitions per input (default 3; the best time and the highest RSS count)
#   --keep DIR    write the inputs to DIR and keep them (default: a temporary folder, removed)
#   --shapes      which shapes (default: all; `reader-scaling shapes` lists them)
#   --sizes       input sizes (default "16MB 32MB 64MB 128MB")
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
keep=""
shapes=""
sizes="16MB 32MB 64MB 128MB"
rss_limit_mb="${RSS_LIMIT_MB:-128}"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --shapes) shapes="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--keep DIR] [--shapes \"a b\"] [--sizes \"16MB 32MB\"]" >&2; exit 64 ;;
  esac
done

[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
swift build -c release --product reader-scaling >/dev/null
tool="$(swift build -c release --show-bin-path)/reader-scaling"

if [ -n "$keep" ]; then
  work="$keep"
  mkdir -p "$work"
else
  work=$(mktemp -d /tmp/reader-scaling.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
[ -n "$shapes" ] || shapes=$("$tool" shapes | cut -f1 | tr '\n' ' ')

echo "reader-scaling: $(uname -m), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"\
  "load $(cut -d' ' -f1-3 /proc/loadavg), $(swift --version 2>&1 | head -1 | sed 's/ (.*//'), release build, best of $runs"
printf '%-34s %7s  %-8s %8s %8s %9s %6s %7s  %s\n' shape size result "wall s" "CPU s" "CPU s/MB" ratio "RSS MB" detail

failed=0
bytes_of() {
  local upper=${1^^}
  case "$upper" in
    *GB) echo $(( ${upper%GB} << 30 )) ;;
    *MB) echo $(( ${upper%MB} << 20 )) ;;
    *KB) echo $(( ${upper%KB} << 10 )) ;;
    *) echo "$upper" ;;
  esac
}

# run_series LABEL SHAPE "SIZES" [READ OPTIONS...]
run_series() {
  local label="$1" shape="$2" series="$3"
  shift 3
  local previous_seconds="" previous_bytes="" verdict_time="ok" verdict_memory="ok" worst_ratio="0"
  local max_rss_mb=0
  for size in $series; do
    local format
    format=$("$tool" shapes | awk -F'\t' -v s="$shape" '$1 == s { print $2 }')
    local input="$work/$shape-$size.$format"
    [ -f "$input" ] || "$tool" generate --shape "$shape" --size "$size" --output "$input"
    local best="" best_cpu="" rss_kb=0 line=""
    for _ in $(seq "$runs"); do
      line=$(/usr/bin/time -f '%M' -o "$work/time.txt" "$tool" read "$@" "$input")
      local seconds cpu kb
      seconds=$(sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' <<<"$line")
      cpu=$(sed -n 's/.* cpuSeconds=\([0-9.]*\).*/\1/p' <<<"$line")
      kb=$(tail -1 "$work/time.txt")
      if [ -z "$best" ] || awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a < b) }'; then best="$seconds"; fi
      if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN { exit !(a < b) }'; then best_cpu="$cpu"; fi
      [ "$kb" -gt "$rss_kb" ] && rss_kb="$kb"
    done
    local bytes result detail ratio="-" rss_mb
    bytes=$(bytes_of "$size")
    result=$(sed -n 's/^result=\([a-z-]*\).*/\1/p' <<<"$line")
    if [ "$result" = "ok" ]; then
      detail=$(sed -n 's/.*rejected=\([0-9]*\) diagnosticsKept=\([0-9]*\) diagnosticsNotKept=\([0-9]*\) diagnosticsJSONBytes=\([0-9]*\).*/rejected \1, kept \2, not kept \3, diagnostics JSON \4 B/p' <<<"$line")
      detail="accepted $(sed -n 's/.* accepted=\([0-9]*\).*/\1/p' <<<"$line"), $detail"
    else
      detail=$(sed -n 's/.*error="bad file [^,]*, \(.*\)".*/\1/p' <<<"$line")
    fi
    rss_mb=$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')
    if [ -n "$previous_seconds" ]; then
      # CPU time ratio over size ratio: 1.00 is linear; the verdict allows 1.10.
      ratio=$(awk -v t="$best_cpu" -v p="$previous_seconds" -v b="$bytes" -v q="$previous_bytes" \
        'BEGIN { floor = 0.05; if (p < floor) p = floor; if (t < floor) t = floor; printf "%.2f", (t / p) / (b / q) }')
      if awk -v r="$ratio" 'BEGIN { exit !(r > 1.10) }'; then verdict_time="FAIL"; fi
      if awk -v r="$ratio" -v w="$worst_ratio" 'BEGIN { exit !(r > w) }'; then worst_ratio="$ratio"; fi
    fi
    if awk -v r="$rss_mb" -v l="$rss_limit_mb" 'BEGIN { exit !(r >= l) }'; then verdict_memory="FAIL"; fi
    if awk -v r="$rss_mb" -v m="$max_rss_mb" 'BEGIN { exit !(r > m) }'; then max_rss_mb="$rss_mb"; fi
    printf '%-34s %7s  %-8s %8.3f %8.3f %9.4f %6s %7s  %s\n' "$label" "$size" "$result" "$best" "$best_cpu" \
      "$(awk -v t="$best_cpu" -v b="$bytes" 'BEGIN { printf "%.4f", t / (b / 1048576) }')" "$ratio" "$rss_mb" "$detail"
    previous_seconds="$best_cpu"
    previous_bytes="$bytes"
    [ -n "$keep" ] || rm -f "$input"
  done
  echo "  verdict $label: time $verdict_time (worst CPU time ratio per doubling $worst_ratio, limit 1.10), memory $verdict_memory (peak $max_rss_mb MB, limit $rss_limit_mb MB)"
  [ "$verdict_time" = ok ] && [ "$verdict_memory" = ok ] || failed=1
}

for shape in $shapes; do
  case "$shape" in
    xml-long-tags)
      run_series "$shape (1 MiB reads)" "$shape" "$sizes"
      run_series "$shape (16 KiB reads)" "$shape" "$sizes" --chunk-bytes 16KB
      ;;
    *) run_series "$shape" "$shape" "$sizes" ;;
  esac
done
exit "$failed"
