#!/usr/bin/env python3
"""Hostile clients against a running `sleepledger serve`, and what ordinary clients see
meanwhile (issue 20). Standard library only. Used by deploy/abuse-test.sh (the suite) and
deploy/soak.sh (slow clients mixed into the soak).

    hostile.py suite CONFIG.json [CASE...]   the cases, a table, results JSON; exit 1 if one fails
    hostile.py probe --port P --token T [--pid PID]
                                            a normal client from 127.0.0.1 until standard
                                            input closes; prints its figures as JSON
    hostile.py slow-mix --port P --seconds S [--headers N] [--bodies N]
                                            N slow-header and N slow sign-in body connections
                                            from 127.0.9.x for S seconds, each opened again
                                            when the server cuts it; prints what they saw

Attackers bind their sockets to extra loopback addresses (127.0.0.0/8 is all loopback on
Linux), so per-address limits see many clients. The normal client is 127.0.0.1: a fresh
connection per request, `GET /healthz` and `GET /api/v1/summary` with a Bearer token in
turn, 10 requests a second, 5 s timeout; anything but 200 is an error.
"""
import asyncio
import collections
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import zipfile

PROBE_P99_LIMIT = 1.0  # seconds
RSS_LIMIT_MB = 256


# ---------------------------------------------------------------------------------------
# The server's process


def proc_status(pid):
    """VmRSS and VmHWM in kB (0 when the process is gone)."""
    values = {"VmRSS": 0, "VmHWM": 0}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                key = line.split(":")[0]
                if key in values:
                    values[key] = int(line.split()[1])
    except OSError:
        pass
    return values["VmRSS"], values["VmHWM"]


def cpu_seconds(pid):
    """User + system CPU time of the process, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


# ---------------------------------------------------------------------------------------
# The normal client


def probe_request(port, path, headers):
    started = time.monotonic()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=("127.0.0.1", 0))
        connection.request("GET", path, headers=headers)
        answer = connection.getresponse()
        answer.read()
        connection.close()
        error = None if answer.status == 200 else f"{path.split('?')[0]} {answer.status}"
    except (OSError, http.client.HTTPException) as failure:
        error = f"{path.split('?')[0]} {type(failure).__name__}"
    return time.monotonic() - started, error


def probe_main(port, token, pid):
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    latencies, errors, rss_max, hwm_max, unreadable = [], collections.Counter(), 0, 0, 0
    bearer = {"Authorization": "Bearer " + token}
    n = 0
    while not stop.is_set():
        path, headers = ("/healthz", {}) if n % 2 == 0 else ("/api/v1/summary", bearer)
        elapsed, error = probe_request(port, path, headers)
        latencies.append(elapsed)
        if error:
            errors[error] += 1
        if pid:
            rss, hwm = proc_status(pid)
            rss_max, hwm_max = max(rss_max, rss), max(hwm_max, hwm)
            unreadable += 0 if hwm else 1
        n += 1
        stop.wait(0.1)
    if pid:
        rss, hwm = proc_status(pid)
        rss_max, hwm_max = max(rss_max, rss), max(hwm_max, hwm)
        unreadable += 0 if hwm else 1
    print(json.dumps({"latencies": latencies, "errors": dict(errors), "rss_max_kb": rss_max, "hwm_kb": hwm_max,
                      "status_unreadable": unreadable}))


class Probe:
    """The normal client in a process of its own (the attackers' event loop never delays it)."""

    def __init__(self, config):
        self.process = subprocess.Popen(
            [sys.executable, __file__, "probe", "--port", str(config["port"]), "--token", config["probe_token"],
             "--pid", str(config["pid"])], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def finish(self):
        output, _ = self.process.communicate("", timeout=30)
        return json.loads(output)


# ---------------------------------------------------------------------------------------
# Attackers


def status_of(data):
    first = data.split(b"\r\n", 1)[0].split()
    return f"answered {first[1].decode()}" if len(first) > 1 and first[0].startswith(b"HTTP/") else "answered garbage"


async def slow_client(address, port, head, trickle, every, stop_at, tally, reconnect=True):
    """Opens a connection from `address`, sends `head`, then `trickle` every `every` seconds
    until the server answers or closes (counted, then opened again) or the time is up."""
    while time.monotonic() < stop_at:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)), timeout=5)
        except (OSError, asyncio.TimeoutError) as failure:
            tally["connect failed: " + type(failure).__name__] += 1
            await asyncio.sleep(1 + random.random())
            continue
        tally["connections"] += 1
        outcome = "held to the end"
        try:
            writer.write(head)
            await writer.drain()
            while time.monotonic() < stop_at:
                try:
                    data = await asyncio.wait_for(reader.read(4096), timeout=min(every, max(0.01, stop_at - time.monotonic())))
                except asyncio.TimeoutError:
                    writer.write(trickle)
                    await writer.drain()
                    continue
                outcome = status_of(data) if data else "closed by the server"
                break
        except OSError:
            outcome = "reset by the server"
        finally:
            writer.close()
        tally[outcome] += 1
        if not reconnect:
            return
        await asyncio.sleep(1 + random.random())


