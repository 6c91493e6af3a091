"""Editing, archiving and restoring a KiraOS 3.x tree's memories with undo: the files as the plugin reads
and writes them, the index equal to a rebuild from the files after each kind of edit (the plugin's
runtime state kept), reverts that refuse a file changed since, and a history in our data dir."""
from __future__ import annotations

import json
import sqlite3
import tomllib

import pytest

from cli_helpers import run
from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.storage.tree.editor import ChangedSince, TreeEditor
from kiraos_desktop.core.storage.tree.layout import EntityRef
from test_tree_writes import index_rows, rebuilt_rows
from tree_fixtures import entity_dir, indexed_tree

XIAOMING = EntityRef("user", "qq:10001")
GUITAR = "learning_guitar"


@pytest.fixture
def kira(tmp_path):
    return indexed_tree(tmp_path / "kira")


def files_of(root):
    """Every file of the data folder but the index (compared by its rows: SQLite's own pages change)."""
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.startswith("memory_index.db")}


def index_dump(memory):
    conn = sqlite3.connect(memory / "memory_index.db")
    rows = sorted(conn.execute("SELECT * FROM memories").fetchall(), key=repr)
    fts = sorted(conn.execute("SELECT memory_id, raw_text, tags_text FROM memories_fts").fetchall())
    conn.close()
    return rows, fts


def test_an_edit_keeps_the_plugins_runtime_state_and_matches_a_rebuild(kira):
    memory = kira / "memory"
    before_row = index_rows(memory, GUITAR)[0]
    TreeEditor(str(memory)).edit(XIAOMING, GUITAR, text="小明学吉他一年了", importance=9, tags=["hobby", "音乐"])
    path = entity_dir(memory, "user", "qq:10001") / "facts" / f"{GUITAR}.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert (data["id"], data["text"], data["importance"], data["tags"]) == (GUITAR, "小明学吉他一年了", 9, ["hobby", "音乐"])
    assert data["source"]["session"] == "qq:pm:10001"  # what the file had is kept
    row, fts = index_rows(memory, GUITAR)
    expected_row, expected_fts = rebuilt_rows(memory, path, "qq:10001", "user", "facts", "")
    assert row[:10] == expected_row and fts == [expected_fts]
    assert row[10:] == before_row[10:]  # access_count, timestamp, last_accessed as the plugin left them


def test_archive_and_restore_go_through_the_plugins_archive(kira):
    memory = kira / "memory"
    editor = TreeEditor(str(memory))
    facts = entity_dir(memory, "user", "qq:10001") / "facts"
    original = (facts / f"{GUITAR}.toml").read_bytes()
    row_before = index_rows(memory, GUITAR)[0]
    editor.archive(XIAOMING, GUITAR)
    archived = memory / "archive" / f"user__qq%3A10001__facts__{GUITAR}.toml"
    data = tomllib.loads(archived.read_text(encoding="utf-8"))
    assert data["text"] == "小明最近在学吉他" and data["meta"]["access_count"] == row_before[10]
    assert data["meta"]["tags"] == ["hobby"] and not (facts / f"{GUITAR}.toml").exists()
    assert index_rows(memory, GUITAR)[0] is None  # a running plugin no longer recalls it
    editor.restore(XIAOMING, GUITAR)
    assert not archived.exists()
    assert tomllib.loads((facts / f"{GUITAR}.toml").read_text(encoding="utf-8")) == tomllib.loads(original.decode())
    row, fts = index_rows(memory, GUITAR)
    assert row[:10] == rebuilt_rows(memory, facts / f"{GUITAR}.toml", "qq:10001", "user", "facts", "")[0]
    assert row[10:] == row_before[10:]  # the runtime state comes back from [meta]


@pytest.mark.parametrize("edit", ["add", "edit", "archive", "restore"])
def test_each_kind_of_edit_is_undone_exactly(kira, edit):
    memory = kira / "memory"
    editor = TreeEditor(str(memory))
    if edit == "restore":
        editor.archive(XIAOMING, GUITAR)
    files, index = files_of(kira), index_dump(memory)
    change = {"add": lambda: editor.add(XIAOMING, "小明养了一只猫"),
              "edit": lambda: editor.edit(XIAOMING, GUITAR, text="改过的"),
              "archive": lambda: editor.archive(XIAOMING, GUITAR),
              "restore": lambda: editor.restore(XIAOMING, GUITAR)}[edit]()
    assert files_of(kira) != files
    editor.revert(change)
    assert files_of(kira) == files and index_dump(memory) == index


