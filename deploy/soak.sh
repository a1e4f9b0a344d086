#!/usr/bin/env bash
# Soak (issue 15, judged again in issue 20): twenty people upload exports and read their
# dashboards over loopback while the nightly rollup runs twice and a few slow clients hold
# connections throughout (4 sending a request head a line every 2 s, 2 sending a sign-in
# body 16 bytes every 2 s, each opened again when the server cuts it: deploy/lib/hostile.py
# slow-mix); then the run is judged:
#
# - no error response other than 429 (which the server's limits give on purpose);
# - the server's resident memory does not grow: VmRSS is sampled every 10 s into rss.csv
#   and judged by its trend (deploy/lib/rss_trend.py): the first third of the run is
#   warm-up; over the other two thirds the floor of the memory (the 10th percentile of
#   each of 8 bins) must not rise both by a least-squares slope above 3 MB/h and by more
#   than max(0.5 MB, 3 MB/h x a third of the run) from the middle third to the last. A run
#   shorter than 25 minutes cannot tell a slow leak from warm-up: its memory is printed and
#   not judged. --inject-leak MB_PER_H judges the measured series with a synthetic linear
#   leak added (a check that the rule catches one on this run's noise);
# - every upload that was accepted was imported exactly once (one job done, one import
#   of it, with samples), and the spool folder is empty.
#
#   deploy/soak.sh [--minutes M] [--users N] [--keep DIR] [--logs DIR] [--inject-leak MB_PER_H]
#
# Defaults: 30 minutes, 20 users. Runs on a private embedded cluster with the release
# build (SLEEPLEDGER_BIN: another folder of binaries). The logs (requests, server log,
# rss.csv, the slow clients' tally, the rollups) are copied to --logs (default
# .build/soak/<UTC time>) whatever the verdict. Exits 1 when a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=30
users=20
keep=""
logs=".build/soak/$(date -u +%Y%m%dT%H%M%SZ)"
inject_leak=0
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --users) users="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --logs) logs="$2"; shift 2 ;;
    --inject-leak) inject_leak="$2"; shift 2 ;;
    *) echo "usage: deploy/soak.sh [--minutes M] [--users N] [--keep DIR] [--logs DIR] [--inject-leak MB_PER_H]" >&2
       exit 64 ;;
  esac
done

bash deploy/install-deps.sh postgresql-client >/dev/null
. deploy/lib/private-cluster.sh
release_binaries sleepledger make-export
private_cluster sleepledger-soak "$keep"
export DATABASE_URL="$conninfo"
"$bin/sleepledger" migrate >/dev/null

# Three different exports a person (about 350 KB zipped each: a few years of nights),
# each person's own (different seeds), made once.
echo "soak: $users users, $minutes minutes; making $((users * 3)) exports"
for user in $(seq 1 "$users"); do
  for n in 1 2 3; do
    zip="$data/soak-$user-$n.zip"
    [ -s "$zip" ] || "$bin/make-export" --size 5MB --seed $((user * 10 + n)) --format zip --output "$zip" >/dev/null
  done
done
password="soak password $(date +%s)"
: > "$work/people.txt"
for user in $(seq 1 "$users"); do
  "$bin/sleepledger" user add "person$user" --time-zone Europe/Berlin >/dev/null
  printf '%s\n' "$password" | "$bin/sleepledger" user passwd "person$user" >/dev/null
  token="$("$bin/sleepledger" token create --user "person$user" --name soak --scope full 2>/dev/null |
    grep -o 'sl_[A-Za-z0-9_-]*' | head -1)"
  echo "person$user $token" >> "$work/people.txt"
done

"$bin/sleepledger" serve --listen 127.0.0.1:0 --metrics-listen off --spool "$work/spool" --max-per-client 32 \
  2>"$work/server.log" &
server_pid=$!
port="$(serving_port "$work/server.log" "$server_pid")" || exit 1
echo "server pid $server_pid on port $port; the load runs $minutes minutes"

