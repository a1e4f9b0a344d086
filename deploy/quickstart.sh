#!/usr/bin/env bash
# SleepLedger end to end on the embedded default database: installs what is missing,
# builds in release mode, starts the private PostgreSQL cluster, migrates, creates a
# demo user and shows it. Usage: deploy/quickstart.sh
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

# Rollup: nights, naps and the six horizon summaries from the stored samples (the import
# step above, when present, stores them; with no samples yet the rollup says so and
# writes empty summaries). The nightly schedule is in deploy/cron and deploy/systemd.
"$bin/sleepledger" rollup
"$bin/sleepledger" rollup --format json | head -n 20
# The summaries that now exist, straight from the database (read-only role).
if command -v psql >/dev/null 2>&1; then
  psql "$("$bin/sleepledger" db url)" -c \
    "SELECT u.handle, s.horizon, s.as_of, s.tracked_nights, s.debt_seconds, s.score, s.grade
     FROM summaries s JOIN users u ON u.id = s.user_id ORDER BY u.handle, s.horizon"
fi
