#!/usr/bin/env bash
# The rollup of this build against another's, rounds interleaved with the order alternating
# (docs/benchmarks.md, "A/B of a change"): each round runs both builds' rollup-benchmark on
# a fresh private cluster of its own and reads the same-run ratios it prints, b/a (the full
# rollup over the COPY floor) and c/b (the nightly run over the full rollup), and the
# full rollup's VmHWM where the build prints it, and the CPU seconds (client and server)
# of the full rollup (what a change to the rollup's own work moves): the median of each
# round's new/base CPU ratio. The medians decide.
#
# Usage: Benchmarks/rollup-ab.sh BASELINE_BIN [--runs N] [--users N] [--days N]
#   BASELINE_BIN is the folder holding the baseline build's rollup-benchmark; this build's
#   is SLEEPLEDGER_BIN's (the build deploy/test.sh or a release build made), else
#   .build/release. Default 5 rounds of 100 users x 365 days. Takes about 1 minute a round
#   on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
baseline="${1:?usage: Benchmarks/rollup-ab.sh BASELINE_BIN [--runs N] [--users N] [--days N]}"
shift
runs=5
users=100
days=365
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --users) users="$2"; shift 2 ;;
    --days) days="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
this="${SLEEPLEDGER_BIN:-.build/release}"
work="$(mktemp -d /tmp/rollup-ab.XXXXXX)"
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# The line after the header `users  days ...`: b/a is field 7, c/b field 9; the line after
# `CPU s ...`: the full rollup's client and server CPU seconds are fields 3 and 4.
run_side() { # run_side SIDE BIN
  "$2/rollup-benchmark" --users "$users" --days "$days" > "$work/out.txt" 2> "$work/err.txt" ||
    { cat "$work/err.txt" >&2; exit 1; }
  awk -v side="$1" '/^users  days/ { getline; gsub("%", "", $9); line = side " " $7 " " $9 " " $11 }
    /^CPU s/ { getline; cpu = $3 + $4 } END { print line, cpu }' "$work/out.txt" >> "$work/rounds.txt"
}

: > "$work/rounds.txt"
echo "## rollup A/B: $this against $baseline, $users users x $days days, $runs rounds"
for round in $(seq 1 "$runs"); do
  if [ $((round % 2)) -eq 1 ]; then run_side new "$this"; run_side base "$baseline"
  else run_side base "$baseline"; run_side new "$this"; fi
  tail -2 "$work/rounds.txt" | awk -v r="$round" '{ printf "round %d %-4s b/a %s  c/b %s%%  CPU (b) %.2f s\n", r, $1, $2, $3, $5 }'
  tail -2 "$work/rounds.txt" | awk '$1 == "new" { n = $5 } $1 == "base" { b = $5 } END { print n / b }' >> "$work/cpu.txt"
done
for side in new base; do
  echo "$side: median b/a $(awk -v s="$side" '$1 == s { print $2 }' "$work/rounds.txt" | median)," \
    "median c/b $(awk -v s="$side" '$1 == s { print $3 }' "$work/rounds.txt" | median)%"
done
echo "ratio new/base of the median b/a: $(awk '$1 == "new" { print $2 }' "$work/rounds.txt" | median |
  awk -v b="$(awk '$1 == "base" { print $2 }' "$work/rounds.txt" | median)" '{ printf "%.3f", $1 / b }')"
echo "CPU of the full rollup, new/base per round: $(paste -sd' ' "$work/cpu.txt"); median $(median < "$work/cpu.txt")"
