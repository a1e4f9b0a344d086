#!/usr/bin/env bash
# Replica test (issue 23, item 6; docs/reliability.md, "Reads from a replica"): a primary
# and a streaming replica made with `pg_basebackup -R` on loopback, the server with
# SLEEPLEDGER_READ_DATABASE_URL naming the replica first (target_session_attrs=prefer-standby).
# With the replica's replay paused (so it visibly lags), it checks:
#
#   - reads of a person who wrote nothing since go to the replica: their summary, nights
#     and dashboard still show what the primary no longer has (rows removed there);
#   - read your writes: right after an upload is imported and rolled up (the client polls
#     its status and /api/v1/me on the primary), that person's nights and summary show the
#     new nights (from the primary, as the replica cannot catch up within 200 ms);
#   - a token revoked on the primary fails at once, though the replica still has it;
#   - no write goes to the replica (every upload and revocation answered 2xx while it is
#     read-only and paused);
#   - the replica's lag is on /metrics while paused (above 0) and 0 once replay resumed,
#     after which the first person's reads show the primary's rows again;
#   - sleepledger-admin reads through SLEEPLEDGER_ADMIN_DATABASE_URL naming the standby.
#
#   deploy/replica-test.sh [--keep]
#
# Uses the build deploy/test.sh made (SLEEPLEDGER_BIN, else a release build). Ports:
# REPLICA_TEST_PORT (default 56410) for the primary, the next for the replica. Time bound:
# 2 minutes. Exits 1 when a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."

keep=0
[ "${1:-}" = "--keep" ] && keep=1
bound=120
test_started="$(date +%s)"
echo "replica-test: reads from a streaming replica, read your writes; bound $bound s"

. deploy/lib/private-cluster.sh
. deploy/lib/pg-auto-failover.sh
paf_test_start ha-replica
port="${REPLICA_TEST_PORT:-56410}"
finish() {
  local status=$?
  stop_server
  for node in replica primary; do
    [ -f "$paf/$node/postmaster.pid" ] && as_service pg_ctl -D "$paf/$node" -m fast -w stop >/dev/null 2>&1 || true
  done
  if [ "$status" -eq 0 ] && [ "$keep" -eq 0 ]; then rm -rf "$work"; else echo "logs kept in $work" >&2; fi
}
trap finish EXIT

paf_setup "$work/pg"
paf_initdb primary
as_service pg_ctl -D "$paf/primary" -l "$paf/primary.log" -o "-p $port -c listen_addresses=127.0.0.1" -w start \
  >/dev/null
as_service createdb -h 127.0.0.1 -p "$port" -U "$paf_service_user" sleepledger
as_service pg_basebackup -h 127.0.0.1 -p "$port" -U "$paf_service_user" -D "$paf/replica" -R -X stream --checkpoint fast
as_service pg_ctl -D "$paf/replica" -l "$paf/replica.log" -o "-p $((port + 1)) -c listen_addresses=127.0.0.1" \
  -w start >/dev/null

export DATABASE_URL="postgresql://$paf_service_user@127.0.0.1:$port/sleepledger"
replica_url="postgresql://$paf_service_user@127.0.0.1:$((port + 1))/sleepledger"
"$bin/sleepledger" migrate > "$work/migrate.log"
: > "$work/people.txt"
for handle in reader writer; do
  "$bin/sleepledger" user add "$handle" --time-zone Europe/Berlin >/dev/null
  printf 'replica test password\n' | "$bin/sleepledger" user passwd "$handle" >/dev/null
  token="$("$bin/sleepledger" token create --user "$handle" --name replica --scope full 2>/dev/null |
    grep -o 'sl_[A-Za-z0-9_-]*' | head -1)"
  echo "$handle $token" >> "$work/people.txt"
done
# The reader's export and the writer's second end today; the writer's first ends 400 days
# ago, so the writer's recent nights come only with the second.
today="$(date -u +%F)"
long_ago="$(date -u -d '400 days ago' +%F)"
for n in 1 2 3; do
  until_day="$today"
  [ "$n" -eq 2 ] && until_day="$long_ago"
  "$bin/make-export" --size 1MB --seed $((40 + n)) --until "$until_day" --format zip --output "$work/export-$n.zip" \
    >/dev/null
done

# Reads from the replica listed first; the server's role on both.
read_url="postgresql://sleepledger_server@127.0.0.1:$((port + 1)),127.0.0.1:$port/sleepledger?target_session_attrs=prefer-standby"
SLEEPLEDGER_READ_DATABASE_URL="$read_url" "$bin/sleepledger" serve --listen 127.0.0.1:0 \
  --metrics-listen 127.0.0.1:0 --spool "$work/spool" --workers 1 2> "$work/server.log" &
