#!/usr/bin/env bash
# Upload server benchmarks (docs/benchmarks.md, "Upload server"), each reported as a ratio
# against a baseline measured in the same run:
#
#   upload   The generated export.zip of a 500 MB export.xml sent over loopback with curl
#            to POST /api/v1/imports, from the first byte sent to the job's state `done`
#            (polled every 20 ms), against `sleepledger import` of the same file by the
#            CLI, interleaved run by run. The rollup that follows the import on the server
#            is timed separately (until /api/v1/me shows a new last_rollup_at).
#   summary  GET /api/v1/summary for 1,000 users (admin-benchmark-data: a year of nights
#            each) under wrk with 16 connections and a random user's token per request
#            (after 5 s not counted), against pgbench with 16 clients sending what the
#            server sends for it once it knows the token's owner (a transaction with SET
#            LOCAL naming the owner, the token checked as that owner, the user's row and the
#            stored summary) as the server's role, statement by statement and pipelined (in
#            one round trip, as the server sends it); and the HTTP floor, a 404 that needs
#            no database, under the same wrk load. Rounds interleave the four.
#   hae      POST /api/v1/ingest/health-auto-export of distinct 5 MB payloads from 8
#            "phones" at once (curl), latency per request (p50, p99, max), against the same
#            requests to GET /healthz in the same run.
#   memory   20 users upload a 50 MB export.zip each at once; all must be imported; the
#            server's peak resident memory (VmHWM) with the default worker count.
#   ab       This build against another (SERVER_BENCHMARK_BASELINE_BIN: the folder of the
#            build before a change) on the same cluster and data, rounds interleaved with
#            the order alternating: GET /api/v1/summary under wrk (as in `summary`), its
#            throughput and the server process's CPU time per request (user and system,
#            from /proc: what a change to the server's own code moves; the database's
#            work is the same SQL),
#            and the `upload` export sent to done (as in `upload`), each as this build's
#            figure over the baseline's in the same round; the medians, and the geometric
#            means with their 95 % confidence intervals, decide.
#
# Usage: Benchmarks/server-benchmark.sh [--runs N] [--keep DIR] [--upload-size SIZE]
#        [--memory-size SIZE] [--duration SECONDS] [PART...]
#   SERVER_BENCHMARK_BIN (or SLEEPLEDGER_BIN), when set, is the folder of the binaries to
#   use instead of this checkout's release build.
#   PART is upload, summary, hae, memory or ab (default: the first four); --runs (default 3) is the
#   number of interleaved CLI/HTTP runs of `upload` and of rounds of `summary`; --keep
#   DIR keeps generated exports;
#   --upload-size is the export.xml size of `upload` (default 500MB); --memory-size that
#   of `memory` (default 700MB, a zip of about 50 MB); --duration is wrk's and pgbench's
#   (default 20 s).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
keep=""
upload_size=500MB
memory_size=700MB
duration=20
parts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --upload-size) upload_size="$2"; shift 2 ;;
    --memory-size) memory_size="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    *) parts+=("$1"); shift ;;
  esac
