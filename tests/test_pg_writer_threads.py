"""PostgreSQL: several writer threads in one process, each on its own connection (store and API)."""
from __future__ import annotations

import threading
import time
from collections import Counter

import httpx
import psycopg
import pytest

from kiraos_desktop.api.server import ApiServer
from kiraos_desktop.core.storage.postgres.store import PG_WRITER_THREADS
from kiraos_desktop.core.writes.workers import Workers
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.tools.memory_tools import MemoryTools
from kiraos_desktop.core.storage.postgres.store import PgMemoryStore
from kiraos_desktop.core.settings import Settings
from api_helpers import AUTH, TOKEN
from pg_instances import write_settings
from tests.test_pg_instances import check_audit_chains
from core_helpers import run_threads

#: Bounds a wait that the code under test must end by itself (a failure, not a pause of the test).
WAIT_S = 30


def wait_for_waiters(conn: psycopg.Connection, count: int = 1) -> list[int]:
    """The server processes waiting for an advisory lock, once there are `count` of them."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        pids = [pid for (pid,) in conn.execute(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").fetchall()]
        if len(pids) >= count:
            return pids
        time.sleep(0.01)
    raise AssertionError(f"fewer than {count} writers waited for a user's lock")


# ---- the store ------------------------------------------------------------------------------

def test_threads_of_one_store_write_at_once_and_only_one_users_writers_wait(pg_url):
    store = PgMemoryStore(pg_url)
    inside, release = threading.Event(), threading.Event()

    def hold():
        with store.batch("gui") as batch:
            batch.set_profile("a", "k", "held")
            inside.set()
            release.wait(WAIT_S)

    holder = threading.Thread(target=hold)
    holder.start()
    assert inside.wait(WAIT_S)
    try:
        # Another user, another thread: written while the first thread's transaction is open.
        store.set_profile("b", "k", "free", actor="api")
        assert not release.is_set() and holder.is_alive()
        assert store.get_profile("b", "k").value == "free" and store.get_profile("a", "k") is None
        assert len(set(store.writer_pids().values())) == 2  # two threads, two connections
        # The same user from a third thread waits for the first one's commit.
        same = threading.Thread(target=lambda: store.set_profile("a", "k", "after", actor="api"))
        same.start()
        with psycopg.connect(pg_url, autocommit=True) as watcher:
            waiting = wait_for_waiters(watcher)
        assert set(waiting) <= set(store.writer_pids().values())
    finally:
        release.set()
        holder.join(WAIT_S)
    same.join(WAIT_S)
    assert store.get_profile("a", "k").value == "after"
    assert [c.after["value"] for c in reversed(store.list_changes("a"))] == ["held", "after"]
    store.close()
    assert store.writer_pids() == {}  # every thread's connection closed


def test_groups_on_threads_of_one_store_in_opposite_orders_neither_deadlock_nor_lose_anything(pg_url):
    store = PgMemoryStore(pg_url, max_profiles_per_user=0, max_event_keep=0)
    users, rounds, threads = ("a", "b", "c"), 12, 4
    published: Counter = Counter()
    lock = threading.Lock()

    def count(event):
        with lock:
            published[event.user_id] += 1

    store.changes.subscribe(count)
    tools = MemoryTools(store, lambda: Settings())

    def writer(n):
        order = list(users) if n % 2 else list(reversed(users))  # opposite orders: a deadlock if held

        def work():
            for i in range(rounds):
                with store.group():
                    for user in order:
                        tools.update(user, [{"op": "set", "key": f"w{n}r{i}", "value": "v"},
                                            {"op": "event", "value": f"writer {n} round {i}"}], actor="tool")
        return work

    assert run_threads([writer(n) for n in range(threads)]) == []
    per_user = rounds * threads
    actions = check_audit_chains(store, users)
    for user in users:
        assert len(store.get_profiles(user)) == per_user and len(store.get_events(user)) == per_user
        assert actions[user, "profile_set"] == actions[user, "event_add"] == per_user
        assert published[user] == per_user  # one change event per committed call, none twice
    store.close()


def test_the_profile_limit_and_event_retention_hold_across_threads_of_one_store(pg_url):
    limit, keep = 5, 7
    store = PgMemoryStore(pg_url, max_profiles_per_user=limit, max_event_keep=keep)
    tools = MemoryTools(store, lambda: Settings(max_profiles_per_user=limit, max_event_keep=keep))

    def writer(n):
        def work():
            for i in range(12):
                with store.group():
                    tools.update("shared", [{"op": "set", "key": f"w{n}k{i}", "value": "v"},
                                            {"op": "event", "value": f"writer {n} event {i}"}], actor="tool")
        return work

    assert run_threads([writer(n) for n in range(4)]) == []
    assert len(store.get_profiles("shared")) == limit and len(store.get_events("shared")) == keep
    summary = store.user_summary("shared")
    assert (summary.profile_count, summary.event_count) == (limit, keep)
    actions = check_audit_chains(store, ["shared"])
    assert actions["shared", "event_add"] == 48 and actions["shared", "event_trim"] == 48 - keep
    store.close()


# ---- the API ------------------------------------------------------------------------------------

def update(client: httpx.Client, user_id: str, operations: list) -> httpx.Response:
    return client.post("/v1/tools/memory_update", json={"user_id": user_id, "arguments": {"operations": operations}})


@pytest.fixture
def served(tmp_path, pg_url):
    """An API on PostgreSQL with small limits: (engine, server)."""
    data = write_settings(tmp_path / "data", max_profiles_per_user=6, max_event_keep=10)
    engine = Engine.open(data_dir=data, database_url=pg_url)
    server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
    server.start()
    try:
        yield engine, server
    finally:
        server.stop()
        engine.close()


def users_of_lanes(count: int) -> list[str]:
    """One user id per writer thread of the API (lane 0, 1, ...), `count` of each lane in turn."""
    lanes = Workers(PG_WRITER_THREADS)
    found: dict[int, list[str]] = {lane: [] for lane in range(PG_WRITER_THREADS)}
    n = 0
    while any(len(ids) < count for ids in found.values()):
        user = f"user{n}"
        n += 1
        if len(found[lanes.lane_of(user)]) < count:
            found[lanes.lane_of(user)].append(user)
    return [found[lane][i] for i in range(count) for lane in range(PG_WRITER_THREADS)]


def test_concurrent_updates_through_one_api_on_several_writer_threads_keep_counts_limits_and_chains(served):
    assert PG_WRITER_THREADS > 1
    engine, server = served
    users = users_of_lanes(2)  # every writer thread has users, and each user many writers
    clients, calls = 8, 30
    acked: Counter = Counter()
    failures: list[str] = []
    lock = threading.Lock()

    def writer(n):
        def work():
            with httpx.Client(base_url=server.url, headers=AUTH, timeout=WAIT_S) as client:
                for i in range(calls):
                    user = users[(n + i) % len(users)]
                    reply = update(client, user, [{"op": "set", "key": f"c{n}-{i % 4}", "value": f"v{i}"},
                                                  {"op": "event", "value": f"client {n} call {i}"}])
                    with lock:
                        if reply.status_code != 200 or reply.json()["is_error"]:
                            failures.append(f"{reply.status_code} {reply.text}")
                            continue
                        acked[user, "event"] += 1
                        if "skip: set" not in reply.json()["content"]:  # refused by the profile limit
                            acked[user, "set"] += 1
        return work

    assert run_threads([writer(n) for n in range(clients)]) == []
    assert failures == []
    store = engine.store
    api_writers = {name for name in store.writer_pids() if name.startswith("kiraos-api-writer-")}
    assert len(api_writers) == PG_WRITER_THREADS  # every writer thread wrote, on its own connection
    actions = check_audit_chains(store, users)
    assert sum(acked[user, "event"] for user in users) == clients * calls
    for user in users:
        assert actions[user, "event_add"] == acked[user, "event"]  # each acknowledged write once
        assert actions[user, "profile_set"] == acked[user, "set"]
        assert len(store.get_profiles(user)) == 6 and len(store.get_events(user, limit=1000)) == 10
        summary = store.user_summary(user)
        assert (summary.profile_count, summary.event_count) == (6, 10)


def test_a_writer_thread_stuck_on_a_lock_holds_up_only_its_users_and_a_lost_connection_is_503_then_reconnected(
        served, pg_url):
    engine, server = served
    stuck, *others = users_of_lanes(1)
    event = [{"op": "event", "value": "到了"}]
    later = [{"op": "event", "value": "后来也到了"}]  # another text: the same one again would be a repeat
    with httpx.Client(base_url=server.url, headers=AUTH, timeout=WAIT_S) as api, \
            psycopg.connect(pg_url, autocommit=True) as watcher, psycopg.connect(pg_url) as holder:
        for user in [stuck] + others:  # every writer thread connected
            assert update(api, user, event).status_code == 200
        # Another instance's transaction holds `stuck`'s lock: its writer thread waits on the database.
        holder.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (stuck,))
        replies: list[httpx.Response] = []
        with httpx.Client(base_url=server.url, headers=AUTH, timeout=WAIT_S) as other:
            waiting = threading.Thread(target=lambda: replies.append(update(other, stuck, event)))
            waiting.start()
            [pid] = wait_for_waiters(watcher)
            lane = Workers(PG_WRITER_THREADS).lane_of(stuck)
            assert engine.store.writer_pids()[f"kiraos-api-writer-{lane}_0"] == pid
            # The users of the other writer threads are written meanwhile.
            for user in others:
                reply = update(api, user, later)
                assert reply.status_code == 200 and not reply.json()["is_error"], reply.text
            assert waiting.is_alive()
            # The stuck thread's connection is lost: that call gets 503, nothing of it written.
            watcher.execute("SELECT pg_terminate_backend(%s)", (pid,))
            waiting.join(WAIT_S)
        holder.rollback()
        assert replies[0].status_code == 503, replies[0].text
        assert replies[0].json()["error"]["code"] == "database_unavailable"
        assert len(engine.store.get_events(stuck)) == 1
        # The thread's next call connects again.
        reply = update(api, stuck, [{"op": "event", "value": "又到了"}])
        assert reply.status_code == 200 and not reply.json()["is_error"], reply.text
        assert [e.summary for e in engine.store.get_events(stuck)] == ["又到了", "到了"]
        assert engine.store.writer_pids()[f"kiraos-api-writer-{lane}_0"] != pid
    for user in others:
        assert len(engine.store.get_events(user)) == 2