def test_a_revert_refuses_a_file_changed_since(kira):
    memory = kira / "memory"
    editor = TreeEditor(str(memory))
    change = editor.edit(XIAOMING, GUITAR, text="改过的")
    path = entity_dir(memory, "user", "qq:10001") / "facts" / f"{GUITAR}.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("改过的", "插件又改了"), encoding="utf-8")
    files = files_of(kira)
    with pytest.raises(ChangedSince):
        editor.revert(change)
    assert files_of(kira) == files


def test_broken_files_and_missing_memories_are_refused_untouched(kira):
    memory = kira / "memory"
    editor = TreeEditor(str(memory))
    broken = EntityRef("user", "qq:10002")
    files = files_of(kira)
    for call in (lambda: editor.edit(broken, "bad_toml", text="x"), lambda: editor.archive(broken, "latin1"),
                 lambda: editor.edit(XIAOMING, "no_such", text="x"), lambda: editor.restore(XIAOMING, GUITAR),
                 lambda: editor.edit(XIAOMING, "../../../etc/passwd", text="x")):
        with pytest.raises(StoreError):
            call()
    assert files_of(kira) == files


def test_hostile_ids_round_trip(kira):
    memory = kira / "memory"
    editor = TreeEditor(str(memory))
    odd = EntityRef("user", "😀:a%b/中文")
    added = editor.add(odd, "表情用户喜欢画画")
    editor.archive(odd, added.memory_id)
    assert (memory / "archive" / f"user__%F0%9F%98%80%3Aa%25b%2F%E4%B8%AD%E6%96%87__facts__{added.memory_id}.toml").exists()
    editor.restore(odd, added.memory_id)
    assert index_rows(memory, added.memory_id)[0][1] == "😀:a%b/中文"


def test_the_command_line_edits_keeps_a_history_and_reverts(kira, capsys):
    def memory_cli(*argv):
        return run(capsys, "memory", *argv, "--kira-data", str(kira))

    original = files_of(kira)
    code, out, err = memory_cli("edit", "user:qq:10001", GUITAR, "小明学吉他一年了", "--importance", "9", "--json")
    assert code == 0, err
    assert json.loads(out)["change"] == 1 and json.loads(out)["action"] == "edit"
    assert memory_cli("archive", "user:qq:10001", GUITAR)[0] == 0
    code, out, err = memory_cli("history", "--json")
    assert [(e["change"], e["action"]) for e in json.loads(out)] == [(2, "archive"), (1, "edit")]
    assert memory_cli("revert", "2")[0] == 0 and memory_cli("revert", "1")[0] == 0
    assert files_of(kira) == original
    for argv in (["edit", "user:qq:10001", GUITAR], ["edit", "user:qq:10001", GUITAR, "--importance", "0"],
                 ["archive", "user:qq:10001", "no_such"], ["revert", "99"], ["restore", "user:qq:nobody", "x"]):
        code, out, err = memory_cli(*argv)
        assert code == 2 and len(err.strip().splitlines()) == 1 and out == "", (argv, err)
    assert files_of(kira) == original


