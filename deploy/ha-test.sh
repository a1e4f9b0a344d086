#!/usr/bin/env bash
# Failover test (issue 23, item 5; docs/reliability.md, "Failover"): a pg_auto_failover
# formation on loopback (a monitor and two nodes, deploy/lib/pg-auto-failover.sh), the
# server and a `sleepledger worker` connected through the formation's multi-host URL
# (target_session_attrs=read-write, with a password in it that no log may show), and for
# at least --seconds (default 120) five people uploading exports and pushing Health Auto
# Export payloads while, in turn:
#
#   1. a switchover (node1 -> node2) by deploy/ha/switchover.sh, which fences the old
#      primary before `pg_autoctl perform switchover`;
#   2. the primary's PostgreSQL and its keeper killed with SIGKILL (node2: a dead host),
#      until the monitor promotes node1;
#   3. the killed node's keeper started again, until node2 is back as secondary;
#   4. a second switchover, back to node2, meeting pg_auto_failover issue #774 on purpose:
#      both keepers paused, the monitor's goal for node1 set to wait_primary once it assigned
#      draining (what the race does), node1's keeper resumed until it reports wait_primary
#      (synchronous replication off), then node2's. Without the fence, node1 then takes
#      writes for the monitor's 30 s demote timeout while node2 is promoted, and they are
#      lost (as a CI run once found when the race struck by itself).
#
# Judged: every upload answered 202 is imported exactly once (one job done, one import)
# and the spool ends empty; nothing acknowledged is lost (a clean single server importing
# exactly the accepted files holds the same samples); the nightly rollup run after the
# failover equals the one on that clean server (every stored summary and night); the gaps
# of 5xx answers after each event are printed and bounded (writes stopped under 10 s after
# a switchover, under 90 s after the kill with pg_auto_failover's default timeouts); the
# server and the worker never needed a restart; no log shows the password; each switchover
# fenced the old primary first, and the second met #774 (writes stopped under 45 s there,
# the demote timeout; under 10 s after the first, unless the race struck it too).
#
# Backups through the failovers (issue 23, item 5): both nodes archive WAL with Debian's
# pgBackRest (archive_mode and archive_command in postgresql.conf, which pg_autoctl keeps
# and copies to the secondary) to a repository in the test's folder, one stanza naming both
# nodes (pg1: node1, pg2: node2). `pgbackrest check` runs, as the service user, once before
# the load (node1 primary), after the kill's promotion (node1, node2 dead) and after the
# switch back (node2), and a full `pgbackrest backup` after it. Judged: each check passed
# against the node that had just become primary (that node not in recovery, the segment the
# check waited for on that node's timeline, a newer timeline each time, and that node's own
# archiver the one that pushed it, pg_stat_archiver), the backup was taken from the new
# primary (its first WAL segment on node2's timeline), and as root no pgBackRest file is
# root's.
#
#   deploy/ha-test.sh [--seconds N] [--keep]
#
# Uses the build deploy/test.sh made (SLEEPLEDGER_BIN, else a release build). Ports:
# HA_TEST_PORT (default 56400) for the monitor, the next two for the nodes. Time bound:
# 6 minutes on a loaded 2-core machine (about 4 measured). Exits 1 when a check fails.
# Every pgbackrest command runs as the service user (never root: root-owned lock and log
# files would stop the nodes' archive-push).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=120
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "usage: deploy/ha-test.sh [--seconds N] [--keep]" >&2; exit 64 ;;
  esac
done
bound=360
test_started="$(date +%s)"
echo "ha-test: failover under load, at least $seconds s of load; bound $bound s"

. deploy/lib/private-cluster.sh
. deploy/lib/pg-auto-failover.sh
paf_test_start ha-test
port="${HA_TEST_PORT:-56400}"
worker_pid=""
finish() {
  local status=$?
  # shellcheck disable=SC2086
  [ -z "${race_pids:-}" ] || kill -CONT $race_pids 2>/dev/null || true
  stop_server
  [ -z "$worker_pid" ] || { kill "$worker_pid" 2>/dev/null || true; wait "$worker_pid" 2>/dev/null || true; }
  paf_stop_all
  SLEEPLEDGER_HOME="$work/clean" "$bin/sleepledger" db stop >/dev/null 2>&1 || true
  if [ "$status" -eq 0 ] && [ "$keep" -eq 0 ]; then rm -rf "$work"; else echo "logs kept in $work" >&2; fi
}
trap finish EXIT

