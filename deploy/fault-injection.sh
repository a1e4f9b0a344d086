#!/usr/bin/env bash
# Fault injection (issue 15): round after round, an import through the CLI, an upload
# through the server and a rollup run at the same time; one of them, the server or
# PostgreSQL is killed with SIGKILL at a random moment; what was killed is started again
# and what failed is done again (as an operator, cron or a phone would); once everything
# has finished, the stored state is compared with a clean run's.
#
#   deploy/fault-injection.sh [--rounds N] [--seed S] [--keep DIR]
#
# --rounds (default 200), --seed (default: the time; printed, so a failing round can be
# replayed), --keep DIR keeps the generated exports between runs. Needs nothing
# configured: it runs on a private embedded cluster of its own, with the release build.
# Exits 1 at the first round whose state differs, printing the difference and keeping
# that round's logs. SLEEPLEDGER_BIN, when set, is the folder of the binaries to use.
#
# Compared per user: the samples, nights, naps and summaries (without ids and times of
# computing), the imports that succeeded (file, kind, size, counts) and that none is left
# running, the upload's jobs (state, file, size, hash, error; none left queued or
# running), the rollup's bookkeeping (what is left dirty or stale), and the spool folder
# (empty once every job is done).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=200
seed="$(date +%s)"
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    *) echo "usage: deploy/fault-injection.sh [--rounds N] [--seed S] [--keep DIR]" >&2; exit 64 ;;
  esac
done

bash deploy/install-deps.sh postgresql-client >/dev/null
. deploy/lib/private-cluster.sh
release_binaries sleepledger make-export
export SLEEPLEDGER_IMPORT_LOCK_WAIT=30
private_cluster sleepledger-faults "$keep"
base="$conninfo"
postmaster_pid() { head -1 "$(find "$SLEEPLEDGER_HOME" -name postmaster.pid | head -1)" 2>/dev/null || true; }

# The inputs: an export for the CLI import (anna) and another for the upload (ben).
make_export() { # make_export SIZE SEED
  local zip="$data/faults-$1-$2.zip"
  [ -s "$zip" ] || "$bin/make-export" --size "$1" --seed "$2" --format zip --output "$zip" >/dev/null
  echo "$zip"
}
cli_export="$(make_export 40MB 7)"
upload_export="$(make_export 40MB 8)"

# The template every round copies: migrated, two users, ben's token.
psql -q -v ON_ERROR_STOP=1 "$base" -c "CREATE DATABASE faults_template" >/dev/null
template_url="$base dbname=faults_template"
DATABASE_URL="$template_url" "$bin/sleepledger" migrate >/dev/null
DATABASE_URL="$template_url" "$bin/sleepledger" user add anna --time-zone Europe/Berlin >/dev/null
DATABASE_URL="$template_url" "$bin/sleepledger" user add ben --time-zone America/New_York >/dev/null
token="$(DATABASE_URL="$template_url" "$bin/sleepledger" token create --user ben --name faults --scope full 2>/dev/null |
  grep -o 'sl_[A-Za-z0-9_-]*' | head -1)"

# One port for every start, so a client keeps its address across a restart.
port="$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
start_server() { # start_server URL LOG
  for _ in $(seq 1 50); do
    local mark; mark="$(wc -l < "$2")"
    DATABASE_URL="$1" SLEEPLEDGER_SERVER_DATABASE_URL="$1 user=sleepledger_server" \
      "$bin/sleepledger" serve --listen "127.0.0.1:$port" --metrics-listen off --spool "$work/spool" 2>>"$2" &
    server_pid=$!
    for _ in $(seq 1 200); do
      tail -n +"$((mark + 1))" "$2" | grep -q "serving on 127.0.0.1:$port" && return 0
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.05
    done
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    sleep 0.2   # the port still held by the killed server, or the database still recovering
  done
  echo "the server did not start:" >&2; tail -20 "$2" >&2; return 1
}

