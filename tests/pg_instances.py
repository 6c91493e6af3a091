"""`kiraos-desktop serve` subprocesses on one PostgreSQL database, for the multi-instance tests."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator

import httpx

TOKEN = "pg-instances-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


class Instance:
    """One running `serve`: its URL and an HTTP client with the token."""

    def __init__(self, proc: subprocess.Popen, url: str, name: str) -> None:
        self.proc = proc
        self.url = url
        self.name = name
        self.client = httpx.Client(base_url=url, headers=AUTH, timeout=30)

    def update(self, user_id: str, operations: list, client: httpx.Client | None = None) -> httpx.Response:
        return (client or self.client).post("/v1/tools/memory_update",
                                            json={"user_id": user_id, "arguments": {"operations": operations}})

    def context(self, user_id: str, client: httpx.Client | None = None) -> httpx.Response:
        return (client or self.client).get("/v1/context", params={"user_id": user_id})

    def new_client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers=AUTH, timeout=30)


def write_settings(data_dir: Path, **settings) -> Path:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return data_dir


@contextmanager
def serve(data_dir: Path, database_url: str, name: str) -> Iterator[Instance]:
    """`serve --database-url` on a free port; stopped (SIGINT, then kill) when the block ends."""
    proc = subprocess.Popen([sys.executable, "-m", "kiraos_desktop", "serve", "--data-dir", str(data_dir),
                             "--database-url", database_url, "--port", "0", "--token", TOKEN],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    log: list[str] = []
    try:
        line = proc.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if found is None:
            rest = proc.stderr.read() if proc.poll() is not None else ""
            raise AssertionError(f"serve {name} did not start: {line}{rest}")
        assert "test-secret" not in line  # the password is never printed
        # Keep reading stderr so the process never blocks on a full pipe.
        drain = threading.Thread(target=lambda: log.extend(proc.stderr), daemon=True)
        drain.start()
        instance = Instance(proc, found.group(0), name)
        try:
            yield instance
        finally:
            instance.client.close()
    finally:
        if proc.poll() is None:
            proc.send_signal(2)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@contextmanager
def two_instances(tmp_path: Path, database_url: str, **settings) -> Iterator[tuple[Instance, Instance]]:
    with ExitStack() as stack:
        first = stack.enter_context(serve(write_settings(tmp_path / "a", **settings), database_url, "A"))
        second = stack.enter_context(serve(write_settings(tmp_path / "b", **settings), database_url, "B"))
        yield first, second