# The formation: a monitor, node1 (primary), node2 (synchronous secondary), both archiving
# WAL with pgBackRest to one stanza (created once node1 runs).
paf_setup "$work/paf"
paf_pgbackrest_setup node1 $((port + 1)) node2 $((port + 2))
paf_monitor "$port"
paf_node node1 $((port + 1))
paf_wait node1 single 60 || { paf_state; echo "node1 did not start" >&2; exit 1; }
# The monitor may report node1 single while its PostgreSQL still restarts ("the database
# system is starting up", seen once under CI load): try for up to 30 s.
stanza_deadline=$(( $(date +%s) + 30 ))
until paf_pgbackrest stanza-create > "$work/pgbackrest-stanza-create.log" 2>&1; do
  [ "$(date +%s)" -lt "$stanza_deadline" ] ||
    { cat "$work/pgbackrest-stanza-create.log" >&2; echo "pgbackrest stanza-create failed for 30 s" >&2; exit 1; }
  sleep 1
done
paf_node node2 $((port + 2))
paf_wait node2 secondary 90 || { paf_state; echo "node2 did not become secondary" >&2; exit 1; }
echo "formation up after $(( $(date +%s) - test_started )) s:"
paf_state

# backrest_check LABEL NODE: `pgbackrest check` on the stanza of both nodes, then NODE's own
# view of itself: in recovery?, its timeline, the last segment its archiver pushed. One line
# in pgbackrest.txt: LABEL NODE EXIT SECONDS SEGMENT IN_RECOVERY TIMELINE LAST_ARCHIVED.
node_port() { if [ "$1" = node1 ]; then echo $((port + 1)); else echo $((port + 2)); fi; }
backrest_check() {
  local label="$1" node="$2" begin status=0 seconds segment facts
  begin="$(date +%s.%N)"
  paf_pgbackrest --log-level-console=info check > "$work/pgbackrest-check-$label.log" 2>&1 || status=$?
  seconds="$(awk -v b="$begin" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - b }')"
  segment="$(sed -n 's/.*WAL segment \([0-9A-F]\{24\}\) successfully archived.*/\1/p' "$work/pgbackrest-check-$label.log" |
    tail -1)"
  facts="$(as_service psql -X -qtA -F ' ' -h "$paf/run" -p "$(node_port "$node")" -d postgres -c "
    SELECT pg_is_in_recovery(), CASE WHEN pg_is_in_recovery() THEN '-'
      ELSE substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) END, coalesce(last_archived_wal, '-')
    FROM pg_stat_archiver" 2>/dev/null || echo "? ? ?")"
  echo "$label $node $status $seconds ${segment:--} $facts" >> "$work/pgbackrest.txt"
  echo "  pgbackrest check ($label, against $node): exit $status in $seconds s, segment ${segment:-none};" \
    "$node in recovery, timeline, last archived: $facts"
}
# backrest_passed LABEL NODE: LABEL's check passed against NODE: NODE a primary, the segment
# the check waited for on NODE's timeline, and NODE's own archiver pushed it (or a later one).
backrest_passed() {
  awk -v label="$1" -v node="$2" '$1 == label && $2 == node && $3 == 0 && $5 != "-" && $6 == "f" &&
    substr($5, 1, 8) == $7 && substr($8, 1, 8) == $7 && ($8 "") >= ($5 "") { ok = 1 } END { exit !ok }' \
    "$work/pgbackrest.txt"
}
: > "$work/pgbackrest.txt"
backrest_check before node1

