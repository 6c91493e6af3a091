"""Issue 51: a kill -9 anywhere in an edit of a 3.x tree. Each edit is recorded in a write-ahead intent
before its first rename; the next opening of the tree (command line, window, server) finishes a
change that stands whole (only its history was missing) and rolls back any other, so that every
file agrees with its index row and the history shows what stands on disk. The process is really
killed (SIGKILL, in a child) at each point between the steps of an edit."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tomllib

import pytest

from cli_helpers import run
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.paths import resolve_paths
from kiraos_desktop.core.storage.tree.change import TreeChange
from kiraos_desktop.core.storage.tree.editor import TreeEditor
from kiraos_desktop.core.storage.tree.journal import TreeJournal, journal_path
from kiraos_desktop.core.storage.tree.layout import EntityRef
from kiraos_desktop.core.storage.tree.writes import fallback_id
from test_tree_edits import GUITAR, files_of, index_dump
from tree_fixtures import entity_dir, indexed_tree

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL and flock are POSIX")

XIAOMING = EntityRef("user", "qq:10001")
#: Where the child kills itself: the call it dies in (module, object, attribute).
KILL_POINTS = {
    "after the renames": ("kiraos_desktop.core.storage.tree.index_rows", "TreeIndex", "transaction"),
    "after the index": ("kiraos_desktop.core.storage.tree.editor", None, "remove_file"),
    "after every file": ("kiraos_desktop.core.storage.tree.journal", None, "_append_line"),
}
#: The child: patch one call to SIGKILL the process, then run the command line.
CHILD = """
import os, signal, sys, importlib
module_name, owner, name = sys.argv[1:4]
module = importlib.import_module(module_name)
target = getattr(module, owner) if owner != "-" else module
def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
setattr(target, name, die)
from kiraos_desktop.cli import main
sys.exit(main(sys.argv[4:]))
"""
COMMANDS = {
    "add": ["add", "user:qq:10001", "小明养了一只猫"],
    "edit": ["edit", "user:qq:10001", GUITAR, "小明学吉他一年了"],
    "archive": ["archive", "user:qq:10001", GUITAR],
    "restore": ["restore", "user:qq:10001", GUITAR],
}
CASES = [("add", "after the renames"), ("add", "after every file"),
         ("edit", "after the renames"), ("edit", "after every file"),
         ("archive", "after the renames"), ("archive", "after the index"), ("archive", "after every file"),
         ("restore", "after the renames"), ("restore", "after the index"), ("restore", "after every file")]


@pytest.fixture
def kira(tmp_path):
    return indexed_tree(tmp_path / "kira")


def killed_in(kira, point, argv):
    module, owner, name = KILL_POINTS[point]
    result = subprocess.run([sys.executable, "-c", CHILD, module, owner or "-", name, "memory", *argv,
                             "--kira-data", str(kira)], capture_output=True, text=True, timeout=120)
    assert result.returncode == -signal.SIGKILL, result.stderr


def journal_of(kira):
    return TreeJournal(journal_path(resolve_paths(kira_data=kira).data_dir, str(kira / "memory")))


def row_agrees_with_file(memory, memory_id):
    """The memory's file in qq:10001's facts and its index row say the same text, or neither is there."""
    conn = sqlite3.connect(memory / "memory_index.db")
    row = conn.execute("SELECT raw_text FROM memories WHERE entity_id = 'qq:10001' AND folder = 'facts' AND id = ?",
                       (memory_id,)).fetchone()
    conn.close()
    path = entity_dir(memory, "user", "qq:10001") / "facts" / f"{memory_id}.toml"
    text = tomllib.loads(path.read_text(encoding="utf-8"))["text"] if path.exists() else None
    return (row[0] if row else None) == text


@pytest.mark.parametrize("command,point", CASES)
def test_a_kill_anywhere_in_an_edit_is_settled_at_the_next_opening(kira, capsys, command, point):
    memory = kira / "memory"
    if command == "restore":
        assert run(capsys, "memory", "archive", "user:qq:10001", GUITAR, "--kira-data", str(kira))[0] == 0
    files, index, history = files_of(kira), index_dump(memory), len(journal_of(kira).entries())
    killed_in(kira, point, COMMANDS[command])
    assert list(journal_of(kira).intents.glob("*.json"))  # the intent outlived its process
    code, out, err = run(capsys, "memory", "history", "--json", "--kira-data", str(kira))
    assert code == 0
    entries = json.loads(out)
    assert not list(journal_of(kira).intents.iterdir())
    assert row_agrees_with_file(memory, fallback_id(COMMANDS["add"][-1]) if command == "add" else GUITAR)
    if point == "after every file":  # the change stood whole: finished, its history written once
        assert "finished" in err and len(entries) == history + 1 and entries[0]["action"] == command
        assert files_of(kira) != files
        assert run(capsys, "memory", "revert", str(entries[0]["change"]), "--kira-data", str(kira))[0] == 0
    else:  # rolled back: nothing of it stands, and the history does not show it
        assert "rolled back" in err and len(entries) == history
    assert files_of(kira) == files and index_dump(memory) == index


def test_an_intent_a_live_process_holds_is_left_alone(kira):
    """The window opening the tree while the server is in an edit does not roll the edit back."""
    memory = kira / "memory"
    journal = journal_of(kira)
    editor = TreeEditor(str(memory))
    seen = {}

    def write():
        change = editor.edit(XIAOMING, GUITAR, text="小明学吉他一年了")
        seen["intents"] = list(journal.intents.glob("*.json"))
        seen["settled"] = journal_of(kira).recover(TreeEditor(str(memory)))  # another opening meanwhile
        return change

    journal.keep(editor, write, "cli")
    assert len(seen["intents"]) == 1 and seen["settled"] == []
    assert row_agrees_with_file(memory, GUITAR) and journal.entries()[-1].change.action == "edit"
    assert not list(journal.intents.iterdir())


def test_a_half_written_intent_is_dropped_and_the_server_settles_on_opening(kira, capsys):
    memory = kira / "memory"
    files, index = files_of(kira), index_dump(memory)
    killed_in(kira, "after the renames", COMMANDS["edit"])
    intents = journal_of(kira).intents
    (intents / "999999-1.json").write_text('{"token": "cut off', encoding="utf-8")  # killed while writing it
    engine = Engine.open(kira_data=kira)
    engine.close()
    assert not list(intents.iterdir())
    assert files_of(kira) == files and index_dump(memory) == index


def test_serve_stops_within_5_s_of_sigterm_while_the_plugin_holds_the_index(kira, tmp_path):
    """Issue 51: with memory_index.db locked by the plugin, writes wait up to its 10 s; SIGTERM then had
    to wait for them (and, on a FIFO, never ended). The requests under way are answered 503, the
    process ends within 5 s, and what it left is settled at the next opening."""
    import re
    import threading
    import time

    import httpx

    memory = kira / "memory"
    files, index = files_of(kira), index_dump(memory)
    proc = subprocess.Popen([sys.executable, "-m", "kiraos_desktop", "serve", "--kira-data", str(kira),
                             "--port", "0", "--no-auth"], stderr=subprocess.PIPE, text=True)
    lock = sqlite3.connect(memory / "memory_index.db", isolation_level=None)
    replies = []
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+", proc.stderr.readline()).group(0)
        lock.execute("BEGIN EXCLUSIVE")  # the plugin rebuilding its index

        def update(text):
            replies.append(httpx.post(url + "/v1/tools/memory_update", timeout=60, json={
                "user_id": "qq:10001", "arguments": {"operations": [{"op": "event", "value": text}]}}))

        callers = [threading.Thread(target=update, args=(f"第{n}件事",)) for n in range(3)]
        for caller in callers:
            caller.start()
        time.sleep(1.0)  # the writes are under way, waiting on the lock
        asked = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
        stopped_after = time.monotonic() - asked
        for caller in callers:
            caller.join(30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
        lock.execute("ROLLBACK")
        lock.close()
    assert code == 0 and stopped_after < 5, stopped_after
    assert [r.status_code for r in replies] == [503] * 3
    assert {r.json()["error"]["code"] for r in replies} == {"stopping"}
    journal_of(kira).recover(TreeEditor(str(memory)))
    assert files_of(kira) == files and index_dump(memory) == index and not journal_of(kira).entries()


def test_the_window_settles_an_edit_left_half_done_when_it_opens_the_tree(qtbot, kira):
    from kiraos_desktop.core.storage.tree import open_tree
    from kiraos_desktop.ui.entities.window import TreeWindow

    memory = kira / "memory"
    files, index = files_of(kira), index_dump(memory)
    killed_in(kira, "after the renames", COMMANDS["archive"])
    assert files_of(kira) != files
    window = TreeWindow(open_tree(kira), str(kira))
    qtbot.addWidget(window)
    assert not list(journal_of(kira).intents.iterdir())
    assert files_of(kira) == files and index_dump(memory) == index


CONCURRENT_APPENDER = """
import sys
from kiraos_desktop.core.storage.tree.change import TreeChange
from kiraos_desktop.core.storage.tree.journal import TreeJournal
journal = TreeJournal(sys.argv[1])
for n in range(int(sys.argv[2])):
    journal.append(TreeChange("edit", "user:qq:1", f"{sys.argv[3]}-{n}"), sys.argv[3])
"""


def test_two_processes_and_two_threads_appending_never_share_a_number(tmp_path):
    """Issue 52: the window, the server and the command line append to one tree's history at once;
    each took the last number read and added one, so two could write the same number."""
    import threading

    path = tmp_path / "journal.jsonl"
    children = [subprocess.Popen([sys.executable, "-c", CONCURRENT_APPENDER, str(path), "150", f"p{n}"])
                for n in range(2)]
    journal = TreeJournal(path)

    def appender(name):
        for n in range(150):
            journal.append(TreeChange("edit", "user:qq:1", f"{name}-{n}"), name)

    threads = [threading.Thread(target=appender, args=(f"t{n}",)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert [child.wait(120) for child in children] == [0, 0]
    entries = TreeJournal(path).entries()
    assert [e.id for e in entries] == list(range(1, 601))
    assert len({e.change.memory_id for e in entries}) == 600
