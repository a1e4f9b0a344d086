#!/usr/bin/env bash
# Recovery drills (issue 22, item 5): backups and point-in-time recovery with pgBackRest on
# a private, durable embedded cluster (deploy/lib/private-cluster.sh; fsync on, never the
# test suite's cluster), judged from the database's rows.
#
#   deploy/backup-drill.sh            both drills on a few people (deploy/test.sh runs this)
#   deploy/backup-drill.sh --large    measures backup time and size, restore time and WAL
#                                     archived per upload on the generated 500 MB export and
#                                     on 1,000 people with a year each (docs/reliability.md)
#
# Drill 1, restore to a time: setup-backups (archive_timeout 5 s here; 60 s by default) and
# its full backup; imports, an upload left queued and a rollup for several people; a
# recorded time T; then more imports, the queued upload imported, an account deleted and
# a damaging `DELETE FROM sleep_samples`; the cluster stopped and its data folder
# destroyed; `sleepledger db restore --to T`. Judged: every row committed before T is
# there and nothing after T (per person and table: count and checksum of the rows), the
# deleted account stays deleted (its tombstone), the summaries equal a clean rebuild's
# (`rollup --all`), `pgbackrest verify` passes, and the job queued at T whose spool file
# is gone ends `failed` with a reason. Then more writes, a wait past archive_timeout, one
# last write, PostgreSQL killed and the whole data folder (configuration included)
# destroyed, `db restore --latest --repository --passphrase-file` as onto a new disk:
# what the first restore removed (the damaging statement, the deleted account) stays
# removed, every commit older than archive_timeout is back, and the drill prints what was
# lost.
#
# Drill 2, a crash: uploads to a real server while PostgreSQL is killed with SIGKILL, then
# `sleepledger db start`: every upload the server acknowledged (202) is in the queue and
# imports.
#
# Bad input (item 6), on the running cluster of drill 1, which must stay untouched (its
# rows' checksums unchanged, still running): a restore onto the running cluster (75), a
# target time before the first backup (65), a wrong passphrase (65), a missing one (65),
# a repository on a full disk (75), a corrupted backup file (65, the stopped cluster's
# folder left as it was).
#
# Time bound: 5 minutes for the default run (BACKUP_DRILL_TIMEOUT seconds, exit 124 past
# it); about 2 minutes with the debug build. SLEEPLEDGER_BIN: the folder of the binaries
# (sleepledger, sleepledger-admin, make-export); default the release build. The server
# listens on 127.0.0.1:BACKUP_DRILL_PORT (default 56210).
set -euo pipefail
cd "$(dirname "$0")/.."

large=""
[ "${1:-}" = "--large" ] && large=1
if [ -z "${BACKUP_DRILL_TIMED:-}" ]; then
  bound="${BACKUP_DRILL_TIMEOUT:-300}"
  [ -n "$large" ] && bound="${BACKUP_DRILL_TIMEOUT:-7200}"
  BACKUP_DRILL_TIMED=1 exec timeout --kill-after=30 "$bound" "$PWD/deploy/backup-drill.sh" "$@"
fi
started_at="$(date +%s)"
port="${BACKUP_DRILL_PORT:-56210}"

. deploy/lib/private-cluster.sh
release_binaries sleepledger sleepledger-admin make-export
private_cluster backup-drill
sl() { "$bin/sleepledger" "$@"; }
psql_q() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$conninfo" -c "$1"; }
say() { echo "backup-drill: $*"; }
fail() { echo "backup-drill: FAILED: $*" >&2; exit 1; }
elapsed() { echo "$(( $(date +%s) - started_at )) s"; }
service_user="sleepledger"
as_service() { if [ "$(id -u)" -eq 0 ]; then runuser -u "$service_user" -- "$@"; else "$@"; fi; }
pgbackrest_verify() {
  as_service pgbackrest --config="$SLEEPLEDGER_HOME/backup/pgbackrest.conf" --stanza=sleepledger verify \
    > "$work/verify.log" 2>&1 || { cat "$work/verify.log" >&2; fail "pgbackrest verify"; }
}

