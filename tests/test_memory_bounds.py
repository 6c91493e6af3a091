"""Every cache is bounded in bytes and keyed on nothing a client chose to vary (max_chars, TTL texts, ...)."""
from __future__ import annotations

import asyncio
import http.client
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from api_helpers import TOKEN
from core_helpers import make_engine
from kiraos_desktop.api.fastpath.context import ContextFastPath
from kiraos_desktop.core.context import builder as context_module
from kiraos_desktop.core.context.builder import ContextBuilder, render_user_block
from kiraos_desktop.core.recall.text import _CACHED_TEXTS, terms
from kiraos_desktop.core.timeutil import _parse_ttl_cached, parse_ttl

REPO = Path(__file__).resolve().parent.parent


def seed_user(engine, uid: str, profiles: int = 12, value_chars: int = 30) -> None:
    ops = [{"op": "set", "key": f"k{i}", "value": chr(0x4e00 + i) * value_chars, "category": "other"}
           for i in range(profiles)]
    ops += [{"op": "event", "summary": f"事件{i}"} for i in range(5)]
    engine.tools.call("memory_update", uid, {"operations": ops}, actor="tool")


def test_varied_max_chars_cache_nothing_more(engine):
    seed_user(engine, "u1")
    engine.context.user_block("u1")
    held = engine.context.cache_bytes()
    assert held > 0
    for budget in range(1, 2000, 7):
        engine.context.user_block("u1", max_chars=budget)
    assert engine.context.cache_bytes() == held


def test_other_budgets_equal_a_fresh_render(engine):
    seed_user(engine, "u1", profiles=8)
    profiles, events = engine.store.context_rows("u1", engine.settings.max_events_per_user, "9999")
    engine.context.user_block("u1")  # the configured budget is cached; others are made from its items
    for budget in [0, *range(1, 700)]:
        got = engine.context.user_block("u1", max_chars=budget)
        want = render_user_block("u1", profiles, events, budget)
        assert (got.text, len(got.kept), len(got.dropped)) == (want.text, len(want.kept), len(want.dropped)), budget
        assert engine.context.peek_cached("u1", max_chars=budget) is None or budget == engine.settings.max_context_chars


def test_the_cache_stays_within_its_bytes(engine):
    for n in range(40):
        seed_user(engine, f"u{n}")
    builder = ContextBuilder(engine.store, lambda: engine.settings, cache_bytes=20_000)
    for n in range(40):
        builder.user_block(f"u{n}")
        assert 0 < builder.cache_bytes() <= 20_000
    assert builder.peek_cached("u39") is not None  # the newest stay, the oldest went
    assert builder.peek_cached("u0") is None
    engine.store.set_profile("u39", "x", "y", actor="gui")
    assert builder.peek_cached("u39") is None
    assert builder.cache_bytes() <= 20_000


def test_the_size_estimate_is_close_to_the_memory_held(engine):
    import tracemalloc

    for n in range(200):
        seed_user(engine, f"u{n}", profiles=10)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(200):
            engine.context.user_block(f"u{n}")
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert 0.7 * held <= engine.context.cache_bytes() <= 1.5 * held


def test_the_size_estimate_of_windows_and_blocks_for_messages_is_close_to_the_memory_held(engine):
    import tracemalloc

    for n in range(100):
        with engine.store.batch("gui") as batch:
            for i in range(60):
                batch.add_event(f"u{n}", f"第{n}位用户的第{i}件事：去了海边旅行 Went hiking #{i}",
                                created_at=f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00")
        engine.context.user_block(f"u{n}")
    held_before = engine.context.cache_bytes()
    tracemalloc.start()
    try:
        for n in range(2 * _CACHED_TEXTS):  # the words of recent texts are cached (a bounded cache): fill it first
            terms(f"第{n}位用户的第{n}件事：去了山里旅行 Went skiing #{n}")
        before = tracemalloc.get_traced_memory()[0]
        for n in range(100):
            for query in ("旅行怎么样", "hiking", "第3件事"):
                engine.context.fast_block(f"u{n}", query=query)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert 0.7 * held <= engine.context.cache_bytes() - held_before <= 1.5 * held


def test_change_counters_of_many_users_do_not_pile_up(engine, monkeypatch):
    monkeypatch.setattr(context_module, "_MAX_COUNTED_USERS", 50)
    for n in range(300):
        engine.store.set_profile(f"w{n}", "k", "v", actor="gui")
    assert len(engine.context._changes) <= 50


def test_a_read_racing_a_change_is_not_cached_after_the_counters_start_over(engine, monkeypatch):
    monkeypatch.setattr(context_module, "_MAX_COUNTED_USERS", 3)
    engine.store.set_profile("u", "k", "old", actor="gui")
    real_rows = engine.store.context_rows

    def rows_then_changes(user_id, events, now):
        result = real_rows(user_id, events, now)
        engine.store.set_profile("u", "k", "new", actor="gui")  # after the read, before it is cached
        for n in range(5):
            engine.store.set_profile(f"other{n}", "k", "v", actor="gui")
        return result

    monkeypatch.setattr(engine.store, "context_rows", rows_then_changes)
    assert "old" in engine.context.user_block("u").text
    monkeypatch.setattr(engine.store, "context_rows", real_rows)
    assert "new" in engine.context.user_block("u").text


def _ask(fast: ContextFastPath, query: bytes) -> bytes:
    sent = []

    async def send(message):
        sent.append(message)

    async def receive():
        raise AssertionError("a GET has no body")

    status = asyncio.run(fast({"method": "GET", "query_string": query, "headers": []}, receive, send))
    assert status == 200
    return sent[1]["body"]


async def _run_here(fn, *args, **kwargs):
    return fn(*args, **kwargs)


def test_the_fast_paths_replies_stay_within_their_bytes(engine):
    for n in range(30):
        seed_user(engine, f"u{n}")
    fast = ContextFastPath(engine.context, _run_here, max_bytes=8_000)
    for n in range(30):
        for _ in range(2):  # the second request keeps the reply
            _ask(fast, f"user_id=u{n}".encode())
        assert 0 < fast.cache_bytes() <= 8_000
    held = fast.cache_bytes()
    for budget in range(1, 3000, 11):  # varied budgets and pairs of users keep nothing
        _ask(fast, f"user_id=u1&max_chars={budget}".encode())
        _ask(fast, f"user_id=u1&user_id=u{budget % 29 + 2}".encode())  # u1 twice is u1 once: not a pair
    assert fast.cache_bytes() == held


def test_ttl_texts_are_cached_only_when_short():
    _parse_ttl_cached.cache_clear()
    parse_ttl("1d")
    parse_ttl("1m" * 1000)
    assert _parse_ttl_cached.cache_info().currsize == 1


def _rss_mib(pid: int) -> float:
    return int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text()).group(1)) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc")