server_pid=$!
http_port="$(serving_port "$work/server.log" "$server_pid")" || exit 1
metrics_port="$(sed -n 's/.*metrics on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/server.log" | head -1)"

primary_sql() { psql -qtA "$DATABASE_URL" -c "$1"; }
replica_sql() { psql -qtA "$replica_url" -c "$1"; }
lag() { curl -fsS "http://127.0.0.1:$metrics_port/metrics" | awk '$1 == "sleepledger_replica_lag_seconds" { print $2 }'; }

/usr/bin/python3 - "$http_port" "$work" <<'PY' > "$work/steps.txt" &
"""The steps that need HTTP; each prints `step NAME` and waits for the shell's file
`go-NAME` where the shell acts on the databases in between, and `check NAME ok|FAIL why`."""
import http.cookiejar, json, os, re, sys, time, urllib.error, urllib.parse, urllib.request

port, work = sys.argv[1], sys.argv[2]
base = f"http://127.0.0.1:{port}"
people = dict(line.split() for line in open(f"{work}/people.txt").read().split("\n")[:-1])


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


def call(path, token=None, data=None, content_type=None, method=None, opener=None):
    headers = {}
    if token:
        headers["Authorization"] = "Bearer " + token
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with (opener or urllib.request.build_opener()).open(request, timeout=60) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def step(name):
    print(f"step {name}", flush=True)
    while not os.path.exists(f"{work}/go-{name}"):
        time.sleep(0.05)


def check(name, ok, why=""):
    print(f"check {name} {'ok' if ok else 'FAIL'} {why}", flush=True)


def upload(handle, n):
    token = people[handle]
    status, body = call("/api/v1/imports", token, open(f"{work}/export-{n}.zip", "rb").read(), "application/zip")
    if status != 202:
        return status, None
    number = json.loads(body)["import"]["id"]
    # The client polls the import's status (on the primary) until it is done.
    for _ in range(600):
        status, body = call(f"/api/v1/imports/{number}", token)
        if status == 200 and json.loads(body)["import"]["state"] in ("done", "failed"):
            job = json.loads(body)["import"]
            # Then its rollup (the worker's, right after the import), as /api/v1/me says.
            for _ in range(600):
                status, body = call("/api/v1/me", token)
                if status == 200 and not json.loads(body)["rollup_pending"]:
                    break
                time.sleep(0.1)
            return 202, job
        time.sleep(0.1)
    return 202, None


def nights(handle):
    """The person's nights of the last 300 days."""
    last = time.strftime("%Y-%m-%d", time.gmtime())
    first = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 300 * 86400))
    status, body = call(f"/api/v1/nights?from={first}&to={last}", people[handle])
    return status, len(json.loads(body)["nights"]) if status == 200 else -1


def sign_in(handle):
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    _, body = call("/sign-in", opener=opener)
    csrf = re.search(rb'name="csrf_token" value="([^"]+)"', body).group(1).decode()
    form = urllib.parse.urlencode({"csrf_token": csrf, "handle": handle, "password": "replica test password"})
    call("/sign-in", data=form.encode(), content_type="application/x-www-form-urlencoded", opener=opener)
    return opener


# Both people have data, imported while the replica streams.
for handle, n in (("reader", 1), ("writer", 2)):
    status, job = upload(handle, n)
    check(f"upload-{handle}", status == 202 and job and job["state"] == "done", f"{status} {job and job['state']}")
dashboard = sign_in("reader")
step("caught-up")
reader_summary = call("/api/v1/summary", people["reader"])
reader_nights = nights("reader")
reader_dashboard = call("/", opener=dashboard)
check("reader-before", reader_summary[0] == 200 and reader_nights[1] > 0 and b"empty-state" not in reader_dashboard[1],
      f"{reader_summary[0]} {reader_nights}")