# upload URL LOG: sends ben's export until the server accepts it (202, or 200 for the
# same bytes again), as a phone retries; prints the job's id.
upload() {
  local answer id
  for _ in $(seq 1 200); do
    answer="$(curl -s -m 60 -H "Authorization: Bearer $token" -H "Content-Type: application/zip" \
      --data-binary "@$upload_export" "http://127.0.0.1:$port/api/v1/imports" 2>>"$2" || true)"
    id="$(printf '%s' "$answer" | sed -n 's/.*"import":{"id":\([0-9]*\).*/\1/p')"
    if [ -n "$id" ]; then echo "$id"; return 0; fi
    sleep 0.1
  done
  echo "the upload was never accepted: $answer" >&2
  return 1
}

# state URL: the stored state, one line per table and user, without ids and times.
state() {
  psql -tA -v ON_ERROR_STOP=1 "$1" <<'SQL'
WITH rows(kind, handle, value) AS (
  SELECT 'samples', u.handle, (to_jsonb(t) - 'user_id' - 'import_id')::text FROM sleep_samples t JOIN users u ON u.id = t.user_id
  UNION ALL SELECT 'nights', u.handle, (to_jsonb(t) - 'user_id')::text FROM nights t JOIN users u ON u.id = t.user_id
  UNION ALL SELECT 'naps', u.handle, (to_jsonb(t) - 'user_id')::text FROM naps t JOIN users u ON u.id = t.user_id
  UNION ALL SELECT 'summaries', u.handle, (to_jsonb(t) - 'user_id' - 'computed_at')::text FROM summaries t JOIN users u ON u.id = t.user_id
  UNION ALL SELECT 'imports', u.handle, jsonb_build_object('file', t.file_name, 'kind', t.kind, 'size', t.size_bytes,
      'read', t.samples_read, 'inserted', t.samples_inserted, 'duplicate', t.samples_duplicate, 'rejected', t.samples_rejected)::text
    FROM imports t JOIN users u ON u.id = t.user_id WHERE t.status = 'succeeded' AND t.samples_inserted > 0
  UNION ALL SELECT 'imports running', u.handle, t.file_name FROM imports t JOIN users u ON u.id = t.user_id WHERE t.status = 'running'
  UNION ALL SELECT 'jobs', u.handle, jsonb_build_object('state', t.state, 'file', t.file_name, 'size', t.size_bytes,
      'sha256', t.sha256, 'error', t.error)::text FROM import_jobs t JOIN users u ON u.id = t.user_id
  UNION ALL SELECT 'rollup left', u.handle, jsonb_build_object('dirty_from', t.dirty_from, 'stale', t.summaries_stale)::text
    FROM rollup_state t JOIN users u ON u.id = t.user_id WHERE t.dirty_from IS NOT NULL OR t.summaries_stale
)
SELECT kind, handle, count(*), md5(string_agg(value, E'\n' ORDER BY value)) FROM rows GROUP BY kind, handle ORDER BY kind, handle;
SQL
  echo "spool files: $(find "$work/spool" -type f 2>/dev/null | wc -l)"
}

# retry COMMAND...: runs it until it exits 0 (a kill of PostgreSQL fails what ran then).
retry() {
  for _ in $(seq 1 40); do
    "$@" && return 0
    sleep 0.25
  done
  return 1
}

# wait_job URL ID LOG: until the job is done (or failed: a difference the comparison shows).
wait_job() {
  local state=""
  for _ in $(seq 1 1200); do
    state="$(curl -s -m 10 -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/v1/imports/$2" 2>>"$3" |
      sed -n 's/.*"state":"\([a-z]*\)".*/\1/p' || true)"
    case "$state" in done|failed|cancelled) return 0 ;; esac
    sleep 0.1
  done
  echo "job $2 still '$state'" >&2
  return 1
}