# Issue #774 on purpose (item 4 above). race_begin OLD NEW pauses both keepers' services
# that talk to the monitor (their PostgreSQL runs on); race_finish OLD, in the
# background while the switchover runs, waits for the monitor to assign OLD draining, sets
# OLD's goal to wait_primary, resumes OLD's keeper until it reports wait_primary, then the
# other's.
# node_active_pid NAME: that service of NAME's keeper (the last its supervisor started).
node_active_pid() {
  sed -n 's/.*Started pg_autoctl node-active service with pid \([0-9]*\).*/\1/p' "$paf/$1.run.log" | tail -1
}
monitor_sql() { as_service psql -X -qtA -h "$paf/run" -p "$port" -d pg_auto_failover -c "$1"; }
race_begin() {
  race_pids="$(node_active_pid "$1") $(node_active_pid "$2")"
  # shellcheck disable=SC2086
  kill -STOP $race_pids
}
# node_state NAME COLUMN VALUE: waits up to 30 s for the monitor's COLUMN of NAME to be
# VALUE; prints the last value read.
node_state() {
  local value _
  for _ in $(seq 1 300); do
    value="$(monitor_sql "SELECT $2 FROM pgautofailover.node WHERE nodename = '$1'")"
    [ "$value" = "$3" ] && break
    sleep 0.1
  done
  echo "$value"
}
race_finish() {
  local old="$1" old_pid new_pid
  read -r old_pid new_pid <<<"$race_pids"
  echo "$(date -u +%T) $old assigned $(node_state "$old" goalstate draining)"
  monitor_sql "UPDATE pgautofailover.node SET goalstate = 'wait_primary' WHERE nodename = '$old'" >/dev/null
  kill -CONT "$old_pid"
  echo "$(date -u +%T) $old reports $(node_state "$old" reportedstate wait_primary)"
  kill -CONT "$new_pid"
}

# The application's URL: the formation's hosts, read-write, as the superuser with a
# password (trust ignores it; no log may show it).
password="ha-secret-$RANDOM$RANDOM"
export DATABASE_URL="postgresql://$paf_service_user:$password@127.0.0.1:$((port + 1)),127.0.0.1:$((port + 2))/sleepledger?target_session_attrs=read-write&connect_timeout=5"
"$bin/sleepledger" migrate > "$work/migrate.log"

users=5
handles=()
: > "$work/people.txt"
for user in $(seq 1 "$users"); do
  handle="ha$user"
  handles+=("$handle")
  "$bin/sleepledger" user add "$handle" --time-zone Europe/Berlin >/dev/null
  token="$("$bin/sleepledger" token create --user "$handle" --name ha --scope full 2>/dev/null |
    grep -o 'sl_[A-Za-z0-9_-]*' | head -1)"
  echo "$handle $token" >> "$work/people.txt"
  for n in 1 2; do
    "$bin/make-export" --size 400KB --seed $((user * 10 + n)) --format zip --output "$work/export-$handle-$n.zip" \
      >/dev/null
  done
done

mkdir -p "$work/spool"
"$bin/sleepledger" serve --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 --spool "$work/spool" --workers 1 \
  --max-per-client 64 2> "$work/server.log" &
server_pid=$!
"$bin/sleepledger" worker --workers 1 2> "$work/worker.log" &
worker_pid=$!
http_port="$(serving_port "$work/server.log" "$server_pid")" || exit 1
metrics_port="$(sed -n 's/.*metrics on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/server.log" | head -1)"
echo "server pid $server_pid on port $http_port, worker pid $worker_pid"

# The load, until the events are over (the file `stop`) and at least $seconds passed.
/usr/bin/python3 - "$http_port" "$work" "$seconds" <<'PY' &
"""Five people: each uploads their two exports at random moments of the first minute and
pushes a Health Auto Export payload (a night of its own: distinct bytes) every 2-4 s, and
reads its summary and nights between; every request's start, end, kind and status go to
requests.txt, every accepted file's path to accepted.txt."""
import json, os, random, sys, threading, time, urllib.error, urllib.request

port, work, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
base = f"http://127.0.0.1:{port}"
started = time.time()
lock = threading.Lock()
out = open(f"{work}/requests.txt", "w")
accepted = open(f"{work}/accepted.txt", "w")
os.makedirs(f"{work}/pushes", exist_ok=True)


def running():
    return time.time() - started < seconds or not os.path.exists(f"{work}/stop")


def request(kind, path, token, data=None, content_type=None):
    headers = {"Authorization": "Bearer " + token}
    if content_type:
        headers["Content-Type"] = content_type
    begin = time.time()
    try:
        with urllib.request.urlopen(urllib.request.Request(base + path, data=data, headers=headers), timeout=120) as r:
            status, body = r.status, r.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
        retry = error.headers.get("Retry-After")
        if status == 503 and not retry:
            status = 599  # a 503 without Retry-After: judged as an error of its own
    except OSError:
        status, body = 0, b""
    with lock:
        out.write(f"{begin:.3f} {time.time():.3f} {kind} {status}\n")
        out.flush()
    return status


