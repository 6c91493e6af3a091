"""On PostgreSQL the API's event loop never waits on the database: writes and uncached blocks run on threads."""
from __future__ import annotations

import threading
import time

import httpx
import psycopg
import pytest

from kiraos_desktop.api.server import ApiServer
from kiraos_desktop.core.engine import Engine
from api_helpers import AUTH, TOKEN

#: A request the loop is free to answer comes back in milliseconds; one stuck behind the held lock
#: would wait until the test releases it, so this bound only turns a hang into a failure.
ANSWER_S = 10


def update(client: httpx.Client, user_id: str, value: str) -> httpx.Response:
    return client.post("/v1/tools/memory_update", json={
        "user_id": user_id, "arguments": {"operations": [{"op": "set", "key": "城市", "value": value},
                                                        {"op": "event", "value": f"去了{value}"}]}})


@pytest.fixture
def served(tmp_path, pg_url):
    engine = Engine.open(data_dir=tmp_path / "data", database_url=pg_url)
    server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
    server.start()
    try:
        with httpx.Client(base_url=server.url, headers=AUTH, timeout=ANSWER_S) as client:
            yield engine, server, client
    finally:
        server.stop()
        engine.close()


def wait_for_waiter(conn: psycopg.Connection, locktype: str) -> None:
    """Until a backend waits for a lock of `locktype` (the request reached the database and is stuck)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = %s AND NOT granted",
                        (locktype,)).fetchone()[0]:
            return
        time.sleep(0.01)
    raise AssertionError(f"no request waited for a {locktype} lock")


def in_background(fn, *args) -> tuple[threading.Thread, list]:
    out: list = []
    thread = threading.Thread(target=lambda: out.append(fn(*args)), daemon=True)
    thread.start()
    return thread, out


def test_a_write_waiting_on_the_database_does_not_hold_up_cached_context_reads(served, pg_url):
    engine, server, api = served
    assert update(api, "free", "上海").status_code == 200
    assert "上海" in api.get("/v1/context", params={"user_id": "free"}).json()["context"]  # now cached
    with psycopg.connect(pg_url, autocommit=True) as watcher, psycopg.connect(pg_url) as holder:
        # Another instance's transaction holds user "held"'s write lock.
        holder.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ("held",))
        with httpx.Client(base_url=server.url, headers=AUTH, timeout=60) as other:
            writing, written = in_background(update, other, "held", "北京")
            wait_for_waiter(watcher, "advisory")
            # The write waits on the database; the loop answers the cached block meanwhile (and
            # another user's write is not refused either).
            reply = api.get("/v1/context", params={"user_id": "free"})
            assert reply.status_code == 200 and "上海" in reply.json()["context"]
            assert writing.is_alive()  # the lock is still held: the reply did not wait for it
            holder.rollback()  # releases the lock
            writing.join(60)
    assert written[0].status_code == 200 and not written[0].json()["is_error"], written[0].text
    assert "北京" in api.get("/v1/context", params={"user_id": "held"}).json()["context"]
    assert [p.value for p in engine.store.get_profiles("held")] == ["北京"]
    assert len(engine.store.get_events("held")) == 1


def test_an_uncached_block_is_built_off_the_loop(served, pg_url):
    engine, server, api = served
    for user in ("warm", "cold"):
        assert update(api, user, f"{user}城").status_code == 200
    assert api.get("/v1/context", params={"user_id": "warm"}).status_code == 200  # cached; "cold" is not
    with psycopg.connect(pg_url, autocommit=True) as watcher, psycopg.connect(pg_url) as holder:
        holder.execute("LOCK TABLE user_profiles IN ACCESS EXCLUSIVE MODE")  # reads of profiles wait
        with httpx.Client(base_url=server.url, headers=AUTH, timeout=60) as other:
            reading, read = in_background(lambda: other.get("/v1/context", params={"user_id": "cold"}))
            wait_for_waiter(watcher, "relation")
            reply = api.get("/v1/context", params={"user_id": "warm"})
            assert reply.status_code == 200 and "warm城" in reply.json()["context"]
            assert reading.is_alive()
            holder.rollback()
            reading.join(60)
    assert read[0].status_code == 200 and "cold城" in read[0].json()["context"], read[0].text