# Per person and table: rows and a checksum of them (ids included: a restore keeps them).
# Times of computing (summaries.computed_at) are left out of the summaries' own line so a
# rebuild can be compared with it.
fingerprint() {
  psql_q "
    SELECT 'users', handle, 1, md5(u::text) FROM users u
    UNION ALL SELECT 'imports', u.handle, count(*), md5(string_agg(i::text, ',' ORDER BY i.id))
      FROM imports i JOIN users u ON u.id = i.user_id GROUP BY u.handle
    UNION ALL SELECT 'samples', u.handle, count(*), md5(string_agg(s::text, ',' ORDER BY s::text))
      FROM sleep_samples s JOIN users u ON u.id = s.user_id GROUP BY u.handle
    UNION ALL SELECT 'nights', u.handle, count(*), md5(string_agg(n::text, ',' ORDER BY n::text))
      FROM nights n JOIN users u ON u.id = n.user_id GROUP BY u.handle
    UNION ALL SELECT 'jobs', u.handle, count(*), md5(string_agg(j.id || j.state || j.file_name, ',' ORDER BY j.id))
      FROM import_jobs j JOIN users u ON u.id = j.user_id GROUP BY u.handle
    ORDER BY 1, 2"
}
summaries() {
  psql_q "SELECT u.handle, s.horizon, s.as_of, s.debt_seconds, s.net_balance_seconds, s.severity, s.score,
      s.grade, s.tracked_nights, s.last_night_wake_day, s.last_night_asleep_seconds, md5(s.summary::text)
    FROM summaries s JOIN users u ON u.id = s.user_id ORDER BY 1, 2"
}
now_iso() { psql_q "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"; }

start_server() { # LOG [ARGS...]
  local log="$1"; shift
  "$bin/sleepledger" serve --listen "127.0.0.1:$port" --metrics-listen off --spool "$work/spool" "$@" 2>"$log" &
  server_pid=$!
  for _ in $(seq 1 300); do
    grep -q "serving on" "$log" && return
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$log" >&2
  fail "the server did not start"
}
upload() { # TOKEN FILE: prints the HTTP status
  curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" -H "Content-Type: application/zip" \
    --data-binary @"$2" "http://127.0.0.1:$port/api/v1/imports"
}
wait_archived() { # waits until the WAL segment of everything committed so far is archived
  local segment
  segment="$(psql_q "SELECT pg_walfile_name(pg_current_wal_lsn())")"
  for _ in $(seq 1 300); do
    [ "$(psql_q "SELECT coalesce(last_archived_wal, '') >= '$segment' FROM pg_stat_archiver")" = t ] && return
    sleep 0.2
  done
  fail "WAL segment $segment was not archived within 60 s"
}

if [ -n "$large" ]; then
  . deploy/lib/backup-large.sh
  exit 0
fi