# round N VICTIM: one round on a fresh copy of the template; VICTIM is none (the clean
# run), import, rollup, server or postgres. Prints the state.
round() {
  local n="$1" victim="$2" db="faults_$1" log="$work/round-$1.log"
  : > "$log"
  psql -q "$base" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db TEMPLATE faults_template" >/dev/null 2>&1
  local url="$base dbname=$db"
  rm -rf "$work/spool"
  start_server "$url" "$log"
  DATABASE_URL="$url" "$bin/sleepledger" import --user anna --quiet "$cli_export" >>"$log" 2>&1 &
  local import_pid=$!
  DATABASE_URL="$url" "$bin/sleepledger" rollup >>"$log" 2>&1 &
  local rollup_pid=$!
  local job=""
  upload "$url" "$log" > "$work/job" &
  local upload_pid=$!
  if [ "$victim" != none ]; then
    # A random moment within the clean run's time for the three, while they overlap.
    sleep "$(awk -v r="$RANDOM" -v w="$window" 'BEGIN { printf "%.3f", r / 32767 * w }')"
    local target
    case "$victim" in
      import) target="$import_pid" ;;
      rollup) target="$rollup_pid" ;;
      server) target="$server_pid" ;;
      postgres) target="$(postmaster_pid)" ;;
    esac
    # A kill that lands after the process ended counts as a round, not as a kill.
    if kill -9 "$target" 2>/dev/null; then echo "round $n: killed $victim" >>"$log"; echo killed > "$work/hit"; fi
    if [ "$victim" = postgres ]; then
      # Its children go with the postmaster; the cluster recovers at the next start.
      for _ in $(seq 1 100); do [ -z "$(pgrep -f "postgres.*$SLEEPLEDGER_HOME" || true)" ] && break; sleep 0.1; done
      retry "$bin/sleepledger" db start >>"$log" 2>&1
    fi
    # The server outlives a restart of PostgreSQL (its sessions reconnect); killed, it is
    # started again on the same port.
    if [ "$victim" = server ]; then
      wait "$server_pid" 2>/dev/null || true
      server_pid=""
      start_server "$url" "$log"
    fi
  fi
  # Whatever did not finish is done again.
  wait "$import_pid" 2>/dev/null || retry env DATABASE_URL="$url" "$bin/sleepledger" import --user anna --quiet \
    "$cli_export" >>"$log" 2>&1
  wait "$rollup_pid" 2>/dev/null || true
  wait "$upload_pid" 2>/dev/null || true
  job="$(cat "$work/job")"
  [ -n "$job" ] || job="$(upload "$url" "$log")"
  wait_job "$url" "$job" "$log"
  # The next nightly rollup catches up with everything.
  retry env DATABASE_URL="$url" "$bin/sleepledger" rollup >>"$log" 2>&1
  stop_server
  state "$url"
}

echo "fault injection: $rounds rounds, seed $seed, exports $(du -h "$cli_export" | cut -f1) and $(du -h "$upload_export" | cut -f1)"
RANDOM="$seed"
window=0
clean_started="$(date +%s.%N)"
round 0 none > "$work/clean.txt"
# The window for kills: the clean round's time, less the start and the state's read.
window="$(awk -v a="$clean_started" -v b="$(date +%s.%N)" 'BEGIN { w = b - a - 0.5; printf "%.2f", w < 0.5 ? 0.5 : w }')"
echo "clean run: $(grep -c . "$work/clean.txt") lines of state; kills land within ${window} s of a round's start"
victims=(import rollup server postgres)
declare -A survived=([import]=0 [rollup]=0 [server]=0 [postgres]=0)
declare -A hits=([import]=0 [rollup]=0 [server]=0 [postgres]=0)
started="$(date +%s)"
for n in $(seq 1 "$rounds"); do
  victim="${victims[$((RANDOM % 4))]}"
  rm -f "$work/hit"
  round "$n" "$victim" > "$work/state.txt"
  [ -f "$work/hit" ] && hits[$victim]=$((hits[$victim] + 1))
  if ! diff -u "$work/clean.txt" "$work/state.txt" > "$work/diff.txt"; then
    echo "round $n (killed $victim): the stored state differs from the clean run's:"
    cat "$work/diff.txt"
    echo "logs and states kept in $work (round-$n.log)"
    exit 1
  fi
  survived[$victim]=$((survived[$victim] + 1))
  psql -q "$base" -c "DROP DATABASE faults_$n" >/dev/null
  if [ $((n % 10)) -eq 0 ]; then echo "$n rounds survived in $(( $(date +%s) - started )) s"; fi
done
echo "all $rounds rounds ended in the clean run's state in $(( $(date +%s) - started )) s; rounds (kills that hit a running process):"
for victim in "${victims[@]}"; do echo "  $victim: ${survived[$victim]} (${hits[$victim]})"; done
