"""Searching users in keys, values and events through the word index: exact (every word of the search
begins a word of the user's), following every writer (both backends)."""
from __future__ import annotations

import contextlib
import random
import sqlite3
import subprocess
import sys
import threading

import pytest
from core_helpers import PLUGIN_DDL, make_engine, plugin_db
from store_backends import SQLITE_ONLY

from kiraos_desktop.core.storage import user_search
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.storage.postgres.store import PgMemoryStore
from kiraos_desktop.core.storage.sqlite.store import SqliteStore
from kiraos_desktop.core.recall.text import terms


def ids(store, text: str) -> list[str]:
    found = store.search_user_ids(text)
    assert store.count_users(text, in_content=True) == len(found)
    assert [u.user_id for u in store.list_users(text, in_content=True, limit=-1)] == found
    return found


def oracle(store, text: str) -> list[str]:
    """The documented meaning, computed from the rows alone."""
    users = sorted(r[0] for r in store._rows(
        "SELECT user_id FROM user_summary WHERE profile_count > 0 OR event_count > 0"))
    words = user_search.search_words(text)
    found = []
    for user_id in users:
        if text.strip().lower() in user_id.lower():  # LIKE: ASCII case-insensitive
            found.append(user_id)
            continue
        texts = [t for row in store._rows("SELECT memory_key, memory_value FROM user_profiles WHERE user_id = ?",
                                          (user_id,)) for t in row]
        texts += [r[0] for r in store._rows("SELECT event_summary FROM event_logs WHERE user_id = ?", (user_id,))]
        if words:  # every word of the search begins a word of the user's (the 3.x list's rule too)
            held = {w for t in texts for w in terms(t)}
            if all(any(have.startswith(word) for have in held) for word in words):
                found.append(user_id)
        elif any(text.strip().lower() in t.lower() for t in texts):
            found.append(user_id)
    return found


def index_rows(store) -> list[tuple]:
    return sorted(store._rows("SELECT term, user_id, ev, pr FROM usersearch_terms"))


def rebuilt_index(store) -> list[tuple]:
    """What the index holds when it is right: computed from the rows."""
    from collections import Counter

    events: Counter = Counter()
    for user_id, text in store._rows("SELECT user_id, event_summary FROM event_logs"):
        for term in terms(text):
            events[(term, user_id)] += 1
    profiles = {(term, user_id) for user_id, key, value in
                store._rows("SELECT user_id, memory_key, memory_value FROM user_profiles")
                for term in {*terms(key), *terms(value)}}
    return sorted((term, user_id, events[(term, user_id)], int((term, user_id) in profiles))
                  for term, user_id in set(events) | profiles)


def another(store):
    """Another store on the same memory: SQLite, another process of ours on the file; PostgreSQL, another instance."""
    if isinstance(store, PgMemoryStore):
        return PgMemoryStore(store.url)
    return SqliteStore(store.path)


@pytest.fixture
def others(store):
    opened = []
    yield lambda: opened.append(another(store)) or opened[-1]
    for other in opened:
        other.close()


@pytest.fixture
def store(data_dir, engine_backend):
    engine = make_engine(data_dir)
    s = engine.store
    s.set_profile("amy", "喜欢的食物", "火锅", actor="gui")
    s.add_event("amy", "今天去面试了", actor="gui")
    s.set_profile("bob", "城市", "北京", actor="gui")
    s.add_event("bob", "Learning Python 和 Rust", actor="gui")
    s.set_profile("cat", "note", "100% sure_thing \\ back", actor="gui")
    s.add_event("dan", "熊猫很可爱", actor="gui")
    s.set_profile("eve", "宠物", "一只橘猫", actor="gui")
    s.add_event("eve", "The PYTHONista club", actor="gui")
    yield s
    engine.close()