# ---------------------------------------------------------------------------------------
say "drill 1: restore to a time, then to the latest archived WAL"
repository="$work/repository"
sl db setup-backups --repository "$repository" --archive-timeout 5 > "$work/setup.txt"
passphrase="$(grep -oE '^ +[0-9a-f]{64}$' "$work/setup.txt" | tr -d ' ')"
[ ${#passphrase} -eq 64 ] || fail "setup-backups printed no passphrase"
printf '%s\n' "$passphrase" > "$work/passphrase"
[ "$(stat -c '%a %U' "$SLEEPLEDGER_HOME/backup/pgbackrest.conf")" = "600 $(stat -c %U "$SLEEPLEDGER_HOME/data")" ] ||
  fail "pgbackrest.conf is not 0600 and the service user's"
grep -q "WAL archiving: working" <<<"$(sl db status)" || { sl db status >&2; fail "db status does not say archiving works"; }

people="ada bo cy dee"
for n in 1 2 3 4 5 6; do sl_seed=$((40 + n)); "$bin/make-export" --size 600KB --seed "$sl_seed" --format zip --output "$work/e$n.zip" >/dev/null; done
for person in $people; do
  sl user add "$person" --time-zone Europe/Berlin >/dev/null
done
dee_token="$(sl token create --user dee --name drill --scope full 2>/dev/null | grep -o 'sl_[A-Za-z0-9_-]*' | head -1)"
sl import --user ada "$work/e1.zip" >/dev/null
sl import --user bo "$work/e2.zip" >/dev/null
sl import --user cy "$work/e3.zip" >/dev/null
sl rollup >/dev/null
# dee's upload waits in the queue (a server without workers).
mkdir -p "$work/spool"
start_server "$work/server1.log" --workers 0
[ "$(upload "$dee_token" "$work/e4.zip")" = 202 ] || fail "dee's upload was not queued"
stop_server
sl db backup --type incr >/dev/null
sleep 1
at_t="$(fingerprint)"
summaries_t="$(summaries)"
T="$(now_iso)"
sleep 1
say "T = $T ($(printf '%s\n' "$at_t" | wc -l) fingerprint lines); now the damage"
sl import --user ada "$work/e5.zip" >/dev/null
sl worker --once >/dev/null 2>&1
[ "$(psql_q "SELECT state FROM import_jobs j JOIN users u ON u.id = j.user_id WHERE u.handle = 'dee'")" = done ] ||
  fail "dee's upload was not imported after T"
bo_id="$(psql_q "SELECT id FROM users WHERE handle = 'bo'")"
sl user remove bo --yes >/dev/null
grep -q "^$bo_id " "$work/repository.tombstones" || fail "no tombstone for bo"
psql_q "DELETE FROM sleep_samples WHERE user_id = (SELECT id FROM users WHERE handle = 'cy')" >/dev/null
wait_archived
sl db stop >/dev/null
rm -rf "$SLEEPLEDGER_HOME/data"

say "restore --to T ($(elapsed))"
restore_started="$(date +%s)"
sl db restore --to "$T" > "$work/restore1.txt" 2> "$work/restore1.err" || { cat "$work/restore1.err" >&2; fail "db restore --to T"; }
say "restored in $(( $(date +%s) - restore_started )) s: $(cat "$work/restore1.txt")"
grep -q "removed account $bo_id again" "$work/restore1.err" || fail "the restore did not log removing bo again"
after="$(fingerprint)"
expected="$(printf '%s\n' "$at_t" | grep -v "|bo|")"
if [ "$after" != "$expected" ]; then
  diff <(printf '%s\n' "$expected") <(printf '%s\n' "$after") >&2 || true
  fail "the rows after the restore are not those committed before T (bo's removed)"
fi
[ -z "$(psql_q "SELECT 1 FROM users WHERE handle = 'bo'")" ] || fail "the deleted account came back"
say "every row committed before T is back, none after; bo stays deleted"
sl rollup --all >/dev/null
[ "$(summaries)" = "$(printf '%s\n' "$summaries_t" | grep -v '^bo|')" ] || {
  diff <(printf '%s\n' "$summaries_t" | grep -v '^bo|') <(summaries) >&2 || true
  fail "the summaries differ from a clean rebuild's"
}
say "the summaries equal a clean rebuild's (rollup --all)"
pgbackrest_verify
say "pgbackrest verify passes"
sl worker --once >/dev/null 2>&1
job="$(psql_q "SELECT j.state || '|' || coalesce(j.error, '') FROM import_jobs j JOIN users u ON u.id = j.user_id WHERE u.handle = 'dee'")"
case "$job" in
  failed\|*spool*) say "dee's job queued at T, its spool file gone: $job" ;;
  *) fail "dee's job queued at T ended '$job', not failed with a reason" ;;
esac