def test_a_profile_field_is_written_as_the_plugin_writes_profile_json(kira, capsys):
    memory = kira / "memory"
    path = entity_dir(memory, "user", "qq:10001") / "profile.json"
    stored = json.loads(path.read_text(encoding="utf-8"))
    original = path.read_bytes()
    change = TreeEditor(str(memory)).set_profile(XIAOMING, "preferences", {"饮料": "咖啡", "音乐": "摇滚"})
    text = path.read_text(encoding="utf-8")
    written = json.loads(text)
    assert list(written) == ["entity_id", "entity_type", "name", "nickname", "description", "platform", "traits",
                             "preferences", "relationships", "facts", "aliases", "interaction_count",
                             "last_interaction", "metadata"]
    assert text == json.dumps(written, ensure_ascii=False, indent=2)  # UTF-8, indent 2, as json.dump writes it
    assert written["preferences"] == {"饮料": "咖啡", "音乐": "摇滚"}
    assert {k: v for k, v in written.items() if k in stored and k != "preferences"} == \
        {k: v for k, v in stored.items() if k != "preferences"}
    TreeEditor(str(memory)).revert(change)
    assert path.read_bytes() == original
    for argv in (["user:qq:10001", "nope", "x"], ["user:qq:10001", "traits", "x"], ["user:qq:10001", "traits", '"x"'],
                 ["user:qq:10001", "interaction_count", "true"], ["user:qq:nobody", "name", "x"],
                 ["user:qq:10004", "name", "x"]):  # the last one's profile.json is not valid JSON
        code, out, err = run(capsys, "profile", "set", *argv, "--kira-data", str(kira))
        assert code == 2 and len(err.strip().splitlines()) == 1, (argv, err)
    assert path.read_bytes() == original
    assert (entity_dir(memory, "user", "qq:10004") / "profile.json").read_text(encoding="utf-8") == "{not json"
    code, out, err = run(capsys, "profile", "set", "user:qq:10001", "name", "小明同学", "--kira-data", str(kira))
    assert code == 0 and json.loads(path.read_text(encoding="utf-8"))["name"] == "小明同学"


def test_a_memory_moves_between_facts_and_reflections_and_back(kira, capsys):
    memory = kira / "memory"
    user = entity_dir(memory, "user", "qq:10001")
    row_before = index_rows(memory, GUITAR)[0]
    files, index = files_of(kira), index_dump(memory)
    change = TreeEditor(str(memory)).edit(XIAOMING, GUITAR, reflection=True)
    moved = user / "reflections" / f"{GUITAR}.toml"
    assert not (user / "facts" / f"{GUITAR}.toml").exists()
    assert tomllib.loads(moved.read_text(encoding="utf-8"))["type"] == "reflection"
    row, fts = index_rows(memory, GUITAR)
    assert row[:10] == rebuilt_rows(memory, moved, "qq:10001", "user", "reflections", "")[0] and fts
    assert row[10:] == row_before[10:]  # the plugin's runtime state goes with it
    TreeEditor(str(memory)).revert(change)
    assert files_of(kira) == files and index_dump(memory) == index
    code, out, err = run(capsys, "memory", "edit", "user:qq:10001", GUITAR, "--reflection", "--kira-data", str(kira))
    assert code == 0 and moved.exists()
    code, out, err = run(capsys, "memory", "edit", "channel:discord:c1", "x", "--reflection", "--kira-data", str(kira))
    assert code == 2


def test_a_file_edited_by_hand_is_reindexed_as_the_plugin_would_at_its_start(kira):
    memory = kira / "memory"
    path = entity_dir(memory, "user", "qq:10001") / "facts" / f"{GUITAR}.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("小明最近在学吉他", "小明最近在学尤克里里"), encoding="utf-8")
    editor = TreeEditor(str(memory))
    row_before = index_rows(memory, GUITAR)[0]
    assert GUITAR in [m["id"] for _, _, m, _ in editor.stale(XIAOMING)]
    index = index_dump(memory)
    change = editor.reindex(XIAOMING)
    row, fts = index_rows(memory, GUITAR)
    assert row[:10] == rebuilt_rows(memory, path, "qq:10001", "user", "facts", "")[0]
    assert fts == [rebuilt_rows(memory, path, "qq:10001", "user", "facts", "")[1]]
    assert row[10:] == row_before[10:]
    assert GUITAR not in [m["id"] for _, _, m, _ in editor.stale(XIAOMING)]
    editor.revert(change)
    assert index_dump(memory) == index