done
[ ${#parts[@]} -gt 0 ] || parts=(upload summary hae memory)

bash deploy/install-deps.sh wrk time postgresql-client >/dev/null
. deploy/lib/private-cluster.sh
SLEEPLEDGER_BIN="${SERVER_BENCHMARK_BIN:-${SLEEPLEDGER_BIN:-}}" release_binaries sleepledger make-export admin-benchmark-data
pgbin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
private_cluster sleepledger-server-bench "$keep"
server_conninfo="$conninfo user=sleepledger_server"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# start_server [ARGS...]: sleepledger serve (of server_bin, else bin) on a free port, in
# the background; sets port.
server_bin=""
start_server() {
  "${server_bin:-$bin}/sleepledger" serve --listen 127.0.0.1:0 --metrics-listen off --spool "$work/spool" "$@" 2>"$work/server.log" &
  server_pid=$!
  port="$(serving_port "$work/server.log" "$server_pid")" || exit 1
}

user_number=0
# fresh_user: a new user with a full token; sets user and token.
fresh_user() {
  user_number=$((user_number + 1))
  user="bench$user_number"
  "$bin/sleepledger" user add "$user" --time-zone Europe/Amsterdam >/dev/null
  token="$("$bin/sleepledger" token create --user "$user" --name bench --scope full 2>/dev/null |
    grep -o 'sl_[A-Za-z0-9_-]*' | head -1)"
}

json_field() { /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# wait_done ID: polls the import until it is done (fails the run when it failed); cheap
# (curl and sed, no interpreter), so polling takes little CPU from the import it waits for.
wait_done() {
  local state
  while true; do
    state="$(curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/v1/imports/$1" |
      sed -n 's/.*"state":"\([a-z]*\)".*/\1/p')"
    case "$state" in
      done) return 0 ;;
      failed|cancelled) echo "import $1 ended $state" >&2; return 1 ;;
    esac
    sleep 0.02
  done
}

export_file() { # export_file SIZE: the seeded zip of that XML size, made once
  local zip="$data/export-$1.zip"
  [ -s "$zip" ] || "$bin/make-export" --size "$1" --seed 1 --format zip --output "$zip" >/dev/null
  echo "$zip"
}

part_upload() {
  local zip; zip="$(export_file "$upload_size")"
  start_server
  echo "## upload: $(basename "$zip") ($(stat -c %s "$zip" | awk '{ printf "%.1f MB", $1 / 1e6 }')), $runs runs"
  printf '%3s %8s %9s %9s %9s %9s %9s %7s\n' run cli_s upload_s to_done_s wait_s import_s rollup_s ratio
  for run in $(seq 1 "$runs"); do
    fresh_user
    local t0 t1; t0="$(now)"
    "$bin/sleepledger" import --quiet --user "$user" "$zip" >/dev/null
    t1="$(now)"; local cli; cli="$(elapsed "$t0" "$t1")"

    fresh_user
    t0="$(now)"
    local answer id t_sent t_done t_rolled
    answer="$(curl -s -H "Authorization: Bearer $token" -H "Content-Type: application/zip" \
      --data-binary @"$zip" "http://127.0.0.1:$port/api/v1/imports")"
    t_sent="$(now)"
    id="$(echo "$answer" | json_field 'd["import"]["id"]')"
    wait_done "$id"
    t_done="$(now)"
    until curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/v1/me" |
      grep -q '"last_rollup_at":"'; do sleep 0.02; done
    t_rolled="$(now)"
    local http; http="$(elapsed "$t0" "$t_done")"
    # The job's own times: queued to claimed (wait), claimed to its import's end (import).
    local times
    times="$(psql -tA -F ' ' "$conninfo" -c "SELECT round(extract(epoch FROM started_at - created_at), 2),
      round(extract(epoch FROM finished_at - started_at), 2) FROM import_jobs WHERE id = $id")"
    printf '%3s %8s %9s %9s %9s %9s %9s %7s\n' "$run" "$cli" "$(elapsed "$t0" "$t_sent")" "$http" $times \
      "$(elapsed "$t_done" "$t_rolled")" "$(awk -v c="$cli" -v h="$http" 'BEGIN { printf "%.2f", c / h }')"
  done
  echo "(ratio = CLI import seconds / upload-to-done seconds; the goal is at least 0.8)"
  stop_server
}