def payload(handle, n):
    """One night of core sleep for push n, on a day of its own."""
    day = time.gmtime(1420070400 + n * 86400)  # from 2015-01-01
    date = time.strftime("%Y-%m-%d", day)
    sample = {"source": f"HA test {handle}", "startDate": f"{date} 00:{n % 60:02d}:00 +0100",
              "endDate": f"{date} 07:{n % 60:02d}:00 +0100", "value": "Core", "date": None, "qty": 7.0}
    return json.dumps({"data": {"metrics": [{"name": "sleep_analysis", "units": "hr", "data": [sample]}]}}).encode()


def person(handle, token):
    # The two exports at random moments of the first minute; one refused (a 503 during a
    # failover) is sent again 5 s later.
    uploads = sorted((started + random.uniform(5, 60), f"{work}/export-{handle}-{n}.zip") for n in (1, 2))
    pushes = 0
    next_push = time.time() + random.uniform(0, 3)
    while running():
        now = time.time()
        if uploads and now >= uploads[0][0]:
            _, path = uploads.pop(0)
            status = request("upload", "/api/v1/imports", token, open(path, "rb").read(), "application/zip")
            if status in (200, 202):
                with lock:
                    accepted.write(f"{handle} {status} {path}\n")
                    accepted.flush()
            else:
                uploads.append((time.time() + 5, path))
                uploads.sort()
            continue
        if now >= next_push:
            pushes += 1
            path = f"{work}/pushes/{handle}-{pushes}.json"
            body = payload(handle, pushes)
            open(path, "wb").write(body)
            status = request("push", "/api/v1/ingest/health-auto-export", token, body, "application/json")
            if status in (200, 202):
                with lock:
                    accepted.write(f"{handle} {status} {path}\n")
                    accepted.flush()
            next_push = time.time() + random.uniform(2, 4)
            continue
        request("read", "/api/v1/summary", token)
        request("read", "/api/v1/nights", token)
        time.sleep(random.uniform(0.2, 0.6))


threads = []
for line in open(f"{work}/people.txt").read().split("\n")[:-1]:
    handle, token = line.split()
    threads.append(threading.Thread(target=person, args=(handle, token)))
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
out.close()
accepted.close()
PY
load_pid=$!

event() { echo "$(date +%s.%N | cut -c1-14) $1" >> "$work/events.txt"; echo "  $(date -u +%T) $1"; }
sleep 20
event "switchover"
paf_switchover || { cat "$paf/switchover.log"; paf_state; echo "the switchover failed" >&2; exit 1; }
paf_wait node2 primary 90 && paf_wait node1 secondary 60 || { paf_state; echo "no primary after switchover" >&2; exit 1; }
event "switchover-done"
sleep 15
event "kill"
paf_kill node2
paf_wait node1 wait_primary 150 || paf_wait node1 primary 5 ||
  { paf_state; echo "node1 was not promoted after the kill" >&2; exit 1; }
event "kill-promoted"
backrest_check kill node1
paf_run node2
paf_wait node2 secondary 150 && paf_wait node1 primary 30 ||
  { paf_state; echo "node2 did not come back as secondary" >&2; exit 1; }
event "node2-secondary"
paf_state
sleep 5
event "switchback"
race_begin node1 node2
race_finish node1 > "$work/race.log" 2>&1 &
race_pid=$!
paf_switchover || { cat "$paf/switchover.log"; paf_state; echo "the switchback failed" >&2; exit 1; }
wait "$race_pid" || true
paf_wait node2 primary 90 && paf_wait node1 secondary 60 || { paf_state; echo "no primary after switchback" >&2; exit 1; }
event "switchback-done"
switchback_done="$(date +%s)"
backrest_check switchback node2
# A full backup of the new primary, under the load.
backup_begin="$(date +%s.%N)"
backup_status=0
paf_pgbackrest --type=full backup > "$work/pgbackrest-backup.log" 2>&1 || backup_status=$?
backup_seconds="$(awk -v b="$backup_begin" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - b }')"
paf_pgbackrest --output=json info > "$work/pgbackrest-info.json" 2>> "$work/pgbackrest-backup.log" || true
# The newest backup: type, its first WAL segment, the cluster's size and what it added to the repository.
read -r backup_type backup_start backup_size backup_delta <<<"$(python3 -c '
import json, sys
backups = json.load(open(sys.argv[1]))[0].get("backup", [])
b = backups[-1] if backups else {"type": "-", "archive": {"start": "-"}, "info": {"size": 0, "repository": {"delta": 0}}}
print(b["type"], b["archive"]["start"], b["info"]["size"], b["info"]["repository"]["delta"])
' "$work/pgbackrest-info.json" 2>/dev/null || echo "- - 0 0")"
echo "  pgbackrest backup --type=full: exit $backup_status in $backup_seconds s; $backup_type backup from $backup_start," \
  "cluster $((backup_size / 1048576)) MB, $((backup_delta / 1048576)) MB into the repository"