def test_a_plugin_writing_meanwhile_loses_nothing_and_neither_do_we(kira):
    """A plugin-like thread adds memories (its own files and index transactions) while we add and edit."""
    import threading

    from tree_fixtures import write_memory

    memory = kira / "memory"
    facts = entity_dir(memory, "user", "qq:10002") / "facts"
    errors = []

    def plugin():
        conn = sqlite3.connect(memory / "memory_index.db", timeout=10, isolation_level=None)
        try:
            for n in range(40):
                write_memory(facts, f"plugin_{n}", f"插件写的第{n}条")
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("INSERT INTO memories (id, entity_id, entity_type, folder, timestamp, last_accessed, "
                             "raw_text) VALUES (?, 'qq:10002', 'user', 'facts', 1.7e9, 1.7e9, ?)",
                             (f"plugin_{n}", f"插件写的第{n}条"))
                conn.execute("COMMIT")
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            conn.close()

    thread = threading.Thread(target=plugin)
    thread.start()
    editor = TreeEditor(str(memory))
    ours = [editor.add(XIAOMING, f"我们加的第{n}条").memory_id for n in range(20)]
    for n in range(10):
        editor.edit(XIAOMING, GUITAR, importance=1 + n % 10)
    thread.join(30)
    assert not errors
    conn = sqlite3.connect(memory / "memory_index.db")
    ids = {row[0] for row in conn.execute("SELECT id FROM memories")}
    conn.close()
    assert {f"plugin_{n}" for n in range(40)} <= ids and set(ours) <= ids
    assert all((facts / f"plugin_{n}.toml").exists() for n in range(40))
    assert index_rows(memory, GUITAR)[0][5] == 10


def test_an_access_the_plugin_counts_during_an_edit_is_kept(kira, monkeypatch):
    """The row is read before the transaction; the plugin bumps the access count in between."""
    from kiraos_desktop.core.storage.tree import editor as editor_module

    memory = kira / "memory"
    real = editor_module.TreeEditor._read_row

    def read_then_plugin_recalls(self, key):
        row = real(self, key)
        conn = sqlite3.connect(memory / "memory_index.db")
        conn.execute("UPDATE memories SET access_count = access_count + 1, last_accessed = 1.8e9 WHERE id = ?",
                     (key.id,))
        conn.commit()
        conn.close()
        return row

    monkeypatch.setattr(editor_module.TreeEditor, "_read_row", read_then_plugin_recalls)
    before = index_rows(memory, GUITAR)[0]
    change = TreeEditor(str(memory)).edit(XIAOMING, GUITAR, importance=2)
    row = index_rows(memory, GUITAR)[0]
    assert row[5] == 2 and row[10] == before[10] + 1 and row[12] == 1.8e9
    assert change.rows[0][2]["access_count"] == before[10] + 1  # the history holds what was written


def test_edit_archive_and_restore_on_the_hippocampus_index(tmp_path):
    from tree_fixtures import build_tree, write_index

    root = build_tree(tmp_path / "kira")
    memory = root / "memory"
    write_index(memory, [{"id": GUITAR, "entity_id": "qq:10001", "text": "小明最近在学吉他", "importance": 7,
                          "tags": ["hobby"], "last_accessed": 1.7e9}], hippocampus=True)
    editor = TreeEditor(str(memory))
    path = entity_dir(memory, "user", "qq:10001") / "facts" / f"{GUITAR}.toml"
    editor.edit(XIAOMING, GUITAR, text="小明学吉他一年了")
    row, fts = index_rows(memory, GUITAR, hippocampus=True)
    assert row[:10] == rebuilt_rows(memory, path, "qq:10001", "user", "facts", "")[0] and fts
    editor.archive(XIAOMING, GUITAR)
    assert index_rows(memory, GUITAR, hippocampus=True) == (None, [])
    conn = sqlite3.connect(memory / "memory_index.db")
    assert conn.execute("SELECT count(*) FROM memories_fts WHERE memory_id = ?", (GUITAR,)).fetchone()[0] == 0
    conn.close()
    editor.restore(XIAOMING, GUITAR)
    assert index_rows(memory, GUITAR, hippocampus=True)[0][9] == "小明学吉他一年了"