@pytest.mark.parametrize("text, expected", [
    ("火锅", ["amy"]),  # a value
    ("喜欢", ["amy"]),  # a word of a key
    ("面试", ["amy"]),  # a two-character word of an event
    ("python", ["bob", "eve"]),  # English, any case, the start of a word (PYTHONista too)
    ("PyThOn", ["bob", "eve"]),
    ("rus", ["bob"]),  # issue 50: Rust, as the 3.x list finds it
    ("ust", []),  # not the inside of a word
    ("pythonistas", []),
    ("北京 python", ["bob"]),  # every word, each from another entry or event
    ("北京Python", ["bob"]),  # mixed text without a space
    ("北京 火锅", []),  # no user has both
    ("橘猫", ["eve"]),
    ("猫", ["dan", "eve"]),  # one character: looked for inside the text
    ("的", ["amy"]),  # a particle alone: looked for inside the text
    ("am", ["amy"]),  # the id contains it
    ("100%", ["cat"]),
    ("%", ["cat"]),  # LIKE's wildcards are literal
    ("%%", []),
    ("_", ["cat"]),
    ("\\", ["cat"]),
    ("sure_thing", ["cat"]),
    ("面试 nothing", []),
])
def test_search_is_exact_in_keys_values_and_events(store, text, expected, monkeypatch):
    assert ids(store, text) == expected
    assert oracle(store, text) == expected
    monkeypatch.setattr(user_search, "_RANGED_WORDS", 0)  # the general way (sets in Python) agrees
    assert ids(store, text) == expected
    monkeypatch.setattr(user_search, "_RANGED_WORDS", 16)
    monkeypatch.setattr(user_search, "_RANGED_TERMS", 0)  # a word beginning too many index words: the same
    assert ids(store, text) == expected


@pytest.mark.parametrize("text", ['" OR 1=1 --', "NEAR(a b)", "*", "'); DROP TABLE user_profiles; --",
                                  "a" * 10_000, "火锅 " * 3000, "\x00", "\U0001F600", "ＰＹＴＨＯＮ"])
def test_hostile_text_gives_an_answer_never_an_error(store, text):
    assert ids(store, text) == oracle(store, text)


def test_sort_orders_and_writes_through_the_store(store):
    store.add_event("fay", "也在学 Python", actor="gui")
    store.add_event("fay", "又一个事件", actor="gui")
    assert ids(store, "python") == ["bob", "eve", "fay"]  # eve's PYTHONista begins with it
    assert store.search_user_ids("python", "event_count", True) == ["fay", "eve", "bob"]
    bob = store.get_events("bob")[0]
    store.update_event("bob", bob.id, "学 Go", actor="gui")
    assert ids(store, "python") == ["eve", "fay"]
    store.set_profile("amy", "喜欢的食物", "寿司", actor="gui")
    assert ids(store, "火锅") == [] and ids(store, "寿司") == ["amy"]
    store.clear_user("fay", actor="gui")
    assert ids(store, "python") == ["eve"]
    assert store._rows("SELECT count(*) FROM usersearch_terms WHERE user_id = 'fay'")[0][0] == 0
    assert index_rows(store) == rebuilt_index(store)


def test_another_instance_writes_are_found_before_and_after_the_catch_up(store, others, monkeypatch):
    other = others()  # SQLite: another process of ours on the file; PostgreSQL: another instance
    # On SQLite a process of ours takes the queue before it commits, except an API's write group,
    # which leaves it to a later group (or the watcher): such a group is what leaves changes queued.
    writes = other.group() if isinstance(other, SqliteStore) else contextlib.nullcontext()
    with writes:
        other.set_profile("amy", "喜欢的食物", "烧烤", actor="gui")
        other.add_event("gus", "去冰岛旅行", actor="gui")
        other.clear_user("dan", actor="gui")
    assert store._rows("SELECT count(*) FROM usersearch_queue")[0][0] > 0
    with monkeypatch.context() as patch:  # straight from the queue: the queued users confirmed from their rows
        patch.setattr(store, "user_search_catch_up", lambda everything=False: 0)
        for text in ("火锅", "烧烤", "冰岛", "熊猫", "猫", "Python"):
            assert ids(store, text) == oracle(store, text), text
        found = store.search_users("冰岛")
        assert found[0] == 1 and [u.user_id for u in found[1]] == ["gus"]
    assert store.user_search_catch_up(everything=True) > 0
    assert store._rows("SELECT count(*) FROM usersearch_queue")[0][0] == 0
    for text in ("火锅", "烧烤", "冰岛", "熊猫", "猫"):
        assert ids(store, text) == oracle(store, text)
    assert index_rows(store) == rebuilt_index(store)