# Resident memory every 10 s (kB).
(
  echo "unix_time,vmrss_kb,vmhwm_kb"
  while kill -0 "$server_pid" 2>/dev/null; do
    echo "$(date +%s),$(awk '/VmRSS/ { r = $2 } /VmHWM/ { h = $2 } END { print r "," h }' "/proc/$server_pid/status" 2>/dev/null)"
    sleep 10
  done
) > "$work/rss.csv" &
sampler=$!

# Slow clients throughout the load, from 127.0.9.x and 127.0.10.x.
python3 deploy/lib/hostile.py slow-mix --port "$port" --seconds "$(( minutes * 60 ))" --headers 4 --bodies 2 \
  > "$work/slow-clients.txt" 2>&1 &
slow_clients=$!

# The nightly rollup twice, at 30 % and 70 % of the run.
(
  sleep "$(awk -v m="$minutes" 'BEGIN { print m * 60 * 0.3 }')"
  "$bin/sleepledger" rollup >> "$work/rollup.log" 2>&1 || echo "rollup 1 failed: $?" >> "$work/rollup.log"
  sleep "$(awk -v m="$minutes" 'BEGIN { print m * 60 * 0.4 }')"
  "$bin/sleepledger" rollup >> "$work/rollup.log" 2>&1 || echo "rollup 2 failed: $?" >> "$work/rollup.log"
) &
rollups=$!

started="$(date +%s)"
/usr/bin/python3 - "$port" "$work/people.txt" "$data" "$password" "$minutes" "$work/requests.txt" <<'PY'
"""Each person signs in through the form, then until the end: reads the dashboard page,
the summary over the API and the imports page, and uploads their three exports at random
moments. Every request's method, route, status and time go to the requests file."""
import http.cookiejar, random, re, sys, threading, time, urllib.error, urllib.parse, urllib.request

port, people_path, data, password, minutes, out_path = sys.argv[1:7]
base = f"http://127.0.0.1:{port}"
end = time.time() + float(minutes) * 60
lock = threading.Lock()
out = open(out_path, "w")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


def request(opener, what, url, data=None, headers=None, method=None):
    started = time.time()
    try:
        with opener.open(urllib.request.Request(url, data=data, headers=headers or {}, method=method), timeout=120) as answer:
            status, body = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    except OSError as error:
        status, body = 0, str(error).encode()
    with lock:
        out.write(f"{what} {status} {time.time() - started:.3f}\n")
    return status, body


def person(handle, token, user_number):
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    status, body = request(opener, "GET /sign-in", base + "/sign-in")
    csrf = re.search(rb'name="csrf_token" value="([^"]+)"', body).group(1).decode()
    form = urllib.parse.urlencode({"csrf_token": csrf, "handle": handle, "password": password}).encode()
    request(opener, "POST /sign-in", base + "/sign-in", data=form,
            headers={"Content-Type": "application/x-www-form-urlencoded"})
    bearer = {"Authorization": "Bearer " + token}
    # The first export at once, the other two at random moments of the run.
    uploads = [time.time()] + sorted(random.uniform(0, end - time.time()) + time.time() for _ in range(2))
    n = 0
    seen_summary = False
    while time.time() < end:
        if n < 3 and time.time() >= uploads[n]:
            n += 1
            with open(f"{data}/soak-{user_number}-{n}.zip", "rb") as f:
                body = f.read()
            status, answer = request(opener, "POST /api/v1/imports", base + "/api/v1/imports", data=body,
                                     headers=dict(bearer, **{"Content-Type": "application/zip"}))
            with lock:
                out.write(f"upload {handle} {n} {status}\n")
            continue
        request(opener, "GET /", base + "/?horizon=" + random.choice(["daily", "weekly", "monthly", "yearly"]))
        # Until the person's first import is rolled up there is no summary (404): expected
        # then, an error once a summary was seen.
        what = "GET /api/v1/summary" if seen_summary else "GET /api/v1/summary(before-data)"
        if request(opener, what, base + "/api/v1/summary", headers=bearer)[0] == 200:
            seen_summary = True
        request(opener, "GET /imports", base + "/imports")
        time.sleep(random.uniform(0.2, 1.0))