# What the repository holds: every WAL segment and timeline history file archived.
find "$paf/pgbackrest/repository/archive" -type f -name '0*' -printf '%f\n' | cut -c1-24 | sort -u \
  > "$work/pgbackrest-archive.txt"
left=$(( switchback_done + 10 - $(date +%s) ))
[ "$left" -le 0 ] || sleep "$left"
touch "$work/stop"
wait "$load_pid"
event "load-done"
paf_state

# The queue drains (the server's and the worker's threads).
for _ in $(seq 1 240); do
  left="$(psql -tA "$DATABASE_URL" -c "SELECT count(*) FROM import_jobs WHERE state IN ('queued', 'running')")"
  [ "$left" -eq 0 ] && break
  sleep 0.5
done

failed=0
check() { if eval "$2"; then echo "  ok    $1"; else echo "  FAIL  $1"; failed=1; fi; }
server_alive=0; kill -0 "$server_pid" 2>/dev/null && server_alive=1
worker_alive=0; kill -0 "$worker_pid" 2>/dev/null && worker_alive=1

# The nightly rollup after the failover, then a clean single server with exactly the accepted files.
as_of="$(date -u +%F)"
"$bin/sleepledger" rollup --as-of "$as_of" > "$work/rollup.log" 2>&1 || echo "rollup failed: $?" >> "$work/rollup.log"
stop_server
kill "$worker_pid" 2>/dev/null || true
wait "$worker_pid" 2>/dev/null || true
worker_pid=""
summaries_sql="SELECT u.handle, s.horizon, s.as_of, s.debt_seconds, s.net_balance_seconds, s.score, s.tracked_nights,
  md5(s.summary::text) FROM summaries s JOIN users u ON u.id = s.user_id ORDER BY 1, 2"
nights_sql="SELECT u.handle, count(*), sum(n.asleep_seconds), min(n.wake_day), max(n.wake_day)
  FROM nights n JOIN users u ON u.id = n.user_id GROUP BY 1 ORDER BY 1"
samples_sql="SELECT u.handle, count(*) FROM sleep_samples s JOIN users u ON u.id = s.user_id GROUP BY 1 ORDER BY 1"
psql -tA "$DATABASE_URL" -c "$summaries_sql" > "$work/ha-summaries.txt"
psql -tA "$DATABASE_URL" -c "$nights_sql" > "$work/ha-nights.txt"
psql -tA "$DATABASE_URL" -c "$samples_sql" > "$work/ha-samples.txt"
# An upload whose COMMIT reached the standby while the primary died is answered 503 (the
# server cannot know the commit landed) and its spooled file removed: its job, found on the
# new primary, ends failed asking for the upload again, and the client sends it again. Such
# jobs ("unanswered") are counted apart: every job is either an accepted upload's, done
# once, or one of them.
read -r jobs done_jobs first_attempt job_imports imports unanswered <<<"$(psql -tA -F ' ' "$DATABASE_URL" -c "
  SELECT count(*), count(*) FILTER (WHERE state = 'done'), count(*) FILTER (WHERE state = 'done' AND attempts = 1),
    count(DISTINCT import_id) FILTER (WHERE state = 'done'), (SELECT count(*) FROM imports WHERE status = 'succeeded'),
    count(*) FILTER (WHERE state = 'failed' AND error LIKE '%no longer in the spool%') FROM import_jobs")"