def test_server_memory_stays_flat_over_varied_max_chars(data_dir):
    # A benchmark-style check with a generous bound: each of 800 budgets cached its own copy of
    # this user's block (some 210 KB of text) before, +450 MiB in all.
    engine = make_engine(data_dir)
    seed_user(engine, "u1", profiles=50, value_chars=4000)
    engine.close()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "kiraos_desktop", "serve", "--data-dir", str(data_dir),
                             "--port", "0", "--token", TOKEN], stderr=subprocess.PIPE, text=True, env=env,
                            cwd=str(REPO))
    try:
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)", proc.stderr.readline()).group(1))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

        def get(query: str) -> None:
            conn.request("GET", "/v1/context?" + query, headers={"Authorization": f"Bearer {TOKEN}"})
            reply = conn.getresponse()
            reply.read()
            assert reply.status == 200

        for n in range(200):  # warm up: the allocator's pools for renders of every size, the code paths
            get(f"user_id=u1&max_chars={1000 + n * 1000}")
        before = _rss_mib(proc.pid)
        for n in range(800):
            get(f"user_id=u1&max_chars={2000 + n * 200}")
        assert _rss_mib(proc.pid) - before < 64
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        proc.stderr.close()


def test_cached_blocks_leave_the_garbage_collectors_watch(engine):
    """Full collections stall every request in flight: the context cache must not add to their work."""
    import gc

    for n in range(3):
        seed_user(engine, f"u{n}")
        engine.context.user_block(f"u{n}")
        engine.context.user_block(f"u{n}", query="事件")
        engine.context.user_block(f"u{n}", query="事件")  # asked again: cached
    for _ in range(6):  # a collection untracks a tuple only after what it holds: about a level each
        gc.collect()
    held = list(engine.context._cache.values())
    assert len(held) == 3 and all(len(blocks) == 3 for blocks in held)  # plain, for the message, the window
    assert not any(gc.is_tracked(blocks) for blocks in held)
    assert not any(gc.is_tracked(block) for blocks in held for block in blocks.values())


def test_blocks_for_a_message_for_many_users_are_made_in_one_trip_off_the_loop(engine):
    for n in range(40):
        seed_user(engine, f"u{n}")
    trips = []

    async def read(fn, *args, **kwargs):
        trips.append(fn)
        return fn(*args, **kwargs)

    fast = ContextFastPath(engine.context, read)
    users = "&".join(f"user_id=u{n}" for n in range(40))
    body = _ask(fast, f"{users}&query=%E5%B0%8F%E6%98%8E".encode())  # 小明: none of them cached yet
    assert len(trips) == 1
    assert body == _ask(ContextFastPath(engine.context, _run_here), f"{users}&query=%E5%B0%8F%E6%98%8E".encode())
    _ask(fast, f"{users}&query=%E5%B0%8F%E6%98%8E".encode())  # now every block is cached: no trip
    assert len(trips) == 1


def test_a_new_message_is_answered_on_the_loop_its_small_window_read_once(engine, monkeypatch):
    seed_user(engine, "u1")
    trips, window_reads = [], []
    real_rows = engine.store.newest_event_rows

    def newest_event_rows(user_id, limit):
        window_reads.append(user_id)
        return real_rows(user_id, limit)

    monkeypatch.setattr(engine.store, "newest_event_rows", newest_event_rows)

    async def read(fn, *args, **kwargs):
        trips.append(fn)
        return fn(*args, **kwargs)

    fast = ContextFastPath(engine.context, read)
    _ask(fast, "user_id=u1&query=%E5%B0%8F%E6%98%8E".encode())  # 小明: the plain block and window read here
    assert window_reads == ["u1"]
    for message in ("%E5%90%89%E4%BB%96", "guitar", "%E5%B0%8F%E6%98%8E%E5%AD%A6"):  # 吉他, guitar, 小明学
        query = f"user_id=u1&query={message}".encode()
        assert _ask(fast, query) == _ask(ContextFastPath(engine.context, _run_here), query)
    assert window_reads == ["u1"]  # cached
    engine.store.add_event("u1", "new", actor="test")  # a write: the cached window is stale, read again
    _ask(fast, "user_id=u1&query=new".encode())
    assert window_reads == ["u1", "u1"] and trips == []  # never handed to a thread: the window is small
