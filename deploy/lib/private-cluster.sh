# Sourced by the scripts that run SleepLedger on a PostgreSQL cluster of their own
# (deploy/fault-injection.sh, deploy/soak.sh, deploy/abuse-test.sh, the failover and replica
# tests, Benchmarks/server-benchmark.sh), from the repository's root.

# release_binaries PRODUCT...: sets `bin` to the folder of the release build of the
# products (built when missing), or to SLEEPLEDGER_BIN when that is set.
release_binaries() {
  if [ -n "${SLEEPLEDGER_BIN:-}" ]; then
    bin="$SLEEPLEDGER_BIN"
    return
  fi
  local product
  for product in "$@"; do swift build -c release --product "$product" >/dev/null; done
  bin="$(swift build -c release --show-bin-path)"
}

# stop_server: stops the server the script started in the background (`server_pid`), if any.
server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}

# serving_port LOG PID: prints the port the server PID announces in LOG ("serving on
# 127.0.0.1:PORT"), waiting up to 60 s; shows LOG and fails when it does not (or it ended).
serving_port() {
  local port
  for _ in $(seq 1 600); do
    port="$(sed -n 's/.*serving on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$1" | head -1)"
    [ -n "$port" ] && { echo "$port"; return 0; }
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  echo "the server did not start:" >&2
  cat "$1" >&2
  return 1
}

# private_cluster NAME [KEEP]: a work folder /tmp/NAME.XXXXXX, `data` (KEEP, or a folder
# of the work folder), the embedded cluster started under it with no database configured
# from the environment, and `conninfo` for it. At exit the server stops (stop_server), the
# cluster stops, and the work folder is removed, or kept and named when the script failed.
private_cluster() {
  work="$(mktemp -d "/tmp/$1.XXXXXX")"
  chmod 0755 "$work"   # as root, the cluster runs as an unprivileged user who must reach it
  data="${2:-$work/data}"
  mkdir -p "$data"
  unset DATABASE_URL PGHOST PGHOSTADDR PGPORT PGDATABASE PGUSER PGPASSWORD PGSERVICE || true
  export SLEEPLEDGER_HOME="$work/home"
  trap private_cluster_exit EXIT
  "$bin/sleepledger" db start >/dev/null
  conninfo="$("$bin/sleepledger" db url)"
}

private_cluster_exit() {
  local status=$?
  stop_server
  # `db stop` refuses to run while a database is configured: the scripts export DATABASE_URL.
  env -u DATABASE_URL "$bin/sleepledger" db stop >/dev/null 2>&1 || true
  if [ "$status" -eq 0 ]; then rm -rf "$work"; else echo "logs kept in $work" >&2; fi
}