(
  unset DATABASE_URL
  export SLEEPLEDGER_HOME="$work/clean"
  "$bin/sleepledger" db start >/dev/null
  for handle in "${handles[@]}"; do
    "$bin/sleepledger" user add "$handle" --time-zone Europe/Berlin >/dev/null
    files=()
    while read -r _ _ path; do files+=("$path"); done < <(awk -v h="$handle" '$1 == h && $2 == 202' "$work/accepted.txt")
    [ "${#files[@]}" -eq 0 ] || "$bin/sleepledger" import --user "$handle" "${files[@]}" >> "$work/clean-import.log" 2>&1
  done
  "$bin/sleepledger" rollup --as-of "$as_of" >> "$work/clean-rollup.log" 2>&1
  clean="$("$bin/sleepledger" db url)"
  psql -tA "$clean" -c "$summaries_sql" > "$work/clean-summaries.txt"
  psql -tA "$clean" -c "$nights_sql" > "$work/clean-nights.txt"
  psql -tA "$clean" -c "$samples_sql" > "$work/clean-samples.txt"
  "$bin/sleepledger" db stop >/dev/null
)

# The gaps: per event, from the last answer before the first failure to the first success
# after the last failure, for writes (uploads and pushes) and for reads.
python3 - "$work/requests.txt" "$work/events.txt" > "$work/gaps.txt" <<'PY'
import sys
requests = [line.split() for line in open(sys.argv[1])]
events = [line.split() for line in open(sys.argv[2])]
times = {name: float(t) for t, name in events}
windows = [("switchover", times["switchover"], times["kill"]),
           ("kill", times["kill"], times["switchback"]),
           ("switchback", times["switchback"], times["load-done"])]
def failed(status):
    return status == 0 or status >= 500
for name, start, end in windows:
    for group, kinds in (("writes", ("upload", "push")), ("reads", ("read",))):
        rows = [(float(b), float(e), int(s)) for b, e, k, s in requests if k in kinds and start <= float(b) < end]
        bad = [r for r in rows if failed(r[2])]
        slowest = max([e - b for b, e, s in rows if not failed(s)] or [0])
        if not bad:
            print(f"{name} {group} 0.0 0 {slowest:.1f}")
            continue
        first, last = min(r[0] for r in bad), max(r[1] for r in bad)
        before = [r[1] for r in rows if not failed(r[2]) and r[1] <= first]
        after = [r[1] for r in rows if not failed(r[2]) and r[0] >= last]
        gap = (min(after) if after else end) - (max(before) if before else start)
        print(f"{name} {group} {gap:.1f} {len(bad)} {slowest:.1f}")
PY

echo "ha-test: results"
accepted="$(awk '$2 == 202' "$work/accepted.txt" | wc -l)"
same="$(awk '$2 == 200' "$work/accepted.txt" | wc -l)"
uploads_accepted="$(awk '$2 == 202 && $3 ~ /\.zip$/' "$work/accepted.txt" | wc -l)"
spool="$(find "$work/spool" -type f | wc -l)"
echo "  uploads and pushes accepted (202): $accepted (exports $uploads_accepted; 200 same bytes: $same);" \
  "jobs $jobs, done $done_jobs (at the first attempt $first_attempt), distinct imports $job_imports," \
  "succeeded imports $imports; jobs of uploads answered 503 whose commit landed: $unanswered; spool files $spool"
awk '{ printf "  requests %-7s %s\n", $3, $4 }' "$work/requests.txt" | sort | uniq -c | sed 's/^ */  /'
awk '{ printf "  pgbackrest check %s: against %s, exit %s in %s s, segment %s (timeline %s)\n", $1, $2, $3, $4, $5, $7 }' \
  "$work/pgbackrest.txt"
echo "  pgbackrest backup --type=full: exit $backup_status in $backup_seconds s, first segment $backup_start"
awk '/history/ { history = history " " $1; next } { n[substr($1, 1, 8)]++; last[substr($1, 1, 8)] = substr($1, 17) }
  END { for (t in n) printf "  pgbackrest archive: timeline %s, %d segments up to %s\n", t, n[t], last[t]
        print "  pgbackrest archive: history files" history }' "$work/pgbackrest-archive.txt" | sort
while read -r name group gap count slowest; do
  echo "  after $name, $group: 5xx gap $gap s ($count answers 5xx or none), slowest success $slowest s"
done < "$work/gaps.txt"
check "every accepted upload imported exactly once" \
  '[ "$accepted" -eq "$done_jobs" ] && [ "$done_jobs" -eq "$job_imports" ] && [ "$done_jobs" -eq "$imports" ] && [ $((jobs - done_jobs)) -eq "$unanswered" ]'