def test_the_history_reads_what_another_writer_appended_and_waits_for_a_whole_line(tmp_path):
    from kiraos_desktop.core.storage.tree.editor import TreeChange
    from kiraos_desktop.core.storage.tree.journal import TreeJournal

    path = tmp_path / "journal.jsonl"
    window, api = TreeJournal(path), TreeJournal(path)
    window.append(TreeChange("add", "user:a", "m1"), "gui")
    api.append(TreeChange("add", "user:a", "m2"), "tool")  # the API's journal saw the window's line
    assert [(e.id, e.change.memory_id) for e in window.entries()] == [(1, "m1"), (2, "m2")]
    with open(path, "a", encoding="utf-8") as out:
        out.write('{"id": 3, "at": "x", "actor": "cli", "action": "add", "ref": "u", "memory_id": "m3"')  # half
    assert len(window.entries()) == 2
    with open(path, "a", encoding="utf-8") as out:
        out.write(', "files": [], "rows": []}\nnot json\n')
    assert [e.id for e in window.entries()] == [1, 2, 3]  # the broken line is skipped, never rewritten


def test_an_edit_whose_history_cannot_be_written_is_undone(kira, tmp_path):
    from kiraos_desktop.core.storage.tree.journal import TreeJournal

    memory = kira / "memory"
    unwritable = tmp_path / "journal.jsonl"
    unwritable.mkdir()  # opening it to append fails, as a full disk would
    files, index = files_of(kira), index_dump(memory)
    editor = TreeEditor(str(memory))
    with pytest.raises(OSError):
        TreeJournal(unwritable).keep(editor, lambda: editor.edit(XIAOMING, GUITAR, text="改过的"), "cli")
    assert files_of(kira) == files and index_dump(memory) == index


@pytest.mark.parametrize("verb", ["restore", "edit", "archive"])
def test_a_memory_id_that_names_a_path_is_refused_by_every_command(kira, tmp_path, capsys, verb):
    """Issue 51: `memory restore user:qq:1 "x/../../../some/where/victim"` exited 0, deleted a file
    outside the tree and wrote one elsewhere outside it (edit and archive refused such an id)."""
    outside = tmp_path / "victim.toml"
    outside.write_text('id = "victim"\ntext = "outside"\n', encoding="utf-8")
    (kira / "memory" / "archive").mkdir(exist_ok=True)
    before = files_of(kira), files_of(tmp_path)
    hostile = "x/../../../" + "../" * 6 + str(outside.with_suffix("")).lstrip("/")
    for memory_id in (hostile, "..", ".kd-1.tmp", "a\\b", "a\x00b"):
        argv = ["memory", verb, "user:qq:10001", memory_id] + (["text"] if verb == "edit" else [])
        code, _, err = run(capsys, *argv, "--kira-data", str(kira))
        assert code == 2 and "is no memory id" in err, (memory_id, err)
    assert (files_of(kira), files_of(tmp_path)) == before and outside.exists()


