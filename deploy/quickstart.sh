#!/usr/bin/env bash
# SleepLedger end to end on the embedded default database: installs what is missing,
# builds in release mode, starts the private PostgreSQL cluster, migrates, creates a
# demo user, imports a generated sample export for it and shows the summary; then starts the
# upload server, uploads another export over HTTP, reads the summary back over HTTP, and
# sets a random password for the demo user's sign-in to the web pages (printed at the end).
# Usage: deploy/quickstart.sh
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

# The upload server: started in the background on 127.0.0.1:8080, the way people send
# their own exports (docs/http-api.md). A server left by an earlier run is stopped first.
if [ -n "${SLEEPLEDGER_HOME:-}" ]; then home="$SLEEPLEDGER_HOME"
elif [ "$(id -u)" -eq 0 ]; then home=/var/lib/sleepledger
else home="$HOME/.local/share/sleepledger"; fi
pidfile="$home/quickstart-server.pid"
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  kill "$(cat "$pidfile")"
  for _ in $(seq 1 100); do kill -0 "$(cat "$pidfile")" 2>/dev/null || break; sleep 0.2; done
fi
nohup "$bin/sleepledger" serve --listen 127.0.0.1:8080 >"$home/quickstart-server.log" 2>&1 &
echo $! >"$pidfile"
for _ in $(seq 1 150); do
  curl -fsS http://127.0.0.1:8080/healthz >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS http://127.0.0.1:8080/healthz >/dev/null || { cat "$home/quickstart-server.log" >&2; exit 69; }

# A personal token for the demo user (printed once; only its SHA-256 is stored), and an
# upload of another generated export over HTTP, as a phone or a browser would send it.
token="$("$bin/sleepledger" token create --user demo --name quickstart --scope ingest)"
"$bin/make-export" --size 5MB --seed 8 --until "$(date -u +%F)" --format zip --output "$sample_dir/upload.zip"
echo "POST /api/v1/imports (upload.zip)"
answer="$(curl -sS -H "Authorization: Bearer $token" -H "Content-Type: application/zip" \
  --data-binary @"$sample_dir/upload.zip" http://127.0.0.1:8080/api/v1/imports)"
echo "$answer"
id="$(printf '%s' "$answer" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')"
[ -n "$id" ] || { echo "quickstart: the upload was not accepted" >&2; exit 70; }
for _ in $(seq 1 300); do
  status="$(curl -sS -H "Authorization: Bearer $token" "http://127.0.0.1:8080/api/v1/imports/$id")"
  case "$status" in *'"state":"queued"'*|*'"state":"running"'*) sleep 0.2 ;; *) break ;; esac
done
echo "GET /api/v1/imports/$id"
echo "$status"

# The worker rolled the demo user up after the import: the summary includes the upload.
"$bin/sleepledger-admin" summary demo

# The demo user's own data over HTTP, with a full-scope token (the upload token above is
# ingest-only: it may send exports but not read data back). docs/http-api.md has the rest:
# nights, debt, charts, settings, tokens.
read_token="$("$bin/sleepledger" token create --user demo --name quickstart-read --scope full)"
echo "GET /api/v1/me"
curl -fsS -H "Authorization: Bearer $read_token" http://127.0.0.1:8080/api/v1/me
echo
echo "GET /api/v1/summary?horizon=weekly (the JSON of docs/summary-json.md, as sleepledger-admin summary --format json)"
curl -fsS -H "Authorization: Bearer $read_token" "http://127.0.0.1:8080/api/v1/summary?horizon=weekly"
curl -fsS -H "Authorization: Bearer $read_token" -o "$home/quickstart-duration.svg" \
  "http://127.0.0.1:8080/api/v1/charts/duration.svg?horizon=weekly"
echo "GET /api/v1/charts/duration.svg?horizon=weekly: written to $home/quickstart-duration.svg"

# The operator's figures: Prometheus metrics on a listener of their own (docs/operations.md).
echo "GET http://127.0.0.1:9464/metrics (excerpt)"
curl -fsS http://127.0.0.1:9464/metrics |
  grep -E '^sleepledger_(import_jobs_total\{outcome="done"\}|import_queue_jobs|http_requests_total\{route="/api/v1/imports",method="POST")' ||
  true

# A password for the demo user's sign-in to the web pages: a new random one each run
# (setting it ends earlier sessions), given on standard input and printed once below.
demo_password="$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')"
printf '%s\n' "$demo_password" | "$bin/sleepledger" user passwd demo

echo
echo "The server runs in the background on http://127.0.0.1:8080 (log: $home/quickstart-server.log)."
echo "Open http://127.0.0.1:8080/ in a browser and sign in as demo with the password $demo_password"
echo "(shown only now; set another with: sleepledger user passwd demo)."
echo "Read your data with the full token: curl -H \"Authorization: Bearer $read_token\" http://127.0.0.1:8080/api/v1/summary"
echo "Stop it with: kill $(cat "$pidfile")"
