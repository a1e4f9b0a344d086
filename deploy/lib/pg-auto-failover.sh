# Sourced by the scripts that run a pg_auto_failover formation of their own on loopback
# (deploy/ha-test.sh, deploy/replica-test.sh): a monitor and PostgreSQL nodes under one
# folder, each node's `pg_autoctl run` (the keeper) in a process group of its own so that
# it can be stopped, or killed like a dead host, by its id.
#
# initdb, postgres and pg_autoctl refuse to run as root: as root they run as the
# unprivileged service user `sleepledger` (created like the embedded cluster does), which
# owns the folder `paf`.
#
#   paf_test_start NAME         for a test script: the build's binaries (bin, an absolute
#                               path), a scratch folder work (/tmp/NAME.XXXXXX) the service
#                               user can read, and no database setting inherited
#   paf_setup FOLDER            the folder (made, owned by the service user), the binaries
#   paf_monitor PORT            a monitor on 127.0.0.1:PORT, running; sets paf_monitor_uri
#   paf_node NAME PORT          a node registered with the monitor (the first is the
#                               primary, the next a secondary made by pg_basebackup), running
#   paf_run NAME                starts NAME's keeper (`pg_autoctl run`) in the background
#   paf_kill NAME               SIGKILL to NAME's postgres and its keeper's process group
#   paf_wait NAME STATE SECS    waits until the monitor reports NAME in STATE (both the
#                               reported and the assigned state); 1 after SECS
#   paf_switchover              a switchover of the formation by deploy/ha/switchover.sh
#                               (the old primary fenced first); 1 when it failed
#   paf_state                   `pg_autoctl show state`
#   paf_formation_uri           the formation's multi-host URI (target_session_attrs=read-write)
#   paf_stop_all                stops every keeper and postgres the script started
#   paf_pgbackrest_setup N1 P1 N2 P2
#                               WAL archiving with pgBackRest for the nodes N1 (port P1) and
#                               N2 (P2), before paf_node creates them (below)
#   paf_pgbackrest ARGS...       `pgbackrest` as the service user on the stanza of both nodes

paf_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
paf_service_user=sleepledger
paf_names=()
paf_archive_command=""
paf_switchover_script="$(cd "$(dirname "${BASH_SOURCE[0]}")/../ha" && pwd)/switchover.sh"

paf_test_start() {
  release_binaries sleepledger sleepledger-admin make-export
  bin="$(cd "$bin" && pwd)"
  work="$(mktemp -d "/tmp/$1.XXXXXX")"
  chmod 0755 "$work"
  unset DATABASE_URL PGHOST PGHOSTADDR PGPORT PGDATABASE PGUSER PGPASSWORD PGSERVICE SLEEPLEDGER_HOME \
    SLEEPLEDGER_SERVER_DATABASE_URL SLEEPLEDGER_ADMIN_DATABASE_URL SLEEPLEDGER_READ_DATABASE_URL || true
}

paf_setup() {
  paf="$1"
  mkdir -p "$paf/run"
  # The switchover script, where the service user can read it (a checkout may not be).
  cp "$paf_switchover_script" "$paf/switchover.sh"
  if [ "$(id -u)" -eq 0 ]; then
    id "$paf_service_user" >/dev/null 2>&1 ||
      useradd --system --no-create-home --shell /usr/sbin/nologin "$paf_service_user"
    chown -R "$paf_service_user:" "$paf"
  fi
}

# as_service COMMAND...: COMMAND as the service user (as root) with a clean environment:
# PostgreSQL's binaries first on PATH, pg_autoctl's configuration and state under paf, run
# from / (PostgreSQL's tools complain of a working folder the service user cannot read).
as_service() {
  local environment=(PATH="$paf_bin:/usr/bin:/bin" HOME="$paf" XDG_CONFIG_HOME="$paf/config"
    XDG_DATA_HOME="$paf/data" XDG_RUNTIME_DIR="$paf/run" PGHOST="$paf/run")
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u "$paf_service_user" -- env -i -C / "${environment[@]}" "$@"
  else
    env -i -C / "${environment[@]}" "$@"
  fi
}

