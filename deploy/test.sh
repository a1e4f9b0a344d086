#!/usr/bin/env bash
# Runs the whole SleepLedger test suite against a throwaway PostgreSQL cluster that this
# script starts and removes. Installs what is missing first. Usage: deploy/test.sh [swift test args]
# After the Swift tests it runs deploy/abuse-test.sh, the hostile suite, on the debug build.
set -euo pipefail
cd "$(dirname "$0")/.."

bash deploy/install-deps.sh

# The suite never touches a configured database: it makes its own.
unset DATABASE_URL PGHOST PGHOSTADDR PGPORT PGDATABASE PGUSER PGPASSWORD PGSERVICE PGSERVICEFILE \
  SLEEPLEDGER_HOME SLEEPLEDGER_ADMIN_DATABASE_URL || true

# Formatting drift fails the run: the repository's .swift-format, strict.
swift format lint --strict --recursive Sources Tests Benchmarks Package.swift
# So do functions, initializers and closures longer than 80 lines (the script says how it counts).
python3 deploy/lint-function-length.py

# The backup alert rules: valid, and each fires when it should (promtool, Debian's prometheus).
promtool check rules deploy/prometheus/sleepledger-backups.rules.yml
promtool test rules deploy/prometheus/sleepledger-backups.test.yml

# And compiler warnings in our own sources (Sources, Tests, Benchmarks). An incremental
# build prints only the warnings of the files it compiles again: a clean checkout sees all.
build_log=$(mktemp /tmp/sleepledger-build.XXXXXX)
swift build --build-tests 2>&1 | tee "$build_log"
warnings=$(grep -E "^($(pwd)/)?(Sources|Tests|Benchmarks)/[^:]+:[0-9]+:[0-9]+: warning:" "$build_log" | sort -u || true)
rm -f "$build_log"
if [ -n "$warnings" ]; then
  printf '%s\n' "$warnings" >&2
  echo "deploy/test.sh: the build warns in our sources ($(printf '%s\n' "$warnings" | wc -l) above); fix them" >&2
  exit 1
fi

scratch=$(mktemp -d /tmp/sleepledger-test.XXXXXX)
chmod 0755 "$scratch"   # as root, the cluster runs as an unprivileged user who must reach it
export SLEEPLEDGER_HOME="$scratch/home"
# The cluster is stopped by its folder (SLEEPLEDGER_HOME is unset once it runs): a `db stop`
# without it found no cluster, and the folder's removal left the postgres running.
cleanup() {
  SLEEPLEDGER_HOME="$scratch/home" .build/debug/sleepledger db stop >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT

# Every operator's script parses (deploy/citus/distribute.sh, which needs Citus to do its
# work, also runs with --print in CitusReadinessTests).
for script in deploy/*.sh deploy/*/*.sh; do bash -n "$script"; done

.build/debug/sleepledger db start
SLEEPLEDGER_TEST_DATABASE_URL="$(.build/debug/sleepledger db url)"
export SLEEPLEDGER_TEST_DATABASE_URL
unset SLEEPLEDGER_HOME

# Swift Testing announces every case of a parameterized test as it starts ("◇ Test case
# passing ..."), two thirds of a green run's log; a case that fails is still reported on its
# own lines, and every test's start and end stay (a test that hangs is the one started but
# never ended).
swift test --skip-build "$@" 2>&1 | grep -v '^◇ Test case '

# Then the hostile suite (docs/reliability.md, "The hostile suite"): attacks on a real server
# of the debug build, on a private cluster of its own; at most 10 minutes.
SLEEPLEDGER_BIN=.build/debug deploy/abuse-test.sh

# Then the recovery drills (docs/reliability.md, "Backup drills"): pgBackRest backups,
# restores to a time and to the latest WAL, a crash during uploads, bad input; on a durable
# private cluster of their own; at most 5 minutes.
SLEEPLEDGER_BIN=.build/debug deploy/backup-drill.sh

# Then the failover and replica tests (docs/reliability.md, "Failover" and "Reads from a
# replica"): a pg_auto_failover formation on loopback, the server and a worker through its
# multi-host URL, switchovers and a killed primary under load (at most 6 minutes); a
# streaming replica serving reads with read-your-writes (at most 2 minutes).
SLEEPLEDGER_BIN=.build/debug deploy/ha-test.sh
SLEEPLEDGER_BIN=.build/debug deploy/replica-test.sh
