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