async def head_only(address, port, head, wait):
    """Sends a request's head and no body; the status the server answers within `wait` s."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)), timeout=5)
    except (OSError, asyncio.TimeoutError) as failure:
        return "connect failed: " + type(failure).__name__
    try:
        writer.write(head)
        await writer.drain()
        data = await asyncio.wait_for(reader.read(4096), timeout=wait)
        return status_of(data) if data else "closed by the server"
    except asyncio.TimeoutError:
        return f"no answer in {wait:g} s"
    except OSError:
        return "reset by the server"
    finally:
        writer.close()


def spread(clients, addresses):
    """client i's source address: 8 a address at most, as per-address limits see them."""
    return [addresses[i % len(addresses)] for i in range(clients)]


def slow_header_attack(port, clients, addresses, stop_at, tally):
    head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow-header\r\n"
    return [slow_client(a, port, head, b"X-Slow: a\r\n", 2.0, stop_at, tally) for a in spread(clients, addresses)]


def slow_sign_in_attack(port, clients, addresses, stop_at, tally):
    head = (b"POST /sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: 4096\r\n\r\nhandle=nobody&password=")
    return [slow_client(a, port, head, b"aaaaaaaaaaaaaaaa", 2.0, stop_at, tally) for a in spread(clients, addresses)]


def upload_head(token, length=8 << 20):
    return (f"POST /api/v1/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/zip\r\nContent-Length: {length}\r\n\r\n").encode()


def addresses(third_octet, count):
    return [f"127.0.{third_octet + i // 250}.{i % 250 + 1}" for i in range(count)]


async def run_attack(make_coroutines, seconds, during=None):
    """Runs the attackers for `seconds`; `during` (a coroutine function) runs beside them."""
    stop_at = time.monotonic() + seconds
    coroutines = make_coroutines(stop_at)

    async def staggered(coroutine, delay):
        await asyncio.sleep(delay)
        await coroutine

    tasks = [asyncio.ensure_future(staggered(c, random.uniform(0, 2))) for c in coroutines]
    extra = await during() if during else None
    await asyncio.gather(*tasks)
    return extra


# ---------------------------------------------------------------------------------------
# Cases: each returns a result dict: ok, why (list), seen (what others saw), attackers


def judge_probe(result, probe, why):
    latencies = probe["latencies"]
    errors = sum(probe["errors"].values())
    p99 = percentile(latencies, 99)
    result["seen"] = {
        "requests": len(latencies), "p50_ms": percentile(latencies, 50) * 1000, "p99_ms": p99 * 1000,
        "max_ms": max(latencies) * 1000 if latencies else float("nan"), "errors": errors,
        "error_kinds": probe["errors"]}
    result["memory"] = {"rss_max_mb": probe["rss_max_kb"] / 1024, "hwm_mb": probe["hwm_kb"] / 1024}
    if errors:
        kinds = ", ".join(f"{k} x{v}" for k, v in sorted(probe["errors"].items(), key=lambda kv: -kv[1]))
        why.append(f"the normal client got {errors} errors of {len(latencies)} requests ({kinds})")
    if not latencies or p99 > PROBE_P99_LIMIT:
        why.append(f"the normal client's p99 was {p99 * 1000:.0f} ms (limit {PROBE_P99_LIMIT * 1000:.0f} ms)")
    if probe.get("status_unreadable"):
        why.append(f"the server's /proc/PID/status could not be read {probe['status_unreadable']} times "
                   f"(the process was gone)")
    if probe["hwm_kb"] / 1024 >= RSS_LIMIT_MB:
        why.append(f"the server's VmHWM reached {probe['hwm_kb'] / 1024:.0f} MB (limit {RSS_LIMIT_MB} MB)")


def slow_case(config, name, build, during=None, seconds=None):
    tally = collections.Counter()
    seconds = seconds or config["case_seconds"]
    probe = Probe(config)
    extra = asyncio.run(run_attack(lambda stop_at: build(stop_at, tally), seconds, during))
    why = []
    result = {"case": name, "attackers": dict(tally)}
    judge_probe(result, probe.finish(), why)
    return result, why, extra