# tokens_for_users FILE: a full token for each user whose handle is userNNNN (what
# admin-benchmark-data makes), written to FILE one per line and stored as the server
# expects (SHA-256 of the secret bytes). Ids and secrets follow from the user's id (id:
# the user's id + 2^40; secret: SHA-256 of "bench-<user id>"), so pgbench can present the
# same token for a user it picks at random.
tokens_for_users() {
  psql -tA -F ' ' "$conninfo" -c "SELECT id, handle FROM users WHERE handle ~ '^user[0-9]{4}$' ORDER BY handle" \
    > "$work/handles.txt"
  /usr/bin/python3 - "$work/handles.txt" "$1" "$work/tokens.csv" <<'PY'
import base64, hashlib, sys
handles_path, tokens_path, csv_path = sys.argv[1:4]
with open(handles_path) as handles, open(tokens_path, "w") as tokens, open(csv_path, "w") as rows:
    for line in handles.read().splitlines():
        user_id, handle = line.split()
        token_id, secret = int(user_id) + (1 << 40), hashlib.sha256(f"bench-{user_id}".encode()).digest()
        text = base64.urlsafe_b64encode(secret).rstrip(b"=").decode()
        tokens.write(f"sl_{token_id:016x}_{text}\n")
        rows.write(f"{handle},{token_id},\\x{hashlib.sha256(secret).hexdigest()}\n")
PY
  psql -q -v ON_ERROR_STOP=1 "$conninfo" <<SQL
CREATE TEMPORARY TABLE bench_tokens (handle text, id bigint, secret_sha256 bytea);
\copy bench_tokens FROM '$work/tokens.csv' WITH (FORMAT csv)
INSERT INTO api_tokens (user_id, id, name, scope, secret_sha256)
SELECT u.id, t.id, 'bench', 'full', t.secret_sha256 FROM bench_tokens t JOIN users u ON u.handle = t.handle;
INSERT INTO api_token_owners (token_id, user_id) SELECT id, user_id FROM api_tokens WHERE name = 'bench';
SQL
}

# cpu_ticks PID: the process's user and system CPU time so far, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# median: the middle of the numbers on standard input (the lower middle for an even count).
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# geometric_interval: the geometric mean of the ratios on stdin (one per line) and its 95 %
# confidence interval, "mean (low-high)": a t interval on the ratios' logarithms (Student's
# quantile by its Cornish-Fisher expansion, within 0.2 % of the table from 5 rounds on).
# Rounds pair the two builds under the same moment's load, so their ratios are what varies.
geometric_interval() {
  awk '{ x = log($1); n++; s += x; q += x * x } END {
    if (n < 2) { printf "%.3f (one round)", exp(s); exit }
    m = s / n; sd = sqrt((q - n * m * m) / (n - 1)); df = n - 1; z = 1.959964
    t = z + (z ^ 3 + z) / (4 * df) + (5 * z ^ 5 + 16 * z ^ 3 + 3 * z) / (96 * df ^ 2)
    h = t * sd / sqrt(n)
    printf "%.3f (%.3f-%.3f)", exp(m), exp(m - h), exp(m + h) }'
}