def test_instances_draining_at_once_keep_the_index_exact(store, others):
    others = [others(), others()]
    rng = random.Random(9)
    vocab = ["火锅", "面试", "python", "北京", "猫", "旅行", "Rust", "的", "吉他", "跑步"]
    users = [f"r{i}" for i in range(10)]
    stop = threading.Event()
    errors = []

    def drain(instance):
        try:
            while not stop.is_set():
                instance.user_search_catch_up()
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=drain, args=(s,)) for s in (store, *others)]
    for thread in threads:
        thread.start()
    try:
        for step in range(120):
            writer = others[step % 2]
            user = rng.choice(users)
            text = " ".join(rng.sample(vocab, rng.randint(1, 3)))
            action = rng.randrange(4)
            if action == 0:
                writer.add_event(user, text, actor="gui")
            elif action == 1:
                events = writer.get_events(user)
                if events:
                    writer.delete_event(user, events[-1].id, actor="gui")
            elif action == 2:
                events = writer.get_events(user)
                if events:
                    writer.update_event(user, events[0].id, text, actor="gui")
            else:
                writer.set_profile(user, rng.choice(["k1", "k2"]), text, actor="gui")
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert not errors
    for word in vocab + ["火锅 python", "北京 旅行"]:
        assert ids(store, word) == oracle(store, word), word
    assert store._rows("SELECT count(*) FROM usersearch_queue")[0][0] == 0
    assert index_rows(store) == rebuilt_index(store)


@SQLITE_ONLY
def test_another_process_writes_are_found_before_and_after_the_catch_up(store):
    other = sqlite3.connect(store.path)  # plain sqlite3: no function of ours, as the plugin
    other.execute("INSERT OR REPLACE INTO user_profiles (user_id, memory_key, memory_value) VALUES ('amy', '喜欢的食物', '烧烤')")
    other.execute("INSERT INTO event_logs (user_id, event_summary) VALUES ('gus', '去冰岛旅行')")
    other.execute("DELETE FROM event_logs WHERE user_id = 'dan'")
    other.commit()
    # Straight from the queue, the index not caught up: the queued users are confirmed from their rows.
    conn = store.reader.connection()
    state = store.backend._search_state
    assert user_search.search_user_ids(conn, "火锅", state) == []
    assert user_search.search_user_ids(conn, "烧烤", state) == ["amy"]
    assert user_search.search_user_ids(conn, "冰岛", state) == ["gus"]
    assert user_search.search_user_ids(conn, "熊猫", state) == []
    assert store.user_search_catch_up(everything=True) > 0
    assert store._rows("SELECT count(*) FROM usersearch_queue")[0][0] == 0
    for text in ("火锅", "烧烤", "冰岛", "熊猫", "猫"):
        assert ids(store, text) == oracle(store, text)
    other.close()


