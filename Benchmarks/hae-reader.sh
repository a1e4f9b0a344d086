#!/usr/bin/env bash
# Health Auto Export payloads at the route's cap: time and peak memory of the reader
# (docs/benchmarks.md, "Health Auto Export reader").
#
# Writes payloads of about SIZE bytes (default 64MB, the route's cap) with make-export in
# four layouts: sleep entries with each metric's name first (name-first), the same with the
# data before the name, which the reader must keep until the name arrives (data-first),
# half of the bytes heart-rate entries (mixed), and 12-hour dates with a narrow no-break
# space (12-hour). Reads each with HealthImportReader (make-export --read, release build),
# checks it as the upload server does before queuing a push (make-export --check:
# HealthImportReader.check, no samples built) and, as the baseline, parses it with
# Foundation's JSONSerialization (make-export --read-foundation: the whole file in memory,
# then a tree of objects), each under /usr/bin/time, and prints
# the best wall time of the runs (the tool's own monotonic clock, so the process start is
# not counted), MB/s and the highest peak RSS. The floor of a run is in the last row (a
# tiny payload).
#
# Usage: Benchmarks/hae-reader.sh [--runs N] [--size 64MB] [--keep DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
size=64MB
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--size 64MB] [--keep DIR]" >&2; exit 64 ;;
  esac
done

[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
swift build -c release --product make-export >/dev/null
tool="$(swift build -c release --show-bin-path)/make-export"

if [ -n "$keep" ]; then
  work="$keep"
  mkdir -p "$work"
else
  work=$(mktemp -d /tmp/hae-reader.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi

echo "hae-reader: $(uname -m), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"\
  "load $(cut -d' ' -f1-3 /proc/loadavg), $(swift --version 2>&1 | head -1 | sed 's/ (.*//'), release build, best of $runs"
printf '%-12s %-22s %10s %9s %8s %8s  %s\n' payload reader bytes "wall s" "MB/s" "RSS MB" result

# measure LABEL READER FILE MODE
measure() {
  local label="$1" reader="$2" file="$3" mode="$4" best="" rss_kb=0 line="" bytes
  for _ in $(seq "$runs"); do
    line=$(/usr/bin/time -f '%M' -o "$work/time.txt" "$tool" "$mode" "$file" | tr '\n' ' ')
    local seconds kb
    seconds=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' <<<"$line")
    kb=$(tail -1 "$work/time.txt")
    if [ -z "$best" ] || awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a < b) }'; then best="$seconds"; fi
    [ "$kb" -gt "$rss_kb" ] && rss_kb="$kb"
  done
  bytes=$(stat -c %s "$file")
  local result
  if [ "$mode" = "--read" ]; then
    result=$(sed -n 's/.*accepted=\([0-9]*\) rejected=\([0-9]*\).*/accepted \1, rejected \2/p' <<<"$line")
  elif [ "$mode" = "--check" ]; then
    result=$(sed -n 's/.*kind=\([a-z]*\).*/checked: \1/p' <<<"$line")
  else
    result=$(sed -n 's/.*entries=\([0-9]*\).*/entries \1 (not checked)/p' <<<"$line")
  fi
  printf '%-12s %-22s %10s %9.3f %8.1f %8.1f  %s\n' "$label" "$reader" "$bytes" "$best" \
    "$(awk -v b="$bytes" -v t="$best" 'BEGIN { printf "%.1f", b / 1048576 / t }')" \
    "$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')" "$result"
}

for layout in name-first data-first mixed 12-hour; do
  file="$work/$layout.json"
  if [ ! -f "$file" ]; then
    case "$layout" in
      12-hour) "$tool" --size "$size" --format hae --hae-clock 12 --output "$file" >/dev/null ;;
      *) "$tool" --size "$size" --format hae --hae-layout "$layout" --output "$file" >/dev/null ;;
    esac
  fi
  measure "$layout" "HealthImportReader" "$file" --read
  measure "$layout" "check (server)" "$file" --check
  measure "$layout" "JSONSerialization" "$file" --read-foundation
done
tiny="$work/tiny.json"
[ -f "$tiny" ] || "$tool" --size 1KB --format hae --output "$tiny" >/dev/null
measure "tiny" "HealthImportReader" "$tiny" --read