def case_baseline(config):
    probe = Probe(config)
    time.sleep(min(10, config["case_seconds"]))
    why = []
    result = {"case": "baseline: no attack"}
    judge_probe(result, probe.finish(), why)
    return result, why


def case_slow_headers(config):
    port = config["port"]
    result, why, _ = slow_case(
        config, "1000 slow-header connections from 125 addresses",
        lambda stop_at, tally: slow_header_attack(port, 1000, addresses(1, 125), stop_at, tally))
    return result, why


def case_slow_sign_in(config):
    port = config["port"]
    result, why, _ = slow_case(
        config, "200 slow sign-in bodies from 25 addresses",
        lambda stop_at, tally: slow_sign_in_attack(port, 200, addresses(2, 25), stop_at, tally))
    return result, why


def case_slow_uploads(config):
    port, tokens = config["port"], config["accounts"]
    own = addresses(3, len(tokens))  # one address an account: 3 slow uploads and the 4th

    def build(stop_at, tally):
        return [slow_client(own[i], port, upload_head(token), b"\0" * 64, 1.0, stop_at, tally)
                for i, token in enumerate(tokens) for _ in range(3)]

    async def fourth():
        await asyncio.sleep(8)  # every slow upload has sent its head (stagger: 2 s)
        return await asyncio.gather(*(head_only(own[i], port, upload_head(token), 5) for i, token in enumerate(tokens)))

    result, why, answers = slow_case(
        config, f"{3 * len(tokens)} slow uploads from {len(tokens)} accounts, then a 4th each", build, fourth,
        config.get("upload_seconds"))
    answers = collections.Counter(answers)
    result["fourth_upload"] = dict(answers)
    refused = answers.get("answered 429", 0)
    if refused != len(tokens):
        kinds = ", ".join(f"{k} x{v}" for k, v in answers.items())
        why.append(f"the 4th upload of an account was refused with 429 at the head {refused} of {len(tokens)} "
                   f"times ({kinds})")
    return result, why


def raw(port, data, wait=5.0, address="127.0.0.1"):
    """Sends raw bytes; the status line of the answer, or what happened instead."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=wait, source_address=(address, 0)) as s:
            s.sendall(data)
            answer = b""
            while b"\r\n" not in answer:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
    except socket.timeout:
        return f"no answer in {wait:g} s"
    except OSError as failure:
        return type(failure).__name__
    return status_of(answer) if answer else "closed by the server"


def case_log_forging(config):
    forged = "2026-12-01T00:00:00Z 127.0.0.99 \"GET /forged\" 200 0 1.0ms"
    quoted = forged.replace(" ", "%20").replace('"', "%22")
    answers = [raw(config["port"], f"GET /api/v1/x%0a{quoted} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()),
               raw(config["port"], f"GET /x%0d%0a{quoted} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())]
    time.sleep(1)
    with open(config["log"], errors="replace") as handle:
        lines = handle.read().split("\n")
    forged_lines = [line for line in lines if line.startswith("2026-12-01T00:00:00Z 127.0.0.99")]
    why = []
    if forged_lines:
        why.append(f"the access log holds {len(forged_lines)} forged line(s): {forged_lines[0]!r}")
    return {"case": "F4: %0a in a path forges no access-log line", "answers": answers,
            "detail": f"answers {', '.join(answers)}; forged lines in the log: {len(forged_lines)}"}, why


def case_malformed_heads(config):
    port = config["port"]
    checks = {
        "two different Content-Length": b"POST /sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                                        b"application/x-www-form-urlencoded\r\nContent-Length: 5\r\n"
                                        b"Content-Length: 12\r\n\r\nhandle=a&x=y",
        "space before a header's colon (Host :)": b"GET /healthz HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n",
        "space before a header's colon (Content-Length :)": b"POST /sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                           b"Content-Length : 5\r\n\r\nhello",
        "HTTP/1.1 without Host": b"GET /healthz HTTP/1.1\r\n\r\n",
    }
    why, seen = [], {}
    for name, data in checks.items():
        seen[name] = raw(port, data)
        if seen[name] != "answered 400":
            why.append(f"{name}: {seen[name]}, not 400")
    return {"case": "F5: malformed heads get 400", "answers": seen,
            "detail": "; ".join(f"{k}: {v}" for k, v in seen.items())}, why


def api(port, method, path, token, body=None, content_type=None, timeout=60):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Authorization": "Bearer " + token}
    if content_type:
        headers["Content-Type"] = content_type
    connection.request(method, path, body=body, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    try:
        return answer.status, json.loads(data or b"null")
    except ValueError:
        return answer.status, None


def wait_for_job(port, token, job_id, seconds=180):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, body = api(port, "GET", f"/api/v1/imports/{job_id}", token)
        state = (body or {}).get("import", {}).get("state") if status == 200 else None
        if state in ("done", "failed", "cancelled"):
            return body["import"]
        time.sleep(0.2)
    return {"state": f"not ended within {seconds} s"}


def upload_and_cost(config, token, path):
    """Uploads a file, follows its job to its end; the server's CPU seconds meanwhile."""
    with open(path, "rb") as handle:
        body = handle.read()
    before = cpu_seconds(config["pid"])
    started = time.monotonic()
    status, answer = api(config["port"], "POST", "/api/v1/imports", token, body, "application/zip", timeout=120)
    job = None
    if status in (200, 202):
        job = wait_for_job(config["port"], token, answer["import"]["id"])
    return status, job, cpu_seconds(config["pid"]) - before, time.monotonic() - started


