#!/usr/bin/env bash
# A planned switchover of a pg_auto_failover formation (`pg_autoctl perform switchover`)
# with the old primary fenced first, so that no write it acknowledges can be lost.
#
# Why: pg_auto_failover 2.0 (Debian 12's) has a race in its monitor, upstream issue #774
# (fixed by pull request #1165, not in Debian 12): during a switchover the monitor may
# assign the old primary `wait_primary` ("none of the standby nodes in the quorum are
# healthy"), which turns synchronous replication off there, and then promote the
# secondary anyway. The old primary, its keeper unable to reach `demote_timeout` from
# `wait_primary`, keeps accepting writes for the monitor's demote timeout (30 s), and
# pg_rewind discards them when it rejoins. deploy/ha-test.sh caught it under load (about
# 30 s of acknowledged uploads lost) and reproduces it on purpose; docs/reliability.md,
# "Failover".
#
# What this does, with only pg_autoctl and psql:
#   1. checks that the group has one primary and one secondary, both settled;
#   2. fences the primary: `ALTER SYSTEM SET default_transaction_read_only = on` and a
#      reload, the setting pg_autoctl itself uses to keep a node being promoted from
#      taking writes; libpq's target_session_attrs=read-write then skips it, and
#      SleepLedger answers writes 503 (Retry-After) until the new primary takes them;
#   3. waits up to --drain seconds for the transactions that began before the fence
#      (they commit under synchronous replication, or fail), then ends those left;
#   4. runs `pg_autoctl perform switchover` and waits until the other node is primary and
#      the old one secondary (up to --timeout seconds), saying so when #774 struck;
#   5. lifts the fence on the old primary, now a standby (pg_autoctl sets the setting
#      itself whenever it promotes a node).
# If the switchover never began (the monitor refused it), the fence is lifted and the
# script fails; if it began and did not finish in time, the fence stays (the state is
# printed; finish by hand).
#
#   deploy/ha/switchover.sh --pgdata DIR [--formation default] [--group 0]
#                           [--connect CONNINFO] [--drain 30] [--timeout 120]
#
# --pgdata: the monitor's (or a node's) data folder, as for `pg_autoctl perform
# switchover`; run as the user pg_autoctl runs as. --connect: how psql reaches the nodes
# as a superuser, added to each node's host and port (default `dbname=postgres`;
# passwords from ~/.pgpass). Exit 0 once switched, 1 when it could not be, 64 on usage.
set -euo pipefail

pgdata="" formation=default group=0 connect="dbname=postgres" drain=30 timeout=120
usage() {
  echo "usage: deploy/ha/switchover.sh --pgdata DIR [--formation NAME] [--group N] [--connect CONNINFO]" \
    "[--drain SECONDS] [--timeout SECONDS]" >&2
  exit 64
}
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case "$1" in
    --pgdata) pgdata="$2" ;;
    --formation) formation="$2" ;;
    --group) group="$2" ;;
    --connect) connect="$2" ;;
    --drain) drain="$2" ;;
    --timeout) timeout="$2" ;;
    *) usage ;;
  esac
  shift 2
done
[ -n "$pgdata" ] || usage

say() { echo "$(date -u +%T) switchover: $*"; }
monitor_uri="$(pg_autoctl show uri --pgdata "$pgdata" --formation monitor)"
# One line per node: name host port reported-state assigned-state.
nodes() {
  psql -X -qtA -F ' ' "$monitor_uri" -v formation="$formation" -v group="$group" <<'SQL'
SELECT nodename, nodehost, nodeport, current_group_state, assigned_group_state
  FROM pgautofailover.current_state(:'formation', :'group')
SQL
}
settled() { awk -v name="$1" -v state="$2" '$1 == name && $4 == state && $5 == state { found = 1 } END { exit !found }'; }
node_sql() { psql -X -qtA -v ON_ERROR_STOP=1 "host=$1 port=$2 $connect" "${@:3}"; }

state="$(nodes)"
read -r old host port _ <<<"$(awk '$4 == "primary" && $5 == "primary"' <<<"$state")" || true
if [ -z "${old:-}" ] || [ "$(awk '$4 == "secondary" && $5 == "secondary"' <<<"$state" | wc -l)" -lt 1 ]; then
  say "no settled primary and secondary in formation $formation, group $group; nothing changed:"
  echo "$state" >&2
  exit 1
fi

unfence() {
  node_sql "$host" "$port" -c "ALTER SYSTEM RESET default_transaction_read_only" -c "SELECT pg_reload_conf()" \
    >/dev/null
}
say "fencing $old ($host:$port): default_transaction_read_only = on"
node_sql "$host" "$port" -c "ALTER SYSTEM SET default_transaction_read_only = on" -c "SELECT pg_reload_conf()" \
  >/dev/null
began=0
perform_log="$(mktemp)"
trap 'rm -f "$perform_log"
  [ "$began" -eq 1 ] || { say "lifting the fence on $old: the switchover did not begin"; unfence || true; }' EXIT
# A new session sees the fence once the reload reached the backends.
for _ in $(seq 1 50); do
  [ "$(node_sql "$host" "$port" -c "SHOW default_transaction_read_only")" = on ] && break
  sleep 0.1
done
fenced_at="$(node_sql "$host" "$port" -c "SELECT clock_timestamp()")"
older="SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
  AND xact_start < '$fenced_at'::timestamptz"
deadline=$(($(date +%s) + drain))
while [ "$(node_sql "$host" "$port" -c "SELECT count(*) FROM ($older) o")" -gt 0 ]; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    say "ending $(node_sql "$host" "$port" -c "SELECT count(pg_terminate_backend(pid)) FROM ($older) o")" \
      "transactions still open after $drain s"
    break
  fi
  sleep 0.2
done

say "pg_autoctl perform switchover (formation $formation, group $group)"
began=1
# pg_autoctl 2.0 waits for a notification it can misread: its own wait is not the judge.
pg_autoctl perform switchover --pgdata "$pgdata" --formation "$formation" --group "$group" > "$perform_log" 2>&1 &
perform=$!
deadline=$(($(date +%s) + timeout))
struck=0
while true; do
  exited=0
  kill -0 "$perform" 2>/dev/null || exited=1
  state="$(nodes)"
  if [ "$exited" -eq 1 ] && settled "$old" primary <<<"$state"; then
    # The monitor refused (a node in maintenance, say): nothing was handed over.
    cat "$perform_log" >&2
    began=0
    exit 1
  fi
  if [ "$struck" -eq 0 ] && awk -v name="$old" '$1 == name && ($4 == "wait_primary" || $5 == "wait_primary") {
    found = 1 } END { exit !found }' <<<"$state"; then
    struck=1
    say "pg_auto_failover issue #774: $old was put in wait_primary during the switchover;" \
      "the fence keeps writes off it until the monitor demotes it (its demote timeout, 30 s by default)"
  fi
  new="$(awk -v name="$old" '$1 != name && $4 == "primary" && $5 == "primary" { print $1 }' <<<"$state")"
  if [ -n "$new" ] && settled "$old" secondary <<<"$state"; then break; fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    say "no new primary with $old as its secondary after $timeout s; $old stays fenced. State:"
    echo "$state" >&2
    exit 1
  fi
  sleep 0.5
done
kill "$perform" 2>/dev/null || true
wait "$perform" 2>/dev/null || true
unfence
say "done: $new is the primary, $old its secondary (fence lifted)$([ "$struck" -eq 0 ] || echo "; issue #774 struck")"