threads = []
for number, line in enumerate(open(people_path).read().split("\n")[:-1], start=1):
    handle, token = line.split()
    thread = threading.Thread(target=person, args=(handle, token, number))
    thread.start()
    threads.append(thread)
for thread in threads:
    thread.join()
out.close()
PY
load_end="$(date +%s)"
echo "load done after $(( load_end - started )) s; waiting for the rollups and the queue"
wait "$slow_clients" || true
cat "$work/slow-clients.txt"
wait "$rollups"
for _ in $(seq 1 600); do
  left="$(psql -tA "$conninfo" -c "SELECT count(*) FROM import_jobs WHERE state IN ('queued', 'running')")"
  [ "$left" -eq 0 ] && break
  sleep 1
done
stop_server
kill "$sampler" 2>/dev/null || true

failed=0
echo "requests by route and status (count, median and slowest seconds):"
grep -v '^upload ' "$work/requests.txt" | awk '{ key = $1 " " $2 " " $3; n[key]++; t[key] = t[key] " " $4 }
  END { for (k in n) print k, n[k], t[k] }' | sort | while read -r method route status count times; do
  stats="$(printf '%s\n' $times | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f %.3f", v[int((NR + 1) / 2)], v[NR] }')"
  printf '  %-6s %-22s %3s %6s  %s\n' "$method" "$route" "$status" "$count" "$stats"
done
# A person's summary before their first import was rolled up is a 404 by design.
errors="$(grep -v '^upload ' "$work/requests.txt" |
  awk '$3 !~ /^(2|3)/ && $3 != 429 && !($2 == "/api/v1/summary(before-data)" && $3 == 404)' | wc -l)"
too_many="$(grep -v '^upload ' "$work/requests.txt" | awk '$3 == 429' | wc -l)"
echo "error responses other than 429: $errors (429: $too_many)"
[ "$errors" -eq 0 ] || { failed=1; grep -v '^upload ' "$work/requests.txt" | awk '$3 !~ /^(2|3)/ && $3 != 429' | head; }

# Memory: its trend over the load (deploy/lib/rss_trend.py; the rule is in the header).
memory_status=0
python3 deploy/lib/rss_trend.py judge "$work/rss.csv" --start "$started" --end "$load_end" \
  --add-leak "$inject_leak" || memory_status=$?
case "$memory_status" in
  0) ;;
  2) echo "memory: not judged (the run is too short for the trend rule)" ;;
  *) failed=1 ;;
esac

# Every accepted upload imported exactly once.
accepted="$(awk '$1 == "upload" && ($4 == 202 || $4 == 200)' "$work/requests.txt" | wc -l)"
refused="$(awk '$1 == "upload" && $4 != 202 && $4 != 200' "$work/requests.txt" | wc -l)"
read -r jobs done_jobs once imports <<<"$(psql -tA -F ' ' "$conninfo" -c "
  SELECT count(*), count(*) FILTER (WHERE state = 'done'), count(*) FILTER (WHERE state = 'done' AND attempts = 1),
    (SELECT count(*) FROM imports WHERE status = 'succeeded') FROM import_jobs")"
spool="$(find "$work/spool" -type f | wc -l)"
echo "uploads accepted $accepted (refused $refused); jobs $jobs, done $done_jobs (at the first attempt $once);" \
  "imports $imports; spool files $spool"
[ "$accepted" -eq "$jobs" ] && [ "$jobs" -eq "$done_jobs" ] && [ "$jobs" -eq "$imports" ] && [ "$spool" -eq 0 ] ||
  failed=1
echo "rollups: $(grep -c 'users done' "$work/rollup.log" || true) ran; $(grep -c '^rollup [12] failed' "$work/rollup.log" || true) failed"
grep -q '^rollup [12] failed' "$work/rollup.log" && failed=1
mkdir -p "$logs"
cp "$work/requests.txt" "$work/server.log" "$work/rss.csv" "$work/slow-clients.txt" "$work/rollup.log" "$logs/" \
  2>/dev/null || true
echo "logs in $logs"
[ "$failed" -eq 0 ] && echo "soak passed" || { echo "soak FAILED"; exit 1; }