part_summary() {
  local users=1000
  echo "## summary: GET /api/v1/summary for $users users, 16 connections, $runs rounds of ${duration} s each"
  summary_load
  # The transaction the server sends for it (AccountService.storedSummaryText(session:token:...)
  # as sleepledger_server, LedgerSession.readAsTokenOwner) once its session knows the
  # token's owner, as it does from a phone's second request on: read-only; SET LOCAL naming
  # the owner (a literal: SET takes no parameters); the token checked as that owner
  # (sleepledger_own_token, which ends the transaction for a wrong secret); the user's row
  # and the stored summary's text with its flag, both for the user the setting names. The
  # server hashes the presented secret itself; pgbench has PostgreSQL hash it (sha256 of the
  # secret, itself sha256 of "bench-<id>": a few microseconds more for pgbench). pgbench
  # binds its variables as parameters in prepared mode, so it cannot write an id into SET:
  # it draws from 100 of the users instead, one script each with the owner's id written in
  # as the server writes it (pgbench takes at most 128 scripts; wrk draws from all 1,000).
  local ids id scripts=() piped_scripts=()
  ids="$(psql -tA "$conninfo" -c "SELECT id FROM users WHERE handle ~ '^user[0-9]{4}$' ORDER BY id LIMIT 100")"
  for id in $ids; do
    local transaction
    transaction="$(cat <<SQL
BEGIN READ ONLY;
SET LOCAL sleepledger.user_id = '$id';
SELECT user_id, scope, secret_sha256, last_used_at FROM sleepledger_own_token($id, $((id + 1099511627776)), sha256(sha256(convert_to('bench-$id', 'UTF8'))));
SELECT id, handle, time_zone, target_seconds, minimum_seconds, created_at FROM users WHERE id = nullif(current_setting('sleepledger.user_id', true), '')::bigint;
SELECT summary, tracked_nights > 0 OR last_night_wake_day IS NOT NULL OR summary ? 'rolling_debt' FROM summaries WHERE user_id = nullif(current_setting('sleepledger.user_id', true), '')::bigint AND horizon = 'weekly';
COMMIT;
SQL
)"
    # pgbench sends the transaction statement by statement (as the server did before it
    # pipelined), and in one round trip as the server sends it now (libpq's pipeline mode).
    printf '%s\n' "$transaction" > "$work/summary-$id.sql"
    printf '\\startpipeline\n%s\n\\endpipeline\n' "$transaction" > "$work/summary-pipelined-$id.sql"
    scripts+=(-f "$work/summary-$id.sql")
    piped_scripts+=(-f "$work/summary-pipelined-$id.sql")
  done
  : > "$work/summary-rounds.txt"
  printf '%5s %10s %8s %8s %10s %8s %8s %10s %10s %7s %7s\n' round "summary/s" p50 p99 "floor/s" p50 p99 \
    pgbench pipelined ratio ratio_p
  for round in $(seq 1 "$runs"); do
    # Sixteen connections from one address: the per-client limit must allow them.
    start_server --max-per-client 32 --max-connections 64
    # Not counted: opening the sessions, preparing statements, each token's first recorded use.
    wrk -t 2 -c 16 -d 5s -s "$work/summary.lua" "http://127.0.0.1:$port" > /dev/null
    wrk -t 2 -c 16 -d "${duration}s" --latency -s "$work/summary.lua" "http://127.0.0.1:$port" > "$work/wrk.txt"
    # The HTTP floor: a request answered without the database (404 for an unknown path),
    # through the same server, log and metrics.
    wrk -t 2 -c 16 -d "${duration}s" --latency "http://127.0.0.1:$port/api/v1/none" > "$work/floor.txt"
    stop_server
    grep -q 'Non-2xx' "$work/wrk.txt" && { echo "GET /api/v1/summary answered other than 200:" >&2; cat "$work/wrk.txt" >&2; exit 1; }
    "$pgbin/pgbench" -n -M prepared -c 16 -j 2 -T "$duration" "${scripts[@]}" \
      "$server_conninfo" > "$work/summary.txt" 2>&1 || { cat "$work/summary.txt" >&2; exit 1; }
    "$pgbin/pgbench" -n -M prepared -c 16 -j 2 -T "$duration" "${piped_scripts[@]}" \
      "$server_conninfo" > "$work/summary-pipelined.txt" 2>&1 || { cat "$work/summary-pipelined.txt" >&2; exit 1; }
    local rate floor pg piped
    rate="$(awk '/Requests\/sec/ { print $2 }' "$work/wrk.txt")"
    floor="$(awk '/Requests\/sec/ { print $2 }' "$work/floor.txt")"
    pg="$(awk '/^tps/ { print $3 }' "$work/summary.txt")"
    piped="$(awk '/^tps/ { print $3 }' "$work/summary-pipelined.txt")"
    echo "$rate $floor $pg $piped" >> "$work/summary-rounds.txt"
    printf '%5s %10.0f %8s %8s %10.0f %8s %8s %10.0f %10.0f %7.2f %7.2f\n' "$round" "$rate" \
      "$(awk '$1 == "50%" { print $2 }' "$work/wrk.txt")" "$(awk '$1 == "99%" { print $2 }' "$work/wrk.txt")" "$floor" \
      "$(awk '$1 == "50%" { print $2 }' "$work/floor.txt")" "$(awk '$1 == "99%" { print $2 }' "$work/floor.txt")" \
      "$pg" "$piped" "$(awk -v w="$rate" -v p="$pg" 'BEGIN { print w / p }')" \
      "$(awk -v w="$rate" -v p="$piped" 'BEGIN { print w / p }')"
  done
  local ratio ratio_p
  ratio="$(awk '{ print $1 / $3 }' "$work/summary-rounds.txt" | median)"
  ratio_p="$(awk '{ print $1 / $4 }' "$work/summary-rounds.txt" | median)"
  echo "median ratio $ratio against pgbench statement by statement, $ratio_p against pgbench pipelined" \
    "(server requests/s over pgbench transactions/s of the same round; the goal is at least 0.5);" \
    "median floor/pgbench $(awk '{ print $2 / $3 }' "$work/summary-rounds.txt" | median)"
}