# ---------------------------------------------------------------------------------------
say "bad input on the running cluster ($(elapsed))"
before_bad="$(fingerprint)"
expect_exit() { # CODE WHAT COMMAND...
  local code="$1" what="$2"; shift 2
  local status=0
  "$@" > "$work/bad.out" 2> "$work/bad.err" || status=$?
  [ "$status" -eq "$code" ] || { cat "$work/bad.err" >&2; fail "$what: exit $status, not $code"; }
  say "  $what: exit $status: $(head -c 200 "$work/bad.err")"
}
expect_exit 75 "restore onto the running cluster" sl db restore --latest
expect_exit 65 "a target time before the first backup" sl db restore --to 2001-01-01T00:00:00Z
expect_exit 65 "a time without a zone" sl db restore --to "2026-01-01 10:00"
conf="$SLEEPLEDGER_HOME/backup/pgbackrest.conf"
cp -p "$conf" "$work/pgbackrest.conf.good"
sed -i "s/^repo1-cipher-pass=.*/repo1-cipher-pass=$(printf '0%.0s' $(seq 1 64))/" "$conf"
expect_exit 65 "a wrong passphrase (backup)" sl db backup
expect_exit 65 "a wrong passphrase (restore)" sl db restore --to "$T"
cp -p "$work/pgbackrest.conf.good" "$conf"
expect_exit 65 "a missing passphrase (restore onto a new disk)" env SLEEPLEDGER_HOME="$work/newdisk" "$bin/sleepledger" db restore --latest --repository "$repository"
# A full disk: the repository's disk (a small tmpfs mounted at its path, holding a copy of
# it and a filler) has 1.5 MB left, enough for WAL segments but not for a full backup.
# Afterwards what the cluster archived meanwhile goes back to the real repository.
if [ "$(id -u)" -ne 0 ]; then fail "the full-disk case mounts a tmpfs: run as root"; fi
repository_kib="$(du -sk "$repository" | cut -f1)"
mv "$repository" "$work/repository.real"
mkdir "$repository"
mount -t tmpfs -o size=$((repository_kib + 8192))k,mode=0750 tmpfs "$repository"
trap 'rc=$?; umount "$repository" 2>/dev/null || true; (exit $rc); private_cluster_exit' EXIT
cp -a "$work/repository.real/." "$repository/"
chown --reference="$work/repository.real" "$repository"
free_kib="$(df -k --output=avail "$repository" | tail -1 | tr -d ' ')"
head -c $(( (free_kib - 1536) * 1024 )) /dev/zero > "$repository/filler"
expect_exit 75 "a repository on a full disk" sl db backup --type full
rm -f "$repository/filler"
backups_before="$(ls "$work/repository.real/backup/sleepledger")"
cp -an "$repository/." "$work/repository.real/"
umount "$repository"
rmdir "$repository"
mv "$work/repository.real" "$repository"
for entry in $(ls "$repository/backup/sleepledger"); do   # the failed backup's partial copy
  grep -qx "$entry" <<<"$backups_before" || rm -rf "$repository/backup/sleepledger/$entry"
done
grep -q "running" <<<"$(sl db status)" || fail "the cluster stopped"
[ "$(fingerprint)" = "$before_bad" ] || fail "a refused command changed the running cluster"
say "the running cluster is untouched"

# A corrupted backup file: the stopped cluster's folder is left as it was.
sl db backup --type incr >/dev/null
victim="$(find "$repository/backup" -type f -path '*pg_data*' -size +8k -print -quit)"
[ -n "$victim" ] || fail "no backup file to corrupt"
cp -p "$victim" "$work/victim.saved"
printf 'corrupted' | dd of="$victim" bs=1 seek=100 conv=notrunc 2>/dev/null
sl db stop >/dev/null
checksum_data() { find "$SLEEPLEDGER_HOME/data" -type f -printf '%P %s %T@\n' | sort | md5sum; }
data_before="$(checksum_data)"
expect_exit 65 "a corrupted backup file" sl db restore --latest
[ "$(checksum_data)" = "$data_before" ] || fail "the refused restore changed the data folder"
cp -p "$work/victim.saved" "$victim"
sl db start >/dev/null
pgbackrest_verify