def _returns_within(call, seconds=20):
    """call()'s result, or a failure when it has not returned within `seconds` (a hang, not a wait)."""
    import threading

    done = []
    worker = threading.Thread(target=lambda: done.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, "it hung"
    return done[0]


def test_a_fifo_where_a_file_should_be_is_refused_not_waited_on(kira, tmp_path):
    """Issue 51: `memory edit` on a FIFO never returned, nor the window's stale-file check; with a
    FIFO for profile.json one memory_update hung, then every later one, and serve ignored SIGTERM."""
    import os
    import subprocess
    import sys

    from kiraos_desktop.core.engine import Engine

    memory = kira / "memory"
    facts = entity_dir(memory, "user", "qq:10001") / "facts"
    os.mkfifo(facts / "piped.toml")
    os.mkfifo(entity_dir(memory, "user", "qq:10003") / "profile.json.fifo")
    (entity_dir(memory, "user", "qq:10003") / "profile.json").unlink(missing_ok=True)
    os.rename(entity_dir(memory, "user", "qq:10003") / "profile.json.fifo",
              entity_dir(memory, "user", "qq:10003") / "profile.json")
    result = subprocess.run([sys.executable, "-m", "kiraos_desktop", "memory", "edit", "user:qq:10001", "piped",
                             "new", "--kira-data", str(kira)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "not a regular file" in result.stderr, result.stderr
    editor = TreeEditor(str(memory))
    assert _returns_within(lambda: editor.stale(XIAOMING)) is not None
    engine = Engine.open(kira_data=kira)
    try:
        update = {"operations": [{"op": "set", "key": "昵称", "value": "三三"}]}
        reply = _returns_within(lambda: engine.tools.call("memory_update", "qq:10003", update))
        assert reply.is_error and "not a regular file" in reply.content
        later = _returns_within(lambda: engine.tools.call("memory_update", "qq:10001", update))
        assert not later.is_error  # another user's update is not held up
    finally:
        engine.close()


def test_an_infinite_importance_is_taken_as_the_plugin_takes_it(kira, capsys):
    """Issue 51: `importance = inf` in a fact made `memory edit` and `archive` exit 1 (OverflowError)."""
    path = entity_dir(kira / "memory", "user", "qq:10001") / "facts" / "endless.toml"
    path.write_text('id = "endless"\ntext = "小明的耐心无穷无尽"\nimportance = inf\n', encoding="utf-8")
    code, out, err = run(capsys, "memory", "edit", "user:qq:10001", "endless", "小明很有耐心",
                         "--kira-data", str(kira))
    assert code == 0, err
    assert tomllib.loads(path.read_text(encoding="utf-8"))["importance"] == 5  # no number: the plugin's 5
    code, out, err = run(capsys, "memory", "archive", "user:qq:10001", "endless", "--kira-data", str(kira))
    assert code == 0, err


def test_a_history_append_on_a_full_disk_leaves_no_partial_line(kira, tmp_path, monkeypatch):
    """Issue 51: an append on a full disk left a partial line: the next change was missing from the
    history and the one after reused its number."""
    import errno
    import os

    from kiraos_desktop.core.storage.tree import journal as journal_module
    from kiraos_desktop.core.storage.tree.journal import TreeJournal

    journal = TreeJournal(tmp_path / "history.jsonl")
    editor = TreeEditor(str(kira / "memory"))
    journal.keep(editor, lambda: editor.add(XIAOMING, "第一条"), "cli")
    real_write, calls = os.write, []

    def full_disk(fd, data):
        calls.append(1)
        if len(calls) == 1:
            real_write(fd, bytes(data[:10]))
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(journal_module.os, "write", full_disk)
    with pytest.raises(OSError):
        journal.keep(editor, lambda: editor.add(XIAOMING, "第二条"), "cli")
    monkeypatch.setattr(journal_module.os, "write", real_write)
    journal.keep(editor, lambda: editor.add(XIAOMING, "第三条"), "cli")
    (tmp_path / "history.jsonl").open("ab").write(b'{"id": 9, "half')  # a killed process's unfinished line
    journal.keep(editor, lambda: editor.add(XIAOMING, "第四条"), "cli")
    entries = TreeJournal(tmp_path / "history.jsonl").entries()
    assert [e.id for e in entries] == [1, 2, 3]
    assert [e.change.memory_id for e in entries] == [e.change.memory_id for e in journal.entries()]
    assert "第二条" not in str([e.change.files for e in entries])  # reverted with its history entry


def test_an_index_that_cannot_be_written_is_one_clear_line_and_exit_2(kira, capsys, monkeypatch):
    """Issue 51: an index locked over 10 s, a read-only or full disk exited 1 with SQLite's own text."""
    from tree_fixtures import lock_the_index

    lock_the_index(monkeypatch)
    files = files_of(kira)
    code, out, err = run(capsys, "memory", "add", "user:qq:10001", "小明学会了游泳", "--kira-data", str(kira))
    assert code == 2 and err.count("\n") == 1
    assert "memory_index.db could not be written (database is locked): nothing was changed" in err
    assert files_of(kira) == files


def test_a_linked_index_refuses_edits_instead_of_leaving_it_out(kira, tmp_path, capsys):
    """Issue 51: with memory_index.db a link, edits skipped the index and said "the tree has no index
    yet" while the plugin recalled from the linked file."""
    import os

    index = kira / "memory" / "memory_index.db"
    elsewhere = tmp_path / "elsewhere.db"
    os.replace(index, elsewhere)
    os.symlink(elsewhere, index)
    files, linked = files_of(kira), elsewhere.read_bytes()
    code, out, err = run(capsys, "memory", "add", "user:qq:10001", "小明学会了游泳", "--kira-data", str(kira))
    assert code == 2 and "memory_index.db is a link" in err and "nothing was written" in err
    assert files_of(kira) == files and elsewhere.read_bytes() == linked
    assert TreeEditor(str(kira / "memory")).stale(XIAOMING) == []  # the window's check still answers