# summary_load: 1,000 users with a year of nights each (made once), their tokens in
# $work/tokens.txt and the wrk script $work/summary.lua that asks with a random one.
summary_load() {
  if [ "$(psql -tA "$conninfo" -c "SELECT count(*) FROM users WHERE handle LIKE 'user%'")" -lt 1000 ]; then
    DATABASE_URL="$conninfo" "$bin/admin-benchmark-data" 1000 365 >/dev/null
  fi
  tokens_for_users "$work/tokens.txt"
  cat > "$work/summary.lua" <<LUA
local tokens = {}
for line in io.lines("$work/tokens.txt") do tokens[#tokens + 1] = line end
math.randomseed(os.time())
request = function()
  local token = tokens[math.random(#tokens)]
  return wrk.format("GET", "/api/v1/summary", { ["Authorization"] = "Bearer " .. token })
end
LUA
}

part_ab() {
  local baseline="${SERVER_BENCHMARK_BASELINE_BIN:?set SERVER_BENCHMARK_BASELINE_BIN to the folder of the baseline build}"
  local zip; zip="$(export_file "$upload_size")"
  summary_load
  echo "## ab: this build ($bin) against $baseline: GET /api/v1/summary (${duration} s, 16 connections)" \
    "and an upload of $(basename "$zip") to done, $runs rounds, order alternating"
  printf '%5s %12s %12s %9s %9s %9s %9s %10s %10s %9s\n' round "summary/s" "base/s" ratio "cpu_us" "base_us" \
    ratio "upload_s" "base_s" ratio
  : > "$work/ab-rounds.txt"
  local round side rate seconds t0 id ticks requests hz
  hz="$(getconf CLK_TCK)"
  for round in $(seq 1 "$runs"); do
    declare -A rates=() uploads=() cpus=()
    local order=(new base)
    [ $((round % 2)) -eq 0 ] && order=(base new)
    for side in "${order[@]}"; do
      server_bin="$bin"
      [ "$side" = base ] && server_bin="$baseline"
      start_server --max-per-client 32 --max-connections 64
      wrk -t 2 -c 16 -d 5s -s "$work/summary.lua" "http://127.0.0.1:$port" > /dev/null
      ticks="$(cpu_ticks "$server_pid")"
      wrk -t 2 -c 16 -d "${duration}s" -s "$work/summary.lua" "http://127.0.0.1:$port" > "$work/wrk.txt"
      ticks=$(($(cpu_ticks "$server_pid") - ticks))
      grep -q 'Non-2xx' "$work/wrk.txt" && { echo "summary answered other than 200:" >&2; cat "$work/wrk.txt" >&2; exit 1; }
      rates[$side]="$(awk '/Requests\/sec/ { print $2 }' "$work/wrk.txt")"
      requests="$(awk '/ requests in / { print $1 }' "$work/wrk.txt")"
      cpus[$side]="$(awk -v t="$ticks" -v hz="$hz" -v n="$requests" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')"
      fresh_user
      t0="$(now)"
      id="$(curl -s -H "Authorization: Bearer $token" -H 'Content-Type: application/zip' --data-binary "@$zip" \
        "http://127.0.0.1:$port/api/v1/imports" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')"
      wait_done "$id"
      uploads[$side]="$(elapsed "$t0" "$(now)")"
      stop_server
    done
    server_bin=""
    echo "${rates[new]} ${rates[base]} ${uploads[new]} ${uploads[base]} ${cpus[new]} ${cpus[base]}" \
      >> "$work/ab-rounds.txt"
    printf '%5s %12.0f %12.0f %9.3f %9s %9s %9.3f %10s %10s %9.3f\n' "$round" "${rates[new]}" "${rates[base]}" \
      "$(awk -v a="${rates[new]}" -v b="${rates[base]}" 'BEGIN { print a / b }')" "${cpus[new]}" "${cpus[base]}" \
      "$(awk -v a="${cpus[new]}" -v b="${cpus[base]}" 'BEGIN { print a / b }')" "${uploads[new]}" "${uploads[base]}" \
      "$(awk -v a="${uploads[new]}" -v b="${uploads[base]}" 'BEGIN { print a / b }')"
  done
  echo "median summary ratio $(awk '{ print $1 / $2 }' "$work/ab-rounds.txt" | median) (this build's requests/s over" \
    "the baseline's; above 1 is faster), median server CPU per summary ratio" \
    "$(awk '{ print $5 / $6 }' "$work/ab-rounds.txt" | median) (below 1 is cheaper)," \
    "median upload ratio $(awk '{ print $3 / $4 }' "$work/ab-rounds.txt" | median)" \
    "(this build's seconds to done over the baseline's; below 1 is faster); the spread:" \
    "summary $(awk '{ print $1 / $2 }' "$work/ab-rounds.txt" | sort -g | sed -n '1p;$p' | paste -sd-)," \
    "CPU $(awk '{ print $5 / $6 }' "$work/ab-rounds.txt" | sort -g | sed -n '1p;$p' | paste -sd-)," \
    "upload $(awk '{ print $3 / $4 }' "$work/ab-rounds.txt" | sort -g | sed -n '1p;$p' | paste -sd-)"
  echo "geometric mean and 95 % confidence interval: summary" \
    "$(awk '{ print $1 / $2 }' "$work/ab-rounds.txt" | geometric_interval)," \
    "server CPU per summary $(awk '{ print $5 / $6 }' "$work/ab-rounds.txt" | geometric_interval)," \
    "upload $(awk '{ print $3 / $4 }' "$work/ab-rounds.txt" | geometric_interval)"
}

# hae_payload FILE SEED: a Health Auto Export body of about 5 MB, per-sample entries only,
# distinct per seed (the times shift by SEED minutes).
hae_payload() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import datetime, json, sys
path, seed = sys.argv[1], int(sys.argv[2])
zone = datetime.timezone(datetime.timedelta(hours=2))
start = datetime.datetime(2024, 1, 1, 23, 0, tzinfo=zone) + datetime.timedelta(minutes=seed)
stages = ["Core", "Deep", "Core", "REM", "Awake"]
entries, size, i = [], 0, 0
while size < 5_000_000:
    begin = start + datetime.timedelta(days=i // 40, minutes=(i % 40) * 12)
    end = begin + datetime.timedelta(minutes=11)
    entry = {"startDate": begin.strftime("%Y-%m-%d %H:%M:%S %z"), "endDate": end.strftime("%Y-%m-%d %H:%M:%S %z"),
             "value": stages[i % len(stages)], "source": "Bench Watch", "qty": 11 / 60, "date": None}
    entries.append(entry)
    size += len(json.dumps(entry)) + 2
    i += 1
json.dump({"data": {"metrics": [{"name": "sleep_analysis", "units": "hr", "data": entries}]}}, open(path, "w"))
PY
}

# latencies LABEL FILE: p50, p99 and max of the seconds in FILE (one per line).
latencies() {
  sort -n "$2" | awk -v label="$1" '{ v[NR] = $1 } END {
    p50 = v[int((NR - 1) * 0.50) + 1]; p99 = v[int((NR - 1) * 0.99) + 1]
    printf "%-8s %4d requests: p50 %.3f s, p99 %.3f s, max %.3f s\n", label, NR, p50, p99, v[NR] }'
}

part_hae() {
  local phones=8 per_phone=12
  echo "## hae: $phones phones at once, $per_phone distinct 5 MB payloads each"
  start_server --max-per-client 32 --max-pending 1000
  local tokens=()
  for phone in $(seq 1 "$phones"); do
    fresh_user; tokens+=("$token")
    for request in $(seq 1 "$per_phone"); do
      [ -s "$data/hae-$phone-$request.json" ] || hae_payload "$data/hae-$phone-$request.json" $((phone * 100 + request))
    done
  done
  echo "payload: $(stat -c %s "$data/hae-1-1.json" | awk '{ printf "%.1f MB", $1 / 1e6 }')"
  : > "$work/hae.txt"; : > "$work/healthz.txt"
  local pids=()
  for phone in $(seq 1 "$phones"); do
    (
      for request in $(seq 1 "$per_phone"); do
        curl -s -o /dev/null -w '%{time_total} %{http_code}\n' -H "Authorization: Bearer ${tokens[$((phone - 1))]}" \
          -H "Content-Type: application/json" --data-binary @"$data/hae-$phone-$request.json" \
          "http://127.0.0.1:$port/api/v1/ingest/health-auto-export" >> "$work/hae.txt"
        curl -s -o /dev/null -w '%{time_total} %{http_code}\n' "http://127.0.0.1:$port/healthz" >> "$work/healthz.txt"
      done
    ) &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  echo "statuses: $(awk '{ print $2 }' "$work/hae.txt" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
  awk '{ print $1 }' "$work/hae.txt" > "$work/hae-seconds.txt"
  awk '{ print $1 }' "$work/healthz.txt" > "$work/healthz-seconds.txt"
  latencies ingest "$work/hae-seconds.txt"
  latencies healthz "$work/healthz-seconds.txt"
  echo "(the goal: ingest p99 under 1 s; /healthz under the same load is the baseline)"
  stop_server
}

part_memory() {
  local zip; zip="$(export_file "$memory_size")"
  local users=20
  # Twenty people come from twenty addresses; here they all come from 127.0.0.1.
  start_server --max-per-client 32
  echo "## memory: $users users upload $(basename "$zip") ($(stat -c %s "$zip" | awk '{ printf "%.1f MB", $1 / 1e6 }')) at once, default workers"
  local tokens=() t0; t0="$(now)"
  for _ in $(seq 1 "$users"); do fresh_user; tokens+=("$token"); done
  local pids=()
  for i in $(seq 0 $((users - 1))); do
    curl -s -o "$work/answer-$i.json" -H "Authorization: Bearer ${tokens[$i]}" -H "Content-Type: application/zip" \
      --data-binary @"$zip" "http://127.0.0.1:$port/api/v1/imports" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  local t_sent; t_sent="$(now)"
  for i in $(seq 0 $((users - 1))); do
    token="${tokens[$i]}"
    wait_done "$(json_field 'd["import"]["id"]' < "$work/answer-$i.json")"
  done
  local t_done; t_done="$(now)"
  local peak; peak="$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$server_pid/status")"
  echo "all $users imports done: uploads $(elapsed "$t0" "$t_sent") s, all imported $(elapsed "$t0" "$t_done") s;" \
    "server peak RSS ${peak} MB (the goal: under 256 MB)"
  stop_server
}

for part in "${parts[@]}"; do
  case "$part" in
    upload) part_upload ;;
    summary) part_summary ;;
    ab) part_ab ;;
    hae) part_hae ;;
    memory) part_memory ;;
    *) echo "unknown part: $part" >&2; exit 64 ;;
  esac
done
