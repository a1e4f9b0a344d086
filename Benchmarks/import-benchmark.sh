#!/usr/bin/env bash
# End-to-end importer benchmark (docs/benchmarks.md, "Importer").
#
# Generates seeded exports (zip and bare XML) of the given XML sizes and a CSV of about
# 100 MB, then in one run times, for each size and repetition:
#   bsdtar -xOf export.zip > /dev/null        (inflating alone: the yardstick)
#   sleepledger import --user <fresh> FILE    (reading, hashing, COPY, merge, commit)
# against a throwaway embedded PostgreSQL cluster under a temporary SLEEPLEDGER_HOME, with
# a fresh user per run so every run inserts everything. Wall time and peak RSS come from
# /usr/bin/time -v; CPU seconds of the import process (user + sys) and of its server
# backend (the postmaster's reaped children, from /proc) are printed too, as they vary
# far less than wall time on a shared machine. Prints throughput (MB of XML per second for zip and XML runs, MB of
# input for CSV) and the ratio import speed / bsdtar speed.
#
# Usage: Benchmarks/import-benchmark.sh [--runs N] [--keep DIR] [--kinds "zip xml"] [--no-csv] [SIZE...]
#   SIZE defaults to "500MB 2GB" (the size of export.xml); --runs defaults to 3;
#   --keep DIR reuses/keeps generated exports in DIR (they take a while to write);
#   --kinds limits the XML inputs timed (default "zip xml"); --no-csv skips the CSV runs.
#   SLEEPLEDGER_MIGRATIONS, when set, is the migrations folder the cluster is built from
#   (e.g. a copy without the newest migration, to time a schema change with one binary);
#   IMPORT_BENCHMARK_BIN, when set, is the folder of the sleepledger and make-export to
#   time instead of this checkout's release build (e.g. an older build, for A/B runs).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
keep=""
kinds="zip xml"
csv_runs=yes
sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --kinds) kinds="$2"; shift 2 ;;
    --no-csv) csv_runs=no; shift ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(500MB 2GB)

need() { command -v "$1" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need bsdtar libarchive-tools
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }

if [ -n "${IMPORT_BENCHMARK_BIN:-}" ]; then
  bin="$IMPORT_BENCHMARK_BIN"
else
  swift build -c release --product sleepledger >/dev/null
  swift build -c release --product make-export >/dev/null
  bin="$(swift build -c release --show-bin-path)"
fi

work="$(mktemp -d /tmp/sleepledger-bench.XXXXXX)"
chmod 0755 "$work"   # as root, the cluster runs as an unprivileged user who must reach it
data="${keep:-$work/data}"
mkdir -p "$data"
unset DATABASE_URL PGHOST PGHOSTADDR PGPORT PGDATABASE PGUSER PGPASSWORD PGSERVICE || true
export SLEEPLEDGER_HOME="$work/home"
cleanup() {
  "$bin/sleepledger" db stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
"$bin/sleepledger" db start >/dev/null

# CPU seconds the server's finished children used (the import's backend, once it exits):
# utime + stime of reaped children of the postmaster, from /proc (clock ticks).
postmaster_pid="$(head -1 "$(find "$SLEEPLEDGER_HOME" -name postmaster.pid | head -1)")"
ticks="$(getconf CLK_TCK)"
server_cpu() { awk -v t="$ticks" '{ print ($16 + $17) / t }' "/proc/$postmaster_pid/stat"; }

# measure LABEL COMMAND...: sets seconds, rss_mb and client_cpu (user + sys) from /usr/bin/time -v.
measure() {
  local label="$1"; shift
  if ! /usr/bin/time -v -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt"; then
    echo "$label failed:" >&2; cat "$work/stderr.txt" >&2; cat "$work/time.txt" >&2; exit 1
  fi
  local wall
  wall="$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")"
  seconds="$(echo "$wall" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')"
  rss_mb="$(awk '/Maximum resident set size/ { printf "%.1f", $6 / 1024 }' "$work/time.txt")"
  client_cpu="$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$work/time.txt")"
}

user_number=0
fresh_user() {
  user_number=$((user_number + 1))
  user="bench$user_number"
  "$bin/sleepledger" user add "$user" --time-zone Europe/Amsterdam >/dev/null
}

printf '%-8s %-5s %3s %9s %9s %10s %9s %8s %9s %9s\n' size kind run bsdtar_s import_s import_MB/s ratio rss_MB \
  client_cpu server_cpu
for size in "${sizes[@]}"; do
  zip="$data/export-$size.zip"; xml="$data/export-$size.xml"
  [ -s "$zip" ] || "$bin/make-export" --size "$size" --seed 1 --format zip --output "$zip" >/dev/null
  [ -s "$xml" ] || "$bin/make-export" --size "$size" --seed 1 --format xml --output "$xml" >/dev/null
  xml_mb="$(stat -c %s "$xml" | awk '{ printf "%.1f", $1 / 1e6 }')"
  for kind in $kinds; do
    file="$zip"; [ "$kind" = xml ] && file="$xml"
    for run in $(seq 1 "$runs"); do
      measure bsdtar bsdtar -xOf "$zip"
      bsdtar_seconds="$seconds"
      fresh_user
      server_before="$(server_cpu)"
      measure import "$bin/sleepledger" import --quiet --user "$user" "$file"
      server_seconds="$(awk -v a="$server_before" -v b="$(server_cpu)" 'BEGIN { printf "%.2f", b - a }')"
      printf '%-8s %-5s %3s %9.2f %9.2f %10.1f %9.2f %8s %9s %9s\n' "$size" "$kind" "$run" "$bsdtar_seconds" "$seconds" \
        "$(awk -v m="$xml_mb" -v s="$seconds" 'BEGIN { print m / s }')" \
        "$(awk -v b="$bsdtar_seconds" -v s="$seconds" 'BEGIN { print b / s }')" "$rss_mb" "$client_cpu" "$server_seconds"
    done
  done
done

if [ "$csv_runs" = no ]; then
  echo "(ratio = bsdtar seconds / import seconds: import speed as a fraction of bsdtar's; MB/s is MB of XML)"
  exit 0
fi
csv="$data/export-100MB.csv"
# About 100 bytes a row: 1.05 million samples (make-export sizes CSVs by the XML they stand for).
[ -s "$csv" ] || "$bin/make-export" --size 11GB --seed 1 --format csv --output "$csv" >/dev/null
csv_mb="$(stat -c %s "$csv" | awk '{ printf "%.1f", $1 / 1e6 }')"
for run in $(seq 1 "$runs"); do
  fresh_user
  measure import "$bin/sleepledger" import --quiet --user "$user" "$csv"
  printf '%-8s %-5s %3s %9s %9.2f %10.1f %9s %8s\n' "${csv_mb}MB" csv "$run" - "$seconds" \
    "$(awk -v m="$csv_mb" -v s="$seconds" 'BEGIN { print m / s }')" - "$rss_mb"
done
echo "(ratio = bsdtar seconds / import seconds: import speed as a fraction of bsdtar's; MB/s is MB of XML, or of CSV)"
