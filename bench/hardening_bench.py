"""Hardening figures (round 3): what the API's writes cost other processes and the event loop.

python bench/hardening_bench.py [--only lock,freeze,query] [--compare-with CHECKOUT] [--duration 8]

Each part starts `kiraos-desktop serve` on a fresh data dir (with `--compare-with`, also the other
checkout's server, in turn, same load) and prints its figures; everything goes to
bench/out/hardening_bench.json.

- lock: another process (Python's sqlite3, default 5 s busy timeout, as the plugin's connection)
  inserts an event every 50 ms while the API writes back to back: "big" is one client sending calls
  of 150 events of 1,000 characters, "small" is 8 clients sending one small event each. Figures: the
  other process's inserts, failures ("database is locked"), median and worst wait; API calls/s.
  Target: no failure, worst wait under 1 s.
- freeze: /v1/health polled every 5 ms while one call of 200 events of 1,000 characters is written,
  and while one-event calls go to a user with 1,300 events of today (max_event_keep 0). Figures:
  health's worst latency, the calls' durations. Target: health's worst under 100 ms.
- query: worst-case messages for `GET /v1/context?query=` while /v1/health is polled every 5 ms: a
  one-character message and a 2,000-character one whose words every event holds, for a user with
  1,300 events of 1,000 characters, and one request for 100 users with 100 such events each; a new
  message every request (no cached block). Figures: the requests' median and worst, health's p99
  and worst. Targets: a request under 20 ms; health's p99 under 50 ms, worst under 250 ms.
- flood: a local process without the token holds 300 idle connections, opening a new one as soon
  as the server closes one, while a client asks /v1/skills on a new connection every 20 ms. Figures:
  the client's requests, how many failed (503, reset, no reply) and their median and worst latency.
  Target: none failed.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from urllib.parse import quote
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
TOKEN = "bench-token-0123456789"
PARTS = ("lock", "freeze", "query", "flood")
#: Targets: another process's worst wait for the write lock; /v1/health's worst latency.
TARGET_OTHER_WAIT_S = 1.0
TARGET_HEALTH_MS = 100.0

_OTHER_WRITER = r"""
import sqlite3, sys, time, json
db, seconds = sys.argv[1], float(sys.argv[2])
conn = sqlite3.connect(db, timeout=5.0, isolation_level=None)
waits, failures = [], 0
deadline = time.monotonic() + seconds
n = 0
while time.monotonic() < deadline:
    n += 1
    started = time.monotonic()
    try:
        conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES (?, ?, ?)",
                     ("other_process", f"plugin event {n}", time.strftime("%Y-%m-%dT%H:%M:%S")))
        waits.append(time.monotonic() - started)
    except sqlite3.OperationalError:
        failures += 1
    time.sleep(0.05)