@SQLITE_ONLY
def test_a_separate_process_inserting_never_fails_and_is_found(store):
    code = ("import sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1])\n"
            "for i in range(20):\n"
            "    c.execute(\"INSERT INTO event_logs (user_id, event_summary) VALUES (?, '参加了马拉松')\", (f'p{i}',))\n"
            "    c.execute(\"INSERT OR REPLACE INTO user_profiles (user_id, memory_key, memory_value) VALUES (?, 'city', 'Oslo')\", (f'p{i}',))\n"
            "    c.commit()\n")
    result = subprocess.run([sys.executable, "-c", code, str(store.path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert ids(store, "马拉松 oslo") == [f"p{i}" for i in sorted(range(20), key=str)]


@SQLITE_ONLY
def test_random_writes_by_both_sides_keep_the_index_exact(store):
    rng = random.Random(5)
    vocab = ["火锅", "面试", "python", "北京", "猫", "旅行", "Rust", "的", "吉他", "跑步"]
    other = sqlite3.connect(store.path)
    users = [f"r{i}" for i in range(12)]
    for step in range(300):
        user = rng.choice(users)
        text = " ".join(rng.sample(vocab, rng.randint(1, 3)))
        action = rng.randrange(6)
        if action == 0:
            store.add_event(user, text, actor="gui")
        elif action == 1:
            other.execute("INSERT INTO event_logs (user_id, event_summary) VALUES (?, ?)", (user, text))
        elif action == 2:
            other.execute("DELETE FROM event_logs WHERE id = (SELECT max(id) FROM event_logs WHERE user_id = ?)", (user,))
        elif action == 3:
            other.execute("UPDATE event_logs SET event_summary = ? WHERE id = (SELECT min(id) FROM event_logs "
                          "WHERE user_id = ?)", (text, user))
        elif action == 4:
            other.execute("INSERT OR REPLACE INTO user_profiles (user_id, memory_key, memory_value) VALUES (?, ?, ?)",
                          (user, rng.choice(["k1", "k2"]), text))
        else:
            store.set_profile(user, rng.choice(["k2", "k3"]), text, actor="gui")
        other.commit()
        if step % 7 == 0:
            store.user_search_catch_up()
        if step % 25 == 0:
            for word in vocab + ["火锅 python", "北京 旅行"]:
                assert ids(store, word) == oracle(store, word), (step, word)
    other.close()


def test_a_plugin_database_is_indexed_on_open_resumably_and_searched_exactly_meanwhile(tmp_path):
    kira = tmp_path / "kira"
    conn = plugin_db(kira / "memory" / "kiraos.db", PLUGIN_DDL)
    conn.executemany("INSERT INTO user_profiles (user_id, memory_key, memory_value) VALUES (?, ?, ?)",
                     [(f"qq_{i:03d}", "城市", "北京" if i % 3 == 0 else "上海") for i in range(60)])
    conn.executemany("INSERT INTO event_logs (user_id, event_summary) VALUES (?, ?)",
                     [(f"qq_{i % 60:03d}", "通过了面试" if i % 7 == 0 else "日常记录") for i in range(300)])
    conn.commit()
    conn.close()
    engine = Engine.open(kira_data=kira)
    try:
        store = engine.store
        assert "user search index to build" in store.migrations
        assert not store.user_search_build_complete
        expected = oracle(store, "北京 面试")
        assert expected and ids(store, "北京 面试") == expected  # nothing indexed yet: confirmed from the rows
        store.user_search_build_step(users=25, events=40)  # part of the profiles, then stop
        assert ids(store, "北京 面试") == expected
        other = sqlite3.connect(store.path)
        other.execute("DELETE FROM event_logs WHERE id = (SELECT min(id) FROM event_logs WHERE event_summary = '通过了面试')")
        other.commit()
        other.close()
        expected = oracle(store, "北京 面试")
        assert ids(store, "北京 面试") == expected
        while not store.backend._search_state.profiles_done:
            store.user_search_build_step(users=25, events=40)
        store.user_search_build_step(users=25, events=40)  # some of the events
        assert not store.user_search_build_complete
        assert ids(store, "北京 面试") == expected
    finally:
        engine.close()
    engine = Engine.open(kira_data=kira)  # resumes where it stopped
    try:
        store = engine.store
        assert not store.user_search_build_complete
        seen = []
        while not store.user_search_build_complete:
            seen.append(store.user_search_build_step(users=25, events=40))
        assert seen[-1][0] == seen[-1][1]
        for text in ("北京 面试", "面试", "上海", "城市", "日常", "记录"):
            assert ids(store, text) == oracle(store, text)
        events = store._rows("SELECT sum(ev) FROM usersearch_terms WHERE term = '面试'")[0][0]
        assert events == store._rows("SELECT count(*) FROM event_logs WHERE event_summary = '通过了面试'")[0][0]
    finally:
        engine.close()


@SQLITE_ONLY
def test_pages_of_a_search_join_up_to_the_whole_list(store):
    for n in range(23):
        store.add_event(f"p{n:02d}", "Python 入门", actor="gui")
    store.add_event("pythonista", "hello", actor="gui")  # the id matches, the words do not
    other = sqlite3.connect(store.path)  # queued, not yet indexed: confirmed from the rows
    other.execute("INSERT INTO event_logs (user_id, event_summary) VALUES ('p99', 'more python')")
    other.execute("DELETE FROM event_logs WHERE user_id = 'p05'")
    other.commit()
    other.close()
    conn, state = store.reader.connection(), store.backend._search_state
    expected = oracle(store, "python")
    assert "pythonista" in expected and "p99" in expected and "p05" not in expected
    for descending in (False, True):
        found = user_search.search(conn, "python", state, "user_id", descending, page=7)
        assert found.ids is None and found.total == len(expected)  # read as a range of the index
        pages = list(found.first)
        while len(pages) < found.total:
            more = user_search.page_after(conn, "python", state, descending, pages[-1], 7)
            assert more
            pages += more
        assert pages == (expected[::-1] if descending else expected)
        assert user_search.search_user_ids(conn, "python", state, "user_id", descending) == pages
    found = user_search.search(conn, "python", state, "event_count", True, page=7)
    assert found.ids is not None and sorted(found.ids) == expected and found.first == found.ids[:7]


def test_pages_of_a_search_through_the_store_join_up(store, others):
    for n in range(23):
        store.add_event(f"p{n:02d}", "Python 入门", actor="gui")
    store.add_event("pythonista", "hello", actor="gui")
    store.user_search_catch_up(everything=True)
    other = others()
    other.add_event("p99", "more python", actor="gui")  # queued, not yet indexed
    other.clear_user("p05", actor="gui")
    expected = oracle(store, "python")
    assert "pythonista" in expected and "p99" in expected and "p05" not in expected
    store.user_search_catch_up = lambda everything=False: 0
    for descending in (False, True):
        total, first, every = store.search_users("python", "user_id", descending, page=7)
        assert total == len(expected) and every is None  # read as a range of the index
        pages = [u.user_id for u in first]
        while len(pages) < total:
            more = store.search_users_after("python", descending, pages[-1], page=7)
            assert more
            pages += [u.user_id for u in more]
        assert pages == (expected[::-1] if descending else expected)


def test_a_database_without_the_index_is_built_resumably_and_searched_exactly_meanwhile(backend, new_store):
    store = new_store()
    for i in range(60):
        store.set_profile(f"qq_{i:03d}", "城市", "北京" if i % 3 == 0 else "上海", actor="gui")
    for i in range(300):
        store.add_event(f"qq_{i % 60:03d}", "通过了面试" if i % 7 == 0 else "日常记录", actor="gui")
    with store.batch("gui") as batch:  # an index of another version: rebuilt from the rows
        batch.execute("UPDATE kiraos_desktop_meta SET value = 'old' WHERE key = 'usersearch_version'")
    store.close()
    store = new_store()
    assert "user search index to build" in store.migrations
    assert not store.user_search_build_complete
    assert store._rows("SELECT count(*) FROM usersearch_terms")[0][0] == 0
    expected = oracle(store, "北京 面试")
    assert expected and ids(store, "北京 面试") == expected
    store.user_search_build_step(users=25, events=40)
    other = new_store()
    interview = next(e for e in other.get_events("qq_000") if e.summary == "通过了面试")
    other.delete_event("qq_000", interview.id, actor="gui")
    expected = oracle(store, "北京 面试")
    assert ids(store, "北京 面试") == expected
    seen = []
    while not store.user_search_build_complete:
        seen.append(store.user_search_build_step(users=25, events=40))
        assert ids(store, "北京 面试") == expected
    assert len(seen) > 3 and seen[-1][0] == seen[-1][1]
    for text in ("北京 面试", "面试", "上海", "城市", "日常", "记录"):
        assert ids(store, text) == oracle(store, text)
    store.user_search_catch_up(everything=True)
    assert index_rows(store) == rebuilt_index(store)


@SQLITE_ONLY
def test_a_value_changed_by_another_process_queues_its_user_once(store):
    plugin = sqlite3.connect(store.path)
    plugin.execute("UPDATE user_profiles SET memory_value = '烧烤' WHERE user_id = 'amy'")
    plugin.execute("UPDATE user_profiles SET user_id = 'ann' WHERE user_id = 'bob'")  # a move queues both users
    plugin.commit()
    queued = [r[0] for r in plugin.execute("SELECT user_id FROM usersearch_queue ORDER BY seq")]
    plugin.close()
    assert queued == ["amy", "bob", "ann"]
    assert ids(store, "烧烤") == ["amy"]