step("paused-and-removed")
# The primary no longer has the reader's summaries and nights; the paused replica does.
summary = call("/api/v1/summary", people["reader"])
check("reader-reads-replica-summary", summary == reader_summary, f"{summary[0]}")
check("reader-reads-replica-nights", nights("reader") == reader_nights, f"{nights('reader')} {reader_nights}")
page = call("/", opener=dashboard)
check("reader-reads-replica-dashboard", page[0] == 200 and b"empty-state" not in page[1], f"{page[0]}")
# Read your writes: the writer's new export, then their reads at once.
writer_before = nights("writer")
writer_summary = call("/api/v1/summary", people["writer"])
status, job = upload("writer", 3)
check("writer-upload-while-paused", status == 202 and job and job["state"] == "done", f"{status}")
after = nights("writer")
check("writer-reads-own-write", after[0] == 200 and after[1] > writer_before[1], f"{writer_before} -> {after}")
summary = call("/api/v1/summary", people["writer"])
check("writer-summary-fresh", summary[0] == 200 and summary[1] != writer_summary[1], f"{summary[0]}")
# A token revoked on the primary fails at once.
status, body = call("/api/v1/tokens", people["reader"])
tokens = json.loads(body)
token_id = [t for t in (tokens if isinstance(tokens, list) else tokens.get("tokens", []))][0]["id"]
status, _ = call(f"/api/v1/tokens/{token_id}", people["reader"], method="DELETE")
check("revoke-on-primary", status in (200, 204), f"{status}")
status, _ = call("/api/v1/summary", people["reader"])
check("revoked-token-refused", status == 401, f"{status}")
step("resumed")
# Caught up again: the reader's reads show what the primary has (summaries removed there).
status, _ = call("/api/v1/summary", people["writer"])
page = call("/", opener=dashboard)
check("reader-after-resume", page[0] == 200 and b"empty-state" in page[1], f"{page[0]}")
step("done")
PY
steps_pid=$!

failed=0
wait_step() {
  local _
  for _ in $(seq 1 1200); do
    grep -q "^step $1\$" "$work/steps.txt" 2>/dev/null && return 0
    kill -0 "$steps_pid" 2>/dev/null || { cat "$work/steps.txt"; echo "the HTTP steps ended early" >&2; exit 1; }
    sleep 0.1
  done
  echo "timed out waiting for step $1" >&2
  exit 1
}

wait_step caught-up
# The replica has replayed everything so far.
for _ in $(seq 1 100); do
  [ "$(replica_sql "SELECT pg_last_wal_replay_lsn() >= '$(primary_sql 'SELECT pg_current_wal_lsn()')'::pg_lsn")" = t ] && break
  sleep 0.1
done
touch "$work/go-caught-up"
wait_step paused-and-removed
replica_sql "SELECT pg_wal_replay_pause()" >/dev/null
primary_sql "DELETE FROM summaries WHERE user_id = (SELECT id FROM users WHERE handle = 'reader');
  DELETE FROM nights WHERE user_id = (SELECT id FROM users WHERE handle = 'reader')" >/dev/null
sleep 1
lag_paused="$(lag)"
touch "$work/go-paused-and-removed"
wait_step resumed
lag_before_resume="$(lag)"
replica_sql "SELECT pg_wal_replay_resume()" >/dev/null
for _ in $(seq 1 100); do
  [ "$(lag)" = "0" ] && break
  sleep 0.1
done
lag_resumed="$(lag)"
touch "$work/go-resumed"
wait_step done
touch "$work/go-done"
wait "$steps_pid" || true

admin_users="$(SLEEPLEDGER_ADMIN_DATABASE_URL="postgresql://sleepledger_readonly@127.0.0.1:$((port + 1))/sleepledger" \
  "$bin/sleepledger-admin" users 2> "$work/admin.log" || true)"
in_recovery="$(replica_sql "SELECT pg_is_in_recovery()")"

check() { if eval "$2"; then echo "  ok    $1"; else echo "  FAIL  $1"; failed=1; fi; }
echo "replica-test: results"
while read -r _ name verdict why; do
  if [ "$verdict" = ok ]; then echo "  ok    $name"; else echo "  FAIL  $name ($why)"; failed=1; fi
done < <(grep '^check ' "$work/steps.txt")
echo "  replica lag on /metrics: paused ${lag_paused:-?} s, before resuming ${lag_before_resume:-?} s, resumed ${lag_resumed:-?} s"
check "every HTTP step ran" '[ "$(grep -c "^check " "$work/steps.txt")" -eq 12 ]'
check "the lag shows while replay is paused after a write" \
  'awk -v l="${lag_before_resume:-0}" "BEGIN { exit !(l > 0) }"'
check "the lag is 0 once replay resumed" '[ "$lag_resumed" = "0" ]'
check "the replica stayed a standby" '[ "$in_recovery" = t ]'
check "sleepledger-admin reads from the standby" 'printf "%s\n" "$admin_users" | grep -q writer'
check "the server never lost the database" '! grep -q "lost\|unavailable" "$work/server.log"'
elapsed=$(( $(date +%s) - test_started ))
check "within the bound (${elapsed} s of $bound s)" '[ "$elapsed" -le "$bound" ]'
[ "$failed" -eq 0 ] || { cat "$work/steps.txt"; echo "replica-test FAILED"; exit 1; }
echo "replica-test passed in $elapsed s"
