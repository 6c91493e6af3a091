"""Adding a memory to a KiraOS 3.x tree: the file as the plugin's reader takes it, the index row and FTS
row as a rebuild from the files gives them (the rebuild written here from the format, not by our
writer), the plugin's naming and clash rules, both index schemas, refusals that write nothing."""
from __future__ import annotations

import hashlib
import json
import sqlite3
import tomllib

import pytest
import rjieba

from cli_helpers import run
from kiraos_desktop.core.memory.records import NotFoundError, ValidationError
from kiraos_desktop.core.storage.tree import open_tree
from kiraos_desktop.core.storage.tree.layout import EntityRef
from kiraos_desktop.core.storage.tree.editor import TreeEditor
from tree_fixtures import build_tree, entity_dir, indexed_tree, link_outside, write_index

XIAOMING = EntityRef("user", "qq:10001")


def files_of(root):
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def plugin_id(text: str) -> str:
    """The plugin's fallback id, written out from its rule."""
    digits = hashlib.sha256(text.encode()).hexdigest()[:8]
    kept = "".join(c for c in text.strip()[:20].replace(" ", "_").replace("/", "_") if c.isalnum() or c in "_-")
    return f"{kept}_{digits}" if kept else f"mem_{digits}"


def rebuilt_rows(memory, path, entity_id, entity_type, folder, base_dir):
    """What a rebuild makes of one memory file: its row's fields and its FTS text (jieba's precise mode)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    text = data["text"]
    row = (data["id"], entity_id, entity_type, folder, data["type"], data["importance"],
           json.dumps(data["tags"], ensure_ascii=False), hashlib.sha256(text.encode()).hexdigest()[:16], base_dir, text)
    fts = (" ".join(t for t in rjieba.cut(text) if t.strip()), " ".join(data["tags"]))
    return row, fts


def index_rows(memory, memory_id, hippocampus=False):
    conn = sqlite3.connect(memory / "memory_index.db")
    row = conn.execute("SELECT id, entity_id, entity_type, folder, memory_type, importance, tags, content_hash, "
                       "base_dir, raw_text, access_count, timestamp, last_accessed FROM memories WHERE id = ?",
                       (memory_id,)).fetchone()
    if row is None:
        conn.close()
        return None, []
    key = memory_id if hippocampus else "\x01".join(row[2:3] + row[1:2] + row[3:4] + row[8:9] + row[0:1])
    fts = conn.execute("SELECT raw_text, tags_text FROM memories_fts WHERE memory_id = ?", (key,)).fetchall()
    conn.close()
    return row, fts


@pytest.fixture
def kira(tmp_path):
    return indexed_tree(tmp_path / "kira")


@pytest.mark.parametrize("hippocampus", [False, True])
def test_a_new_fact_is_the_plugins_file_and_index_row(tmp_path, hippocampus):
    root = build_tree(tmp_path / "kira")
    memory = root / "memory"
    write_index(memory, [], hippocampus=hippocampus)
    text = "小明下周要去上海出差 / 坐高铁"
    written = TreeEditor(str(memory)).add(XIAOMING, text, importance=8, tags=["出行", "工作"])
    assert written.memory_id == plugin_id(text) and written.indexed
    path = entity_dir(memory, "user", "qq:10001") / "facts" / f"{written.memory_id}.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert list(data) == ["id", "type", "text", "importance", "tags", "source"]
    assert (data["id"], data["type"], data["text"], data["importance"], data["tags"]) == \
        (written.memory_id, "fact", text, 8, ["出行", "工作"])
    assert isinstance(data["source"]["time"], str) and data["source"]["time"].endswith("+00:00")
    row, fts = index_rows(memory, written.memory_id, hippocampus)
    expected_row, expected_fts = rebuilt_rows(memory, path, "qq:10001", "user", "facts", "")
    assert row[:10] == expected_row and fts == [expected_fts]
    assert row[10] == 0 and row[11] == row[12]  # access_count 0; timestamp and last_accessed now
    injection = open_tree(root).injection(XIAOMING, "上海出差")
    assert text in injection.text  # what the running plugin recalls on its next reply


def test_a_reflection_and_the_bots_own_memory(kira):
    memory = kira / "memory"
    writer = TreeEditor(str(memory))
    reflection = writer.add(XIAOMING, "他最近压力很大", reflection=True)
    assert reflection.files[0][0].split("/")[-2] == "reflections"
    assert tomllib.loads((entity_dir(memory, "user", "qq:10001") / "reflections" / f"{reflection.memory_id}.toml")
                         .read_text(encoding="utf-8"))["type"] == "reflection"
    own = writer.add(EntityRef("self"), "我应该多问用户的感受", reflection=True)
    path = memory / "global" / "self" / "reflections" / f"{own.memory_id}.toml"
    row, fts = index_rows(memory, own.memory_id)
    assert row[:10] == rebuilt_rows(memory, path, "", "", "reflections", "global/self")[0]


def test_a_name_taken_by_another_text_or_an_unreadable_file_gets_the_hash(kira):
    memory = kira / "memory"
    facts = entity_dir(memory, "user", "qq:10001") / "facts"
    text = "小明喜欢猫"
    (facts / f"{plugin_id(text)}.toml").write_text('id = "x"\ntext = "另一条"\n', encoding="utf-8")
    writer = TreeEditor(str(memory))
    first = writer.add(XIAOMING, text)
    assert first.memory_id == f"{plugin_id(text)}_{hashlib.sha256(text.encode()).hexdigest()[:8]}"
    assert (facts / f"{plugin_id(text)}.toml").read_text(encoding="utf-8") == 'id = "x"\ntext = "另一条"\n'
    again = writer.add(XIAOMING, "小明喜欢狗")
    (facts / f"{again.memory_id}.toml").write_bytes(b"\xff not toml")
    before = (facts / f"{again.memory_id}.toml").read_bytes()
    assert writer.add(XIAOMING, "小明喜欢狗").memory_id != again.memory_id  # never over a file it cannot read
    assert (facts / f"{again.memory_id}.toml").read_bytes() == before
    same = writer.add(XIAOMING, "小明喜欢猫")  # the same text: the same file, written again
    assert same.memory_id == first.memory_id


def test_refusals_write_nothing(kira, tmp_path):
    memory = kira / "memory"
    writer = TreeEditor(str(memory))
    before = files_of(kira)
    with pytest.raises(NotFoundError):
        writer.add(EntityRef("user", "qq:nobody"), "x")
    for bad in ({"importance": 11}, {"importance": 0}, {"tags": [""]}):
        with pytest.raises(ValidationError):
            writer.add(XIAOMING, "x", **bad)
    with pytest.raises(ValidationError):
        writer.add(XIAOMING, "   ")
    with pytest.raises(ValidationError):
        writer.add(EntityRef("channel", "discord:c1"), "x", reflection=True)  # channels keep no reflections
    link_outside(kira, tmp_path / "outside")
    with pytest.raises(NotFoundError):
        writer.add(EntityRef("user", "linked"), "x")
    assert {k: v for k, v in files_of(kira).items() if "linked" not in str(k)} == \
        {k: v for k, v in before.items() if "linked" not in str(k)}
    assert [p.name for p in (tmp_path / "outside").rglob("*.toml")] == ["secret.toml"]  # nothing written there


def test_an_index_that_cannot_take_the_row_leaves_no_file(kira):
    memory = kira / "memory"
    conn = sqlite3.connect(memory / "memory_index.db")
    conn.execute("DROP TABLE memories_fts")
    conn.commit()
    conn.close()
    before = files_of(kira)
    with pytest.raises(sqlite3.OperationalError):
        TreeEditor(str(memory)).add(XIAOMING, "新的一条")
    assert files_of(kira) == before


def test_the_command_line_adds_and_refuses_in_one_line(kira, capsys):
    code, out, err = run(capsys, "memory", "add", "user:qq:10001", "小明下周要去上海出差", "--importance", "8",
                         "--tag", "出行", "--kira-data", str(kira), "--json")
    assert code == 0, err
    reply = json.loads(out)
    assert reply == {"change": 1, "action": "add", "ref": "user:qq:10001", "id": plugin_id("小明下周要去上海出差"),
                     "path": f"entities/user_qq%3A10001/facts/{reply['id']}.toml", "indexed": True}
    before = files_of(kira)
    for argv in (["user:qq:10001", "x", "--importance", "11"], ["user:qq:nobody", "x"], ["nobody", "x"]):
        code, out, err = run(capsys, "memory", "add", *argv, "--kira-data", str(kira))
        assert code == 2 and len(err.strip().splitlines()) == 1 and out == "", (argv, err)
    assert files_of(kira) == before


def test_files_keep_their_mode_and_new_ones_get_the_umasks(kira):
    """Issue 51: every file we wrote ended 0600 (mkstemp and rename); the plugin's are 0644 under
    umask 022, and a plugin running as another user could no longer read an edited memory."""
    import os
    import stat

    from kiraos_desktop.core.storage.tree.editor import TreeEditor
    from kiraos_desktop.core.storage.tree.layout import EntityRef

    memory = kira / "memory"
    editor = TreeEditor(str(memory))
    ref = EntityRef("user", "qq:10001")
    old = os.umask(0o022)
    try:
        added = editor.add(ref, "小明喜欢爬山")
        path = memory / added.files[0][0]
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
        os.chmod(path, 0o640)
        editor.edit(ref, added.memory_id, text="小明喜欢爬山和游泳")
        assert stat.S_IMODE(path.stat().st_mode) == 0o640  # the mode it had
    finally:
        os.umask(old)


def test_temporary_files_a_killed_write_left_are_removed_by_the_next_write(kira):
    """Issue 51: `.kd-*.tmp` files left by a kill stayed in facts/ for ever."""
    import os
    import time

    from kiraos_desktop.core.storage.tree.editor import TreeEditor
    from kiraos_desktop.core.storage.tree.layout import EntityRef
    from tree_fixtures import entity_dir

    facts = entity_dir(kira / "memory", "user", "qq:10001") / "facts"
    old, fresh, theirs = facts / ".kd-abc123.tmp", facts / ".kd-def456.tmp", facts / ".plugin-x.tmp"
    for path in (old, fresh, theirs):
        path.write_text("half", encoding="utf-8")
    long_ago = time.time() - 3600
    os.utime(old, (long_ago, long_ago))
    os.utime(theirs, (long_ago, long_ago))
    TreeEditor(str(kira / "memory")).add(EntityRef("user", "qq:10001"), "小明开始学游泳")
    assert not old.exists() and fresh.exists() and theirs.exists()  # a write under way, and not ours


def test_a_folder_swapped_for_a_link_after_its_check_gets_nothing_written_outside(kira, tmp_path, monkeypatch):
    """Issue 51: the link check and the write were two path lookups: a process swapping facts/ for a
    link during adds got a file written outside the tree. The write now goes through the folder as
    opened step by step without following links."""
    import os

    import pytest as _pytest

    from kiraos_desktop.core.memory.records import StoreError
    from kiraos_desktop.core.storage.tree.editor import TreeEditor
    from kiraos_desktop.core.storage.tree.layout import EntityRef
    from tree_fixtures import entity_dir

    outside = tmp_path / "outside"
    outside.mkdir()
    facts = entity_dir(kira / "memory", "user", "qq:10001") / "facts"
    editor = TreeEditor(str(kira / "memory"))
    checked = editor.real_folder

    calls = []

    def swap_after_the_check(relative, create=False):
        found = checked(relative, create)
        calls.append(relative)
        if relative.endswith("/facts") and calls.count(relative) == 2:  # apply()'s check, the last one
            os.rename(facts, tmp_path / "facts-moved")
            os.symlink(outside, facts)  # the race: facts/ is a link by the time the file is written
        return found

    monkeypatch.setattr(editor, "real_folder", swap_after_the_check)
    with _pytest.raises(StoreError, match="link"):
        editor.add(EntityRef("user", "qq:10001"), "小明学会了潜水")
    assert list(outside.iterdir()) == []