# ---------------------------------------------------------------------------------------
say "more writes, then a lost disk and restore --latest ($(elapsed))"
sl user add eve --time-zone Europe/Berlin >/dev/null
sl import --user eve "$work/e6.zip" >/dev/null
sl rollup >/dev/null
kept="$(fingerprint)"
kept_at="$(now_iso)"
sleep 7   # past archive_timeout (5 s) and the push: every commit so far is archived
say "archived: $(psql_q "SELECT last_archived_wal || ' at ' || last_archived_time || ', ' || failed_count || ' failures, last ' || coalesce(last_failed_wal, '-') FROM pg_stat_archiver"); writing $(psql_q "SELECT pg_walfile_name(pg_current_wal_lsn())")"
sl user add late --time-zone Europe/Berlin >/dev/null   # committed, maybe not archived
postmaster="$(head -1 "$SLEEPLEDGER_HOME/data/postmaster.pid")"
mkdir -p "$work/lost-disk-logs" && cp -r "$SLEEPLEDGER_HOME/log" "$SLEEPLEDGER_HOME/backup/log" "$work/lost-disk-logs/"
kill -KILL "$postmaster"
sleep 1
rm -rf "$SLEEPLEDGER_HOME"
restore_started="$(date +%s)"
sl db restore --latest --repository "$repository" --passphrase-file "$work/passphrase" \
  > "$work/restore2.txt" 2> "$work/restore2.err" || { cat "$work/restore2.err" >&2; fail "db restore --latest"; }
say "restored onto a new disk in $(( $(date +%s) - restore_started )) s"
got="$(fingerprint | grep -v '|late|')"
[ "$got" = "$kept" ] || { diff <(printf '%s\n' "$kept") <(printf '%s\n' "$got") >&2 || true; fail "commits older than archive_timeout are missing after restore --latest"; }
[ -z "$(psql_q "SELECT 1 FROM users WHERE handle = 'bo'")" ] || fail "bo came back with restore --latest"
[ "$(psql_q "SELECT count(*) > 0 FROM sleep_samples s JOIN users u ON u.id = s.user_id WHERE u.handle = 'cy'")" = t ] ||
  fail "the damaging DELETE came back with restore --latest"
if [ -n "$(psql_q "SELECT 1 FROM users WHERE handle = 'late'")" ]; then
  say "lost: nothing (the last commit, less than archive_timeout before the loss, was archived too)"
else
  say "lost: the account 'late', committed after $kept_at plus archive_timeout (the documented recovery point)"
fi
say "the damaging statement and the deleted account stay removed; every commit older than archive_timeout is back"
pgbackrest_verify

# ---------------------------------------------------------------------------------------
say "drill 2: PostgreSQL killed with SIGKILL during uploads ($(elapsed))"
sl user add kim --time-zone Europe/Berlin >/dev/null
kim_token="$(sl token create --user kim --name drill --scope full 2>/dev/null | grep -o 'sl_[A-Za-z0-9_-]*' | head -1)"
for n in $(seq 1 12); do "$bin/make-export" --size 100KB --seed $((100 + n)) --format zip --output "$work/u$n.zip" >/dev/null; done
start_server "$work/server2.log" --workers 0 --max-pending 20
: > "$work/acknowledged"
statuses=""
for n in $(seq 1 12); do
  status="$(upload "$kim_token" "$work/u$n.zip" || true)"
  statuses="$statuses $status"
  [ "$status" = 202 ] && echo "$n" >> "$work/acknowledged"
  if [ "$n" -eq 6 ]; then
    kill -KILL "$(head -1 "$SLEEPLEDGER_HOME/data/postmaster.pid")"
    sleep 0.5
    sl db start >/dev/null
  fi
done
stop_server
sl db start >/dev/null
acknowledged="$(wc -l < "$work/acknowledged")"
queued="$(psql_q "SELECT count(*) FROM import_jobs j JOIN users u ON u.id = j.user_id WHERE u.handle = 'kim'")"
[ "$queued" -ge "$acknowledged" ] || fail "$acknowledged uploads acknowledged, $queued in the queue after the crash"
sl worker --once >/dev/null 2>&1
done_jobs="$(psql_q "SELECT count(*) FROM import_jobs j JOIN users u ON u.id = j.user_id WHERE u.handle = 'kim' AND state = 'done'")"
[ "$done_jobs" -ge "$acknowledged" ] || fail "$acknowledged uploads acknowledged, $done_jobs imported"
say "$acknowledged of 12 uploads acknowledged around the crash (answers:$statuses); all $done_jobs in the queue imported"

say "all drills passed in $(elapsed)"
