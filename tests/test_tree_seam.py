"""Issue 52: the 3.x tree written through one seam per process: the engine's store holds the one editor
and history (`edits`) that its memory tools and its window share, every change is made under one
lock and published once on the store's change channel (the watcher does not report it again)."""
from __future__ import annotations

import threading
import time

import pytest

from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.storage.tree.edits import TreeEdits
from kiraos_desktop.core.storage.tree.layout import EntityRef
from tree_fixtures import indexed_tree

XIAOMING = EntityRef("user", "qq:10001")
GUITAR = "learning_guitar"


@pytest.fixture
def kira(tmp_path):
    return indexed_tree(tmp_path / "kira")


@pytest.fixture
def engine(kira):
    engine = Engine.open(kira_data=kira)
    yield engine
    engine.close()


def test_a_tool_write_is_published_once_and_the_watcher_does_not_report_it_again(engine):
    events = []
    engine.store.changes.subscribe(events.append)
    reply = engine.tools.call("memory_update", "qq:10001", {"operations": [{"op": "event", "value": "小明养了猫"}]})
    assert not reply.is_error, reply.content
    assert [(e.user_id, e.action, e.actor) for e in events] == [("qq:10001", "add", "tool")]
    assert engine.store.poll_external_change() is False and len(events) == 1


@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_the_window_writes_through_the_engines_one_editor_and_history(qtbot, engine):
    from kiraos_desktop.ui.entities.window import open_tree_window

    window = open_tree_window(engine)
    try:
        assert window.edit_actions.edits is engine.store.edits
        events = []
        engine.store.changes.subscribe(events.append)
        window.edit_actions.archive(XIAOMING, engine.store.tree.entity(XIAOMING).memories["facts"][0])
        assert [(e.user_id, e.action, e.actor) for e in events] == [("qq:10001", "archive", "gui")]
        assert engine.store.edits.journal.entries()[-1].change.action == "archive"
    finally:
        window.close()


def test_two_threads_of_one_process_never_interleave_their_changes(kira):
    edits = TreeEdits(str(kira / "memory"), kira.parent / "journal.jsonl")
    inside, overlaps = [], []
    real_apply = edits.editor.apply

    def slow_apply(change):
        if inside:
            overlaps.append(change.memory_id)
        inside.append(change.memory_id)
        time.sleep(0.02)
        try:
            return real_apply(change)
        finally:
            inside.pop()

    edits.editor.apply = slow_apply

    def writer(n):
        for k in range(5):
            edits.keep(lambda: edits.editor.add(XIAOMING, f"线程{n}的第{k}件事"), "tool")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert overlaps == [] and [e.id for e in edits.journal.entries()] == list(range(1, 16))


CLI_WRITER = """
import sys
from kiraos_desktop.cli import main
for n in range(int(sys.argv[2])):
    if main(["memory", "add", "user:qq:10001", f"{sys.argv[3]} 第{n}件事", "--kira-data", sys.argv[1]]) != 0:
        sys.exit(1)
"""


@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_the_api_the_window_and_two_command_lines_at_once_keep_every_change_once(qtbot, kira, engine):
    """Issue 52, done means: one tree written from the API, the window and two CLI processes at once;
    every change kept once with its own number, and each memory file and its index row agree."""
    import sqlite3
    import subprocess
    import sys
    import tomllib

    import httpx

    from api_helpers import AUTH, TOKEN
    from kiraos_desktop.api.server import ApiServer
    from kiraos_desktop.ui.entities.window import open_tree_window
    from tree_fixtures import entity_dir

    window = open_tree_window(engine)
    server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
    server.start()
    children = [subprocess.Popen([sys.executable, "-c", CLI_WRITER, str(kira), "12", f"命令行{n}"])
                for n in range(2)]
    replies = []

    def host(name):
        with httpx.Client(base_url=server.url, headers=AUTH, timeout=60) as api:
            for n in range(12):
                replies.append(api.post("/v1/tools/memory_update", json={"user_id": "qq:10001", "arguments": {
                    "operations": [{"op": "event", "value": f"{name} 第{n}件事"}]}}).status_code)

    hosts = [threading.Thread(target=host, args=(f"接口{n}",)) for n in range(2)]
    try:
        for thread in hosts:
            thread.start()
        window_changes = 0
        for n in range(8):  # the window's archive and its undo, on the GUI thread, meanwhile
            memories = engine.store.tree.entity(XIAOMING).memories["facts"]
            if window.edit_actions.archive(XIAOMING, memories[0]) is not None:
                window_changes += 1
            qtbot.wait(20)
        for thread in hosts:
            thread.join(120)
        codes = [child.wait(120) for child in children]
    finally:
        server.stop()
        window.close()
    assert replies == [200] * 24 and codes == [0, 0] and window_changes == 8
    entries = engine.store.edits.journal.entries()
    assert [e.id for e in entries] == list(range(1, len(entries) + 1))
    assert len(entries) == 24 + 24 + 8
    memory = kira / "memory"
    conn = sqlite3.connect(memory / "memory_index.db")
    rows = dict(conn.execute("SELECT id, raw_text FROM memories WHERE entity_id = 'qq:10001' AND folder = 'facts'"))
    conn.close()

    def texts(folder):
        found = {}
        for path in folder.glob("*.toml"):
            try:
                found[path.stem] = tomllib.loads(path.read_text(encoding="utf-8"))["text"]
            except (UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue
        return found

    files = texts(entity_dir(memory, "user", "qq:10001") / "facts")
    archived = texts(memory / "archive")
    written = sorted(t for t in [*files.values(), *archived.values()] if "第" in t)
    assert written == sorted(f"{who} 第{n}件事" for who in ("命令行0", "命令行1", "接口0", "接口1") for n in range(12))
    assert all(rows.get(k) == v for k, v in files.items() if "第" in v)  # each file and its row agree
    assert not any(key not in files for key, text in rows.items() if "第" in text)  # no row without its file