print(json.dumps({"waits": waits, "failures": failures}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`serve` of `checkout` on a fresh data dir; stop() and start() again keep its database."""

    def __init__(self, checkout: Path, settings: dict | None = None) -> None:
        self.checkout = checkout
        self.work = Path(tempfile.mkdtemp(prefix="kd-hardening-"))
        self.data = self.work / "data"
        self.data.mkdir()
        if settings:
            (self.data / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        self.db = self.work / "memory.db"
        self.start()

    def start(self) -> None:
        self.port = free_port()
        env = {**os.environ, "PYTHONPATH": str(self.checkout)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kiraos_desktop", "serve", "--data-dir", str(self.data), "--db", str(self.db),
             "--port", str(self.port), "--token", TOKEN],
            cwd=self.checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/v1/health", timeout=2):
                    return
            except OSError:
                time.sleep(0.2)
        raise SystemExit("hardening_bench: the server did not start")

    def client(self) -> "Client":
        return Client(self.port)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


class Client:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def update(self, user_id: str, operations: list) -> float:
        body = json.dumps({"user_id": user_id, "arguments": {"operations": operations}},
                          ensure_ascii=False).encode()
        started = time.monotonic()
        self.conn.request("POST", "/v1/tools/memory_update", body,
                          {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
        reply = self.conn.getresponse()
        reply.read()
        if reply.status != 200:
            raise SystemExit(f"hardening_bench: memory_update answered {reply.status}")
        return time.monotonic() - started

    def context(self, query: str) -> float:
        """The duration of one GET /v1/context with `query` (the query string, already encoded)."""
        started = time.monotonic()
        self.conn.request("GET", f"/v1/context?{query}", headers={"Authorization": f"Bearer {TOKEN}"})
        reply = self.conn.getresponse()
        reply.read()
        if reply.status != 200:
            raise SystemExit(f"hardening_bench: /v1/context answered {reply.status}")
        return time.monotonic() - started

    def health(self) -> float:
        """The latency of one /v1/health (on a new connection when the server closed this one)."""
        started = time.monotonic()
        try:
            self.conn.request("GET", "/v1/health")
            self.conn.getresponse().read()
        except (http.client.HTTPException, OSError):
            self.conn.close()
            self.conn.request("GET", "/v1/health")
            self.conn.getresponse().read()
        return time.monotonic() - started


def events(count: int, chars: int, tag: str) -> list:
    """`count` distinct event operations of `chars` characters each."""
    body = "今天和朋友去西湖边散步聊到了工作和生活的很多事情" * (chars // 20 + 1)
    return [{"op": "event", "value": f"{tag} {i} {body}"[:chars]} for i in range(count)]


def _load(server: Server, clients: int, make_ops, seconds: float) -> tuple[list, threading.Event, list]:
    done = threading.Event()
    calls = [0]

    def run(number: int) -> None:
        client, n = server.client(), 0
        while not done.is_set():
            n += 1
            client.update(f"load_{number}_{n % 50}", make_ops(number, n))
            calls[0] += 1

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    return calls, done, threads


def part_lock(checkout: Path, seconds: float) -> dict:
    loads = {
        "big": (1, lambda c, n: events(150, 1000, f"c{c}n{n}")),
        "small": (8, lambda c, n: [{"op": "event", "value": f"完成半马 {c}-{n}"}]),
    }
    figures = {}
    for name, (clients, make_ops) in loads.items():
        server = Server(checkout)
        try:
            calls, done, threads = _load(server, clients, make_ops, seconds)
            time.sleep(0.5)
            started = time.monotonic()
            other = subprocess.run([sys.executable, "-c", _OTHER_WRITER, str(server.db), str(seconds)],
                                   capture_output=True, text=True, check=True)
            elapsed = time.monotonic() - started
            done.set()
            for t in threads:
                t.join(130)
            result = json.loads(other.stdout)
            waits = result["waits"]
            figures[name] = {
                "other_inserts": len(waits), "other_failures": result["failures"],
                "other_wait_median_ms": round(statistics.median(waits) * 1000, 1) if waits else None,
                "other_wait_max_ms": round(max(waits) * 1000, 1) if waits else None,
                "api_calls_per_s": round(calls[0] / elapsed, 1),
            }
        finally:
            server.stop()
    return figures


def _poll_health(server: Server, stop: threading.Event, latencies: list) -> None:
    client = server.client()
    while not stop.is_set():
        latencies.append(client.health())
        time.sleep(0.005)


def part_freeze(checkout: Path, seconds: float) -> dict:
    figures = {}
    server = Server(checkout)
    try:
        client, stop, latencies = server.client(), threading.Event(), []
        poller = threading.Thread(target=_poll_health, args=(server, stop, latencies), daemon=True)
        poller.start()
        time.sleep(0.3)
        latencies.clear()
        duration = client.update("big_call", events(200, 1000, "big"))
        stop.set()
        poller.join()
        figures["call_200x1000"] = {"call_ms": round(duration * 1000, 1),
                                    "health_max_ms": round(max(latencies) * 1000, 1)}
    finally:
        server.stop()
    server = Server(checkout, {"max_event_keep": 0})
    try:
        server.stop()
        _today_events(server.db, {"busy_user": 1300})
        server.start()
        client, stop, latencies = server.client(), threading.Event(), []
        client.update("busy_user", [{"op": "event", "value": "warm-up"}])
        poller = threading.Thread(target=_poll_health, args=(server, stop, latencies), daemon=True)
        poller.start()
        time.sleep(0.3)
        latencies.clear()
        durations = [client.update("busy_user", [{"op": "event", "value": f"one more event {i}"}])
                     for i in range(20)]
        stop.set()
        poller.join()
        figures["one_event_1300_today"] = {"call_median_ms": round(statistics.median(durations) * 1000, 1),
                                           "call_max_ms": round(max(durations) * 1000, 1),
                                           "health_max_ms": round(max(latencies) * 1000, 1)}
    finally:
        server.stop()
    return figures


def _today_events(db: Path, users: dict) -> None:
    """`users` (id -> count) events of 1,000 characters each, of today, written directly (as the plugin would)."""
    now = datetime.now(timezone.utc).astimezone().replace(tzinfo=None).isoformat(timespec="seconds")
    conn = sqlite3.connect(db)
    with conn:
        for user_id, count in users.items():
            conn.executemany("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES (?, ?, ?)",
                             [(user_id, op["value"], now) for op in events(count, 1000, user_id)])
    conn.close()


def part_query(checkout: Path, seconds: float) -> dict:
    server = Server(checkout, {"max_event_keep": 0})
    figures = {}
    try:
        server.stop()
        crowd = [f"crowd_{n:03d}" for n in range(100)]
        _today_events(server.db, {"busy_user": 1300, **{user_id: 100 for user_id in crowd}})
        server.start()
        text = events(1, 1000, "")[0]["value"]
        long_message = (text * 2)[:2000]
        cases = {
            "one_char_1300_events": lambda n: f"user_id=busy_user&query={quote('湖' + str(n))}",
            "2000_chars_1300_events": lambda n: f"user_id=busy_user&query={quote(str(n) + long_message[:1990])}",
            "100_users_one_request": lambda n: "&".join(f"user_id={u}" for u in crowd) + f"&query={quote('湖' + str(n))}",
        }
        for name, make in cases.items():
            client, stop, latencies = server.client(), threading.Event(), []
            client.context(make(-1))  # the users' windows cached, as in steady traffic
            poller = threading.Thread(target=_poll_health, args=(server, stop, latencies), daemon=True)
            poller.start()
            time.sleep(0.3)
            latencies.clear()
            durations, deadline, n = [], time.monotonic() + seconds / 2, 0
            while time.monotonic() < deadline:
                durations.append(client.context(make(n)))
                n += 1
            stop.set()
            poller.join()
            latencies.sort()
            figures[name] = {"requests": len(durations),
                             "request_median_ms": round(statistics.median(durations) * 1000, 1),
                             "request_max_ms": round(max(durations) * 1000, 1),
                             "health_p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000, 1),
                             "health_max_ms": round(latencies[-1] * 1000, 1)}
    finally:
        server.stop()
    return figures


def _flooder(port: int, count: int, stop: threading.Event) -> None:
    """Hold `count` idle connections, replacing each one the server closes (at once, as a flood would)."""
    import selectors

    selector = selectors.DefaultSelector()

    def open_one() -> None:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=2)
        except OSError:
            return
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)

    for _ in range(count):
        open_one()
    while not stop.is_set():
        for key, _ in selector.select(timeout=0.05):
            selector.unregister(key.fileobj)
            key.fileobj.close()
            open_one()
    for key in list(selector.get_map().values()):
        key.fileobj.close()


def part_flood(checkout: Path, seconds: float) -> dict:
    server = Server(checkout)
    stop = threading.Event()
    flooder = threading.Thread(target=_flooder, args=(server.port, 300, stop), daemon=True)
    try:
        flooder.start()
        time.sleep(1.0)
        latencies, failed = [], 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            started = time.monotonic()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
                conn.request("GET", "/v1/skills", headers={"Authorization": f"Bearer {TOKEN}"})
                reply = conn.getresponse()
                reply.read()
                conn.close()
                ok = reply.status == 200
            except (http.client.HTTPException, OSError):
                ok = False
            if ok:
                latencies.append(time.monotonic() - started)
            else:
                failed += 1
            time.sleep(0.02)
    finally:
        stop.set()
        flooder.join(10)
        server.stop()
    latencies.sort()
    return {"requests": len(latencies) + failed, "failed": failed,
            "median_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
            "max_ms": round(latencies[-1] * 1000, 1) if latencies else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(PARTS))
    parser.add_argument("--compare-with", type=Path, default=None)
    parser.add_argument("--duration", type=float, default=8.0)
    args = parser.parse_args()
    parts = [p for p in args.only.split(",") if p]
    checkouts = [("ours", REPO)] + ([("other", args.compare_with.resolve())] if args.compare_with else [])
    results: dict = {}
    for part in parts:
        run = {"lock": part_lock, "freeze": part_freeze, "query": part_query, "flood": part_flood}[part]
        for name, checkout in checkouts:
            results.setdefault(part, {})[name] = run(checkout, args.duration)
            print(f"{part} {name}: {json.dumps(results[part][name], ensure_ascii=False)}", flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "hardening_bench.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