# paf_initdb NAME: an empty cluster whose sockets are in paf/run (pg_autoctl would use
# /var/run/postgresql, which the service user cannot write).
paf_initdb() {
  as_service initdb -D "$paf/$1" --auth=trust -U "$paf_service_user" >/dev/null
  cat >> "$paf/$1/postgresql.conf" <<CONF
unix_socket_directories = '$paf/run'
shared_buffers = 32MB
CONF
}

paf_monitor() {
  paf_initdb monitor
  as_service pg_autoctl create monitor --pgdata "$paf/monitor" --pgport "$1" --hostname 127.0.0.1 \
    --listen 127.0.0.1 --auth trust --no-ssl > "$paf/monitor.create.log" 2>&1
  paf_run monitor
  local _
  for _ in $(seq 1 100); do
    paf_monitor_uri="$(as_service pg_autoctl show uri --pgdata "$paf/monitor" --formation monitor 2>/dev/null)" &&
      as_service psql -qtA "$paf_monitor_uri" -c 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "the monitor did not start (logs in $paf)" >&2
  return 1
}

paf_node() {
  local name="$1" port="$2"
  # The first node is initialised here (its sockets in paf/run); a secondary is a copy of
  # the primary (pg_basebackup), configuration included. Archiving (paf_pgbackrest_setup)
  # goes in postgresql.conf, which is ours: pg_autoctl puts its settings in
  # postgresql-auto-failover.conf (included after these lines; archiving is not among
  # them), pg_basebackup copies the file to the secondary, pg_rewind to a node that rejoins.
  if [ "${#paf_names[@]}" -le 1 ]; then
    paf_initdb "$name"
    [ -z "$paf_archive_command" ] ||
      printf "archive_mode = on\narchive_command = '%s'\n" "$paf_archive_command" >> "$paf/$name/postgresql.conf"
  fi
  # The node's own data folder for pgBackRest, as in paf_run (create may leave postgres running).
  as_service env PGBACKREST_PG1_PATH="$paf/$name" pg_autoctl create postgres --pgdata "$paf/$name" \
    --pgport "$port" --hostname 127.0.0.1 --listen 127.0.0.1 --auth trust --no-ssl --monitor "$paf_monitor_uri" \
    --name "$name" --dbname sleepledger > "$paf/$name.create.log" 2>&1
  paf_run "$name"
}

paf_run() {
  local name="$1"
  # setsid: the keeper leads a process group of its own (its id is the group's).
  # PGBACKREST_PG1_PATH: the node's own data folder for the archive_command's pgBackRest
  # (paf_pgbackrest_setup), as a host's own configuration names it; postgres inherits it.
  setsid bash -c "$(declare -f as_service); paf='$paf' paf_bin='$paf_bin' paf_service_user='$paf_service_user'
    as_service env PGBACKREST_PG1_PATH='$paf/$name' pg_autoctl run --pgdata '$paf/$name'" >> "$paf/$name.run.log" 2>&1 &
  echo $! > "$paf/$name.keeper"
  # Killed on purpose later (paf_kill): no job report from this shell.
  disown $!
  [[ " ${paf_names[*]} " == *" $name "* ]] || paf_names+=("$name")
}

paf_kill() {
  local name="$1" postmaster
  postmaster="$(head -1 "$paf/$name/postmaster.pid" 2>/dev/null || true)"
  kill -KILL -- "-$(cat "$paf/$name.keeper")" 2>/dev/null || true
  [ -z "$postmaster" ] || kill -KILL "$postmaster" 2>/dev/null || true
}

paf_state() { as_service pg_autoctl show state --pgdata "$paf/monitor" 2>/dev/null; }