def make_bomb(small_zip, path, entries=4, mib=256):
    if os.path.exists(path):
        return
    partial = path + ".partial"
    with open(small_zip, "rb") as source, open(partial, "wb") as target:
        target.write(source.read())
    zeros = bytes(1 << 20)
    with zipfile.ZipFile(partial, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        for n in range(entries):
            with archive.open(f"apple_health_export/electrocardiograms/zeros-{n}.csv", "w", force_zip64=True) as entry:
                for _ in range(mib):
                    entry.write(zeros)
    os.rename(partial, path)


def case_zip_bomb(config):
    bomb = os.path.join(config["work"], "bomb.zip")
    make_bomb(config["small_zip"], bomb)
    base_status, base_job, base_cpu, _ = upload_and_cost(config, config["f2_base_token"], config["small_zip"])
    status, job, cpu, wall = upload_and_cost(config, config["f2_bomb_token"], bomb)
    limit = base_cpu + 2.0
    why = []
    refused = status not in (200, 202)
    state = (job or {}).get("state")
    reason = ((job or {}).get("error") or "")[:120]
    if not refused and cpu > limit:
        why.append(f"the zip (4 x 256 MiB of zeros beside the export, {os.path.getsize(bomb) / 1e6:.1f} MB) was "
                   f"accepted ({status}, job {state}) and cost the server {cpu:.1f} CPU s against {base_cpu:.1f} s "
                   f"for the export alone (limit: that + 2 s)")
    detail = (f"the export alone: {base_status}, job {(base_job or {}).get('state')}, {base_cpu:.2f} CPU s; "
              f"with the zeros ({os.path.getsize(bomb) / 1e6:.1f} MB zip): {status}"
              + ("" if refused else f", job {state}{' (' + reason + ')' if reason else ''}")
              + f", {cpu:.2f} CPU s, {wall:.1f} s")
    return {"case": "F2: zip with 4 x 256 MiB zero entries beside a small export", "detail": detail,
            "cpu_s": cpu, "base_cpu_s": base_cpu}, why


def case_same_file(config):
    port, token = config["port"], config["f9_token"]
    with open(config["f9_zip"], "rb") as handle:
        body = handle.read()
    barrier = threading.Barrier(3)
    answers = [None] * 3

    def send(i):
        barrier.wait()
        answers[i] = api(port, "POST", "/api/v1/imports", token, body, "application/zip", timeout=120)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ids = {a[1]["import"]["id"] for a in answers if a[0] in (200, 202) and a[1]}
    status, listing = api(port, "GET", "/api/v1/imports", token)
    listed = len((listing or {}).get("imports", [])) if status == 200 else None
    # Its import runs in the server: wait for it, so that it costs nothing in the next case.
    jobs = [wait_for_job(port, token, i, 120).get("state") for i in sorted(ids)]
    why = []
    statuses = [a[0] for a in answers]
    if any(s not in (200, 202) for s in statuses):
        why.append(f"answers {statuses}: not all 200 or 202")
    if len(ids) != 1 or listed != 1:
        why.append(f"{len(ids)} distinct imports in the answers and {listed} listed: not one job")
    return {"case": "F9: three simultaneous uploads of one file make one job",
            "detail": f"answers {statuses}, import ids {sorted(ids)}, imports listed {listed}, jobs {jobs}"}, why


def case_no_space(config):
    why, seen = [], {}
    # (a) a server whose --min-free is more than any disk has: any upload is 507.
    with open(config["small_zip"], "rb") as handle:
        body = handle.read()
    try:
        status, _ = api(config["f3_port"], "POST", "/api/v1/imports", config["f3_token"], body, "application/zip")
        seen["--min-free past the disk"] = f"answered {status}"
    except OSError as failure:
        seen["--min-free past the disk"] = type(failure).__name__
    # (b) the suite's server: an upload declaring more than the spool disk's free space.
    spool = os.statvfs(config["spool"])
    free = spool.f_bavail * spool.f_frsize
    declared = free + (1 << 30)
    if declared > config["max_upload"]:
        seen["declared past the free space"] = f"not tried: {declared} bytes is past --max-upload"
    else:
        seen["declared past the free space"] = asyncio.run(
            head_only("127.0.0.1", config["port"], upload_head(config["f3_token"], declared), 5))
    for name, answer in seen.items():
        if answer != "answered 507":
            why.append(f"{name}: {answer}, not 507")
    return {"case": "F3: an upload past free space gets 507",
            "detail": "; ".join(f"{k}: {v}" for k, v in seen.items())
            + f" (free {free / 2**30:.1f} GiB, declared {declared / 2**30:.1f} GiB)"}, why


CASES = {
    "baseline": case_baseline,
    "log-forging": case_log_forging,
    "malformed-heads": case_malformed_heads,
    "no-space": case_no_space,
    "slow-headers": case_slow_headers,
    "slow-sign-in": case_slow_sign_in,
    "slow-uploads": case_slow_uploads,
    "same-file": case_same_file,
    "zip-bomb": case_zip_bomb,
}


def cell_seen(result):
    seen = result.get("seen")
    if not seen:
        return "-"
    return (f"n={seen['requests']} p50 {seen['p50_ms']:.0f} ms, p99 {seen['p99_ms']:.0f} ms, "
            f"max {seen['max_ms']:.0f} ms, errors {seen['errors']}")


def cell_memory(result):
    memory = result.get("memory")
    return f"{memory['rss_max_mb']:.0f} MB (HWM {memory['hwm_mb']:.0f})" if memory else "-"


def suite_main(config_path, names):
    with open(config_path) as handle:
        config = json.load(handle)
    names = names or list(CASES)
    results, failed = [], 0
    for name in names:
        started = time.monotonic()
        print(f"--- {name}", flush=True)
        try:
            result, why = CASES[name](config)
        except Exception as failure:  # a case that cannot run fails, saying why
            result, why = {"case": name}, [f"the case could not run: {type(failure).__name__}: {failure}"]
        result.update(name=name, ok=not why, why=why, seconds=time.monotonic() - started)
        failed += 0 if result["ok"] else 1
        for line in [result.get("detail"), result.get("attackers") and f"attackers saw: {result['attackers']}",
                     result.get("fourth_upload") and f"4th uploads: {result['fourth_upload']}"]:
            if line:
                print("    " + str(line), flush=True)
        print(f"    {'PASS' if result['ok'] else 'FAIL'} ({result['seconds']:.0f} s): {cell_seen(result)}; "
              f"server memory {cell_memory(result)}", flush=True)
        for reason in why:
            print("    why: " + reason, flush=True)
        results.append(result)
        time.sleep(2)  # let cut connections go before the next case
    print()
    print("| attack | result | what the normal client saw (GET /healthz and /api/v1/summary) | server RSS max (VmHWM) |")
    print("|---|---|---|---|")
    for r in results:
        seen = cell_seen(r) if r.get("seen") else (r.get("detail") or "-")
        print(f"| {r['case']} | {'pass' if r['ok'] else '**FAIL**'} | {seen} | {cell_memory(r)} |")
    print()
    for r in results:
        for reason in r["why"]:
            print(f"FAIL {r['name']}: {reason}")
    with open(config.get("results", os.path.join(config["work"], "results.json")), "w") as handle:
        json.dump(results, handle, indent=1)
    print(f"{len(results) - failed} of {len(results)} cases passed")
    return 1 if failed else 0


def slow_mix_main(port, seconds, headers, bodies):
    tally = collections.Counter()

    def build(stop_at, tally=tally):
        return (slow_header_attack(port, headers, addresses(9, max(1, headers)), stop_at, tally)
                + slow_sign_in_attack(port, bodies, addresses(10, max(1, bodies)), stop_at, tally))

    asyncio.run(run_attack(build, seconds))
    print("slow clients saw: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))


def option(args, name, default=None):
    return args[args.index(name) + 1] if name in args else default


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    if args[0] == "suite":
        sys.exit(suite_main(args[1], args[2:]))
    if args[0] == "probe":
        probe_main(int(option(args, "--port")), option(args, "--token"), int(option(args, "--pid", "0")))
    elif args[0] == "slow-mix":
        slow_mix_main(int(option(args, "--port")), float(option(args, "--seconds")),
                      int(option(args, "--headers", "4")), int(option(args, "--bodies", "2")))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
