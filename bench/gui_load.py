"""Load for the GUI benchmark: memory_update over HTTP at a fixed rate, and a GUI-thread heartbeat."""
from __future__ import annotations

import http.client
import json
import random
import threading
import time

from PySide6.QtCore import QEventLoop, Qt, QTimer

import gui_data

TOKEN = "gui-bench-token-0123456789"


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def drive_writes(port: int, user_ids: list[str], rate: float, seconds: float, threads: int) -> dict:
    """`threads` keep-alive connections, together `rate` memory_update requests/s for `seconds`."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    start = time.perf_counter() + 0.05

    def run(index: int) -> None:
        rng = random.Random(index)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        n = 0
        while True:
            due = start + (n * threads + index) / rate
            if due - start >= seconds:
                break
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            uid = rng.choice(user_ids)
            body = json.dumps({"user_id": uid, "arguments": {"operations": [
                {"op": "set", "key": "城市", "value": rng.choice(gui_data.VALUES), "confidence": 0.9},
                {"op": "event", "value": f"基准写入 {n}"}]}}, ensure_ascii=False).encode()
            t = time.perf_counter()
            try:
                conn.request("POST", "/v1/tools/memory_update", body, headers)
                reply = conn.getresponse()
                reply.read()
                ok = reply.status == 200
            except OSError:
                ok = False
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            with lock:
                latencies.append(time.perf_counter() - t)
                errors[0] += 0 if ok else 1
            n += 1
        conn.close()

    workers = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - start
    latencies.sort()
    return {"requests": len(latencies), "errors": errors[0], "rate": round(len(latencies) / elapsed, 1),
            "p50_ms": ms(latencies[len(latencies) // 2]) if latencies else None,
            "p99_ms": ms(latencies[int(len(latencies) * 0.99)]) if latencies else None}


def heartbeat_gaps(seconds: float, during=None) -> tuple[list[float], dict | None]:
    """Gaps (ms) between ticks of a 10 ms precise QTimer on the GUI thread over `seconds`."""
    ticks: list[float] = []
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    box: dict = {}
    worker = threading.Thread(target=lambda: box.update(result=during()), daemon=True) if during else None
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    timer.start()
    if worker:
        worker.start()
    loop.exec()  # the GUI thread waits in its event loop like the running app
    timer.stop()
    if worker:
        worker.join()
    gaps = [ms(b - a) for a, b in zip(ticks, ticks[1:])]
    return gaps, box.get("result")


def drive_writes_in_process(port: int, user_ids: list[str], rate: float, seconds: float, threads: int) -> dict:
    """drive_writes in a separate Python process, like a real bot host (no share of this process's GIL)."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as handle:
        json.dump(user_ids, handle)
    try:
        done = subprocess.run([sys.executable, str(Path(__file__)), str(port), handle.name, str(rate), str(seconds),
                               str(threads)], capture_output=True, text=True, timeout=seconds + 60)
    finally:
        Path(handle.name).unlink(missing_ok=True)
    if done.returncode != 0:
        raise RuntimeError(f"the write driver failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


if __name__ == "__main__":
    import sys

    port_arg, ids_file, rate_arg, seconds_arg, threads_arg = sys.argv[1:6]
    with open(ids_file, encoding="utf-8") as source:
        ids = json.load(source)
    print(json.dumps(drive_writes(int(port_arg), ids, float(rate_arg), float(seconds_arg), int(threads_arg))))