paf_wait() {
  local name="$1" state="$2" deadline=$(( $(date +%s) + $3 ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    if as_service pg_autoctl show state --pgdata "$paf/monitor" --json 2>/dev/null | python3 -c '
import json, sys
name, state = sys.argv[1:3]
nodes = [n for n in json.load(sys.stdin) if n["nodename"] == name]
sys.exit(0 if nodes and nodes[0]["current_group_state"] == state == nodes[0]["assigned_group_state"] else 1)
' "$name" "$state"; then
      return 0
    fi
    sleep 0.5
  done
  return 1
}

# paf_switchover: a planned switchover the way operators run one, deploy/ha/switchover.sh
# (the old primary fenced first: pg_auto_failover issue #774), as the service user over
# loopback; its lines go to switchover.log. 8 s after it began, the processes the old
# primary still has go to switchover-processes.log, for a slow demotion.
paf_switchover() {
  local primary
  primary="$(as_service pg_autoctl show state --pgdata "$paf/monitor" --json 2>/dev/null | python3 -c '
import json, sys
print(" ".join(n["nodename"] for n in json.load(sys.stdin) if n["current_group_state"] == "primary"))')"
  (
    sleep 8
    local postmaster
    postmaster="$(head -1 "$paf/$primary/postmaster.pid" 2>/dev/null || true)"
    [ -z "$postmaster" ] || { date -u +%T; ps -o pid,stat,wchan:32,etime,args --ppid "$postmaster"; } \
      >> "$paf/switchover-processes.log" 2>&1
  ) &
  as_service bash "$paf/switchover.sh" --pgdata "$paf/monitor" --connect "user=$paf_service_user dbname=postgres" \
    >> "$paf/switchover.log" 2>&1
}

paf_formation_uri() {
  as_service pg_autoctl show uri --pgdata "$paf/monitor" --formation default
}

paf_stop_all() {
  local name group postmaster _
  for name in "${paf_names[@]}"; do
    group="$(cat "$paf/$name.keeper" 2>/dev/null || true)"
    [ -z "$group" ] || kill -TERM -- "-$group" 2>/dev/null || true
  done
  for _ in $(seq 1 50); do
    local alive=0
    for name in "${paf_names[@]}"; do
      group="$(cat "$paf/$name.keeper" 2>/dev/null || true)"
      [ -n "$group" ] && kill -0 -- "-$group" 2>/dev/null && alive=1
    done
    [ "$alive" -eq 0 ] && break
    sleep 0.2
  done
  for name in "${paf_names[@]}"; do
    paf_kill "$name"
    postmaster="$(head -1 "$paf/$name/postmaster.pid" 2>/dev/null || true)"
    [ -z "$postmaster" ] || kill -KILL "$postmaster" 2>/dev/null || true
  done
}

# paf_pgbackrest_setup NAME1 PORT1 NAME2 PORT2: WAL archiving with Debian's pgBackRest, for the
# nodes NAME1 and NAME2 that paf_node creates next, to a repository in paf/pgbackrest (one
# host here; docs/operations.md, "High availability", for separate hosts):
#   node.conf        what both nodes' archive_command (`archive-push %p`) reads: the
#                    repository, no data folder; a node's own (pg1-path) comes from its
#                    keeper's environment (paf_run), as a host's own configuration would
#                    name it (a keeper without it makes archive-push fail loudly, never
#                    push another node's file of the same name);
#   pgbackrest.conf  the stanza `sleepledger` with both nodes (pg1: NAME1, pg2: NAME2), for
#                    stanza-create, check, backup and info (paf_pgbackrest), which find the
#                    primary among them.
# Every pgbackrest command runs as the service user (as root, through as_service): a run as
# root would leave root-owned lock and log files that break the nodes' archive-push.
paf_pgbackrest_setup() {
  local folder="$paf/pgbackrest" program repository
  program="$(command -v pgbackrest || echo /usr/bin/pgbackrest)"
  repository="[global]
repo1-path=$folder/repository
repo1-retention-full=2
compress-type=zst
start-fast=y
log-path=$folder/log
lock-path=$folder/lock
log-level-console=warn
log-level-file=info
"
  as_service mkdir -p "$folder/repository" "$folder/log" "$folder/lock"
  printf '%s' "$repository" | as_service tee "$folder/node.conf" >/dev/null
  printf '%s\n[sleepledger]\n' "$repository" | as_service tee "$folder/pgbackrest.conf" >/dev/null
  local index=1 name port
  while [ $# -ge 2 ]; do
    name="$1" port="$2"
    shift 2
    printf 'pg%s-path=%s\npg%s-port=%s\npg%s-socket-path=%s\npg%s-user=%s\n' "$index" "$paf/$name" "$index" "$port" \
      "$index" "$paf/run" "$index" "$paf_service_user" | as_service tee -a "$folder/pgbackrest.conf" >/dev/null
    index=$((index + 1))
  done
  paf_archive_command="$program --config=$folder/node.conf --stanza=sleepledger archive-push %p"
}

paf_pgbackrest() { as_service pgbackrest --config="$paf/pgbackrest/pgbackrest.conf" --stanza=sleepledger "$@"; }
