# Sourced by deploy/backup-drill.sh --large (after private_cluster, with its helpers):
# measures on a private durable cluster, with the default archive_timeout (60 s),
#   1. the generated 500 MB export imported for one person: its WAL, then a full backup
#      (time, repository size) and an incremental one after a small upload;
#   2. 1,000 people with a year of nights and summaries each (admin-benchmark-data, as
#      Benchmarks/admin-benchmark.sh makes them): a full backup (time, size);
#   3. WAL per upload: the WAL an import of a 35 MB export (about a year of nights) writes, and
#      what archiving it adds to the repository;
#   4. the whole data folder destroyed and `db restore --latest` (time, and the share of
#      verify and of the new full backup).
# Prints a Markdown table for docs/reliability.md. LARGE_EXPORT_SIZE (default 500MB) and
# LARGE_USERS (default 1000) shrink it for a trial run.

large_size="${LARGE_EXPORT_SIZE:-500MB}"
large_users="${LARGE_USERS:-1000}"
[ -x "$bin/admin-benchmark-data" ] || fail "--large needs admin-benchmark-data in $bin (swift build --product admin-benchmark-data)"
results="$work/results.md"
row() { printf '| %s | %s |\n' "$1" "$2" | tee -a "$results"; }
seconds_since() { echo "$(( $(date +%s%N) / 1000000 - $1 ))" | awk '{ printf "%.1f s", $1 / 1000 }'; }
ms_now() { echo "$(( $(date +%s%N) / 1000000 ))"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
repository_bytes() { du -sb "$repository" | cut -f1; }
archive_bytes() { du -sb "$repository/archive" | cut -f1; }
wal_lsn() { psql_q "SELECT pg_current_wal_lsn()"; }
wal_between() { psql_q "SELECT pg_wal_lsn_diff('$2', '$1')::bigint"; }
database_bytes() { psql_q "SELECT pg_database_size(current_database())"; }
archived_now() { psql_q "SELECT pg_switch_wal()" >/dev/null; wait_archived; }

repository="$work/repository"
say "--large: setup-backups (archive_timeout 60 s)"
sl db setup-backups --repository "$repository" > "$work/setup.txt"
grep -oE '^ +[0-9a-f]{64}$' "$work/setup.txt" | tr -d ' ' > "$work/passphrase"
printf '| what | measured |\n|---|---|\n' > "$results"

say "1. the $large_size export"
t="$(ms_now)"
"$bin/make-export" --size "$large_size" --seed 500 --format zip --output "$work/large.zip" >/dev/null
say "   generated in $(seconds_since "$t") ($(mib "$(stat -c %s "$work/large.zip")"))"
sl user add big --time-zone Europe/Berlin >/dev/null
archived_now
archive_before="$(archive_bytes)"; lsn_before="$(wal_lsn)"
t="$(ms_now)"
sl import --user big "$work/large.zip" > "$work/import-large.txt"
import_time="$(seconds_since "$t")"
lsn_after="$(wal_lsn)"; archived_now
row "$large_size export ($(mib "$(stat -c %s "$work/large.zip")") zip): import ($bin)" "$import_time; $(psql_q "SELECT count(*) FROM sleep_samples") samples"
row "  WAL written by that import / added to the repository's archive" "$(mib "$(wal_between "$lsn_before" "$lsn_after")") / $(mib $(( $(archive_bytes) - archive_before )))"
row "  database size" "$(mib "$(database_bytes)")"
t="$(ms_now)"; before="$(repository_bytes)"
sl db backup --type full >/dev/null
row "  full backup: time / repository growth" "$(seconds_since "$t") / $(mib $(( $(repository_bytes) - before )))"
"$bin/make-export" --size 2MB --seed 501 --format zip --output "$work/small.zip" >/dev/null
sl user add small --time-zone Europe/Berlin >/dev/null
sl import --user small "$work/small.zip" >/dev/null
t="$(ms_now)"; before="$(repository_bytes)"
sl db backup --type incr >/dev/null
row "  incremental backup after a 2 MB upload: time / repository growth" "$(seconds_since "$t") / $(mib $(( $(repository_bytes) - before )))"

say "2. $large_users people with a year of nights each"
t="$(ms_now)"
DATABASE_URL="$conninfo" "$bin/admin-benchmark-data" "$large_users" 365 >/dev/null
say "   generated in $(seconds_since "$t")"
row "$large_users people with a year of nights and summaries each: database size" "$(mib "$(database_bytes)")"
t="$(ms_now)"; before="$(repository_bytes)"
sl db backup --type full >/dev/null
row "  full backup (with the $large_size export's person): time / repository growth" "$(seconds_since "$t") / $(mib $(( $(repository_bytes) - before )))"

say "3. WAL per upload"
"$bin/make-export" --size 35MB --seed 502 --format zip --output "$work/year.zip" >/dev/null
sl user add yearly --time-zone Europe/Berlin >/dev/null
archived_now
archive_before="$(archive_bytes)"; lsn_before="$(wal_lsn)"
sl import --user yearly "$work/year.zip" >/dev/null
sl rollup --user yearly >/dev/null
lsn_after="$(wal_lsn)"; archived_now
row "one upload of a 35 MB export (about a year of nights: $(psql_q "SELECT count(*) FROM sleep_samples s JOIN users u ON u.id = s.user_id WHERE u.handle = 'yearly'") samples) and its rollup: WAL written / archived" "$(mib "$(wal_between "$lsn_before" "$lsn_after")") / $(mib $(( $(archive_bytes) - archive_before ))) (segments are 16 MiB before compression; archive_timeout closes a partial one)"

say "4. restore --latest onto a new disk"
kill -KILL "$(head -1 "$SLEEPLEDGER_HOME/data/postmaster.pid")"
sleep 1
rm -rf "$SLEEPLEDGER_HOME"
t="$(ms_now)"
sl db restore --latest --repository "$repository" --passphrase-file "$work/passphrase" > "$work/restore.txt" 2> "$work/restore.err"
total="$(seconds_since "$t")"
row "restore --latest of all of it onto a new disk (verify, restore, replay, new full backup)" "$total; $(cat "$work/restore.txt")"
row "repository in the end" "$(mib "$(repository_bytes)")"
say "results (also in $results):"
cat "$results"
cp "$results" "${LARGE_RESULTS:-/dev/null}" 2>/dev/null || true
