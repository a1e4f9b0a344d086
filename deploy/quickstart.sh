#!/usr/bin/env bash
# SleepLedger end to end on the embedded default database: installs what is missing,
# builds in release mode, starts the private PostgreSQL cluster, migrates, creates a
# demo user, imports a generated sample export for it and shows the summary. Usage: deploy/quickstart.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash deploy/install-deps.sh
swift build -c release
bin="$(swift build -c release --show-bin-path)"

# The embedded default: SLEEPLEDGER_HOME, else ~/.local/share/sleepledger (or
# /var/lib/sleepledger as root). No DATABASE_URL needed.
"$bin/sleepledger" db start
"$bin/sleepledger" migrate --status

if ! "$bin/sleepledger" user list --format csv | grep -q '^demo,'; then
  "$bin/sleepledger" user add demo --time-zone Europe/Berlin --target 8h --minimum 7h
fi
"$bin/sleepledger" user list

# Import: a generated 20 MB export (seeded) for the demo user.
# Running the quickstart again adds only nights that are new since the last run.
sample_dir="$(mktemp -d /tmp/sleepledger-quickstart.XXXXXX)"
trap 'rm -rf "$sample_dir"' EXIT
# Its nights end this morning, so the dashboard below has a last night and a full week.
"$bin/make-export" --size 20MB --seed 7 --until "$(date -u +%F)" --format zip --output "$sample_dir/export.zip"
"$bin/sleepledger" import --user demo "$sample_dir/export.zip"

# Rollup: nights, naps and the six horizon summaries from the stored samples. The
# nightly schedule is in deploy/cron and deploy/systemd.
"$bin/sleepledger" rollup

# The demo user's dashboard, read through the read-only role by the admin tool.
"$bin/sleepledger-admin" summary demo
