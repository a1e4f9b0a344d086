#!/usr/bin/env bash
# sleepledger-admin wall time, process start to exit (docs/benchmarks.md, "Admin CLI").
#
# Fills a fresh embedded cluster with USERS users of DAYS days of nights plus one user
# ("decade") with 10 years of nights, the way the rollup stores them (admin-benchmark-data),
# then times, interleaved in one run, RUNS calls each of:
#   sleepledger-admin --version              (the process-start floor)
#   sleepledger-admin summary decade         (the stored weekly dashboard)
#   sleepledger-admin summary decade --horizon 10y
#   sleepledger-admin users                  (USERS + 1 users)
# and prints medians and their ratios to the floor. Goals: summary <= 3x, users <= 10x.
#
# Usage: Benchmarks/admin-benchmark.sh [USERS] [DAYS] [RUNS]   (defaults 1000 365 20)
set -euo pipefail
cd "$(dirname "$0")/.."
users=${1:-1000}
days=${2:-365}
runs=${3:-20}

swift build -c release --product sleepledger >/dev/null
swift build -c release --product sleepledger-admin >/dev/null
swift build -c release --product admin-benchmark-data >/dev/null
bin="$(swift build -c release --show-bin-path)"

scratch=$(mktemp -d /tmp/sleepledger-admin-bench.XXXXXX)
chmod 0755 "$scratch"
export SLEEPLEDGER_HOME="$scratch/home"
unset DATABASE_URL SLEEPLEDGER_ADMIN_DATABASE_URL PGHOST PGPORT PGDATABASE PGUSER PGSERVICE || true
cleanup() {
  "$bin/sleepledger" db stop >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT

"$bin/sleepledger" db start >/dev/null
DATABASE_URL="$("$bin/sleepledger" db url)" "$bin/admin-benchmark-data" "$users" "$days"

python3 - "$bin/sleepledger-admin" "$runs" <<'PY'
import os, statistics, subprocess, sys, time

admin, runs = sys.argv[1], int(sys.argv[2])
cases = [
    ("--version (floor)", ["--version"]),
    ("summary decade", ["summary", "decade"]),
    ("summary decade --horizon 10y", ["summary", "decade", "--horizon", "10y"]),
    ("users", ["users"]),
]
times = {name: [] for name, _ in cases}
for name, arguments in cases:  # warm-up: page cache, server caches
    subprocess.run([admin] + arguments, stdout=subprocess.DEVNULL, check=True)
for _ in range(runs):
    for name, arguments in cases:
        start = time.perf_counter_ns()
        subprocess.run([admin] + arguments, stdout=subprocess.DEVNULL, check=True)
        times[name].append((time.perf_counter_ns() - start) / 1e6)
floor = statistics.median(times[cases[0][0]])
print(f"{'call':34} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'x floor':>8}")
for name, _ in cases:
    values = times[name]
    median = statistics.median(values)
    print(f"{name:34} {median:10.1f} {min(values):8.1f} {max(values):8.1f} {median / floor:8.2f}")
print(f"load average: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
PY