check "the spool folder ends empty" '[ "$spool" -eq 0 ]'
check "every 503 came with Retry-After" '! awk "\$4 == 599" "$work/requests.txt" | grep -q .'
check "no acknowledged write lost (samples equal a clean server's)" 'diff -q "$work/ha-samples.txt" "$work/clean-samples.txt" >/dev/null'
check "the nightly rollup equals a clean server's (nights)" 'diff -q "$work/ha-nights.txt" "$work/clean-nights.txt" >/dev/null'
check "the nightly rollup equals a clean server's (summaries)" 'diff -q "$work/ha-summaries.txt" "$work/clean-summaries.txt" >/dev/null && [ -s "$work/ha-summaries.txt" ]'
check "the nightly rollup ran without failures" '! grep -Eq "rollup failed|[1-9][0-9]* failed" "$work/rollup.log"'
# The switchover script's lines, one run each: did it fence, did #774 strike.
fences="$(grep -c ": fencing " "$paf/switchover.log" || true)"
read -r struck_first struck_second <<<"$(awk '/: fencing / { n++ } /issue #774:/ { s[n] = 1 }
  END { print s[1] + 0, s[2] + 0 }' "$paf/switchover.log")"
first_bound=$([ "$struck_first" -eq 1 ] && echo 45 || echo 10)
check "each switchover fenced the old primary first (deploy/ha/switchover.sh)" \
  '[ "$fences" -eq 2 ] && [ "$(grep -c ": done: " "$paf/switchover.log")" -eq 2 ]'
check "the switchback met issue #774 (node1 reported wait_primary, node2 promoted)" \
  'grep -q " node1 reports wait_primary" "$work/race.log" && [ "$struck_second" -eq 1 ]'
check "writes stopped under $first_bound s after the switchover$([ "$struck_first" -eq 0 ] || echo " (#774 struck)")" \
  'awk -v b="$first_bound" '"'"'$1 == "switchover" && $2 == "writes" && $3 >= b { bad = 1 } END { exit bad }'"'"' "$work/gaps.txt"'
check "writes stopped under 45 s after the switchback (#774: the demote timeout, 30 s)" \
  'awk '"'"'$1 == "switchback" && $2 == "writes" && $3 >= 45 { bad = 1 } END { exit bad }'"'"' "$work/gaps.txt"'
check "writes stopped under 90 s after the kill" \
  'awk '"'"'$1 == "kill" && $2 == "writes" && $3 >= 90 { bad = 1 } END { exit bad }'"'"' "$work/gaps.txt"'
check "the server and the worker never needed a restart" '[ "$server_alive" -eq 1 ] && [ "$worker_alive" -eq 1 ]'
check "no log shows the password" '! grep -rqF "$password" "$work"/*.log'
check "pgbackrest check passed against node1 before the load (the setup)" 'backrest_passed before node1'
check "pgbackrest check passed against node1, primary after the kill's promotion (node2 dead)" 'backrest_passed kill node1'
check "pgbackrest check passed against node2, primary after the switch back" 'backrest_passed switchback node2'
check "each check ran on a newer timeline (before, kill, switch back)" \
  'awk '"'"'{ t[NR] = $7 } END { exit !(NR == 3 && t[1] < t[2] && t[2] < t[3]) }'"'"' "$work/pgbackrest.txt"'
switchback_timeline="$(awk '$1 == "switchback" { print $7 }' "$work/pgbackrest.txt")"
check "the repository holds the history file of each promotion (timelines 2 to $switchback_timeline)" \
  '[ "$(grep -c "^0*[2-9A-F]\.history$" "$work/pgbackrest-archive.txt")" -eq $((16#$switchback_timeline - 1)) ]'
check "pgbackrest backup (full) taken from the new primary node2" \
  '[ "$backup_status" -eq 0 ] && [ "$backup_type" = full ] && [ "${backup_start:0:8}" = "$switchback_timeline" ]'
if [ "$(id -u)" -eq 0 ]; then
  check "no pgBackRest file is root's" '! find "$paf/pgbackrest" -user root | grep -q .'
fi
elapsed=$(( $(date +%s) - test_started ))
check "within the bound (${elapsed} s of $bound s)" '[ "$elapsed" -le "$bound" ]'
if [ "$failed" -ne 0 ]; then
  diff "$work/ha-summaries.txt" "$work/clean-summaries.txt" | head -20 || true
  diff "$work/ha-samples.txt" "$work/clean-samples.txt" | head || true
  echo "ha-test FAILED"
  exit 1
fi
echo "ha-test passed in $elapsed s"
