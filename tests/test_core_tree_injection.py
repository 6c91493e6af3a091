"""What a KiraOS 3.x bot injects for a message: the profile text and the recalled memories, ranked as the plugin ranks them."""
from __future__ import annotations

import math
import sqlite3

import pytest

from kiraos_desktop.core.storage.tree import open_tree
from kiraos_desktop.core.storage.tree.injection import fts_query, profile_prompt
from kiraos_desktop.core.storage.tree.layout import EntityRef
from tree_fixtures import build_tree, entity_dir, write_index, write_memory

NOW = 1_780_000_000.0
DAY = 86400.0
XIAOMING = EntityRef("user", "qq:10001")


@pytest.fixture
def kira(tmp_path):
    root = build_tree(tmp_path / "kira")
    memory = root / "memory"
    user = entity_dir(memory, "user", "qq:10001")
    write_memory(user / "facts", "guitar_teacher", "小明的吉他老师姓王，吉他课在周六", importance=2)
    write_memory(user / "reflections", "guitar_effort", "他练吉他很用心", kind="reflection", importance=9)
    rows = [
        {"id": "learning_guitar", "entity_id": "qq:10001", "text": "小明最近在学吉他", "importance": 7,
         "tags": ["hobby"], "last_accessed": NOW - 2 * DAY},
        {"id": "hates_css", "entity_id": "qq:10001", "text": "User hates writing CSS", "importance": 3,
         "last_accessed": NOW},
        {"id": "guitar_teacher", "entity_id": "qq:10001", "text": "小明的吉他老师姓王，吉他课在周六", "importance": 2,
         "last_accessed": NOW - 90 * DAY},
        {"id": "guitar_effort", "entity_id": "qq:10001", "folder": "reflections", "type": "reflection",
         "text": "他练吉他很用心", "importance": 9, "last_accessed": NOW - 400 * DAY},
        {"id": "often_late", "entity_id": "qq:10001", "folder": "reflections", "type": "reflection",
         "text": "他经常深夜聊天，作息不规律", "importance": 4, "last_accessed": NOW},
        # another user's memory about the same thing is never recalled for this one
        {"id": "other_guitar", "entity_id": "qq:10002", "text": "小红也在学吉他", "importance": 10,
         "last_accessed": NOW},
    ]
    write_index(memory, rows)
    return root


def by_hand(index, message_query):
    """The plugin's ranking written out: per folder BM25 x (1 + imp/10 x 0.3 + 0.5^(days/30) x 0.2), merged."""
    conn = sqlite3.connect(index)
    scored = []
    for folder in ("facts", "reflections"):
        rows = conn.execute(
            "SELECT m.id, m.importance, m.last_accessed, bm25(memories_fts) FROM memories_fts f "
            "JOIN memories m ON f.memory_id = m.storage_key WHERE memories_fts MATCH ? AND m.entity_id = 'qq:10001' "
            "AND m.entity_type = 'user' AND m.folder = ?", (message_query, folder)).fetchall()
        for memory_id, importance, last, bm25 in rows:
            days = (NOW - last) / DAY
            scored.append((abs(bm25) * (1 + importance / 10 * 0.3 + 0.5 ** (days / 30) * 0.2),
                           importance * 0.6 + math.exp(-days / 30) * 0.4, memory_id))
    return [memory_id for *_, memory_id in sorted(scored, reverse=True)][:5]


def test_the_recalled_memories_are_ranked_as_the_plugin_ranks_them(kira):
    index = kira / "memory" / "memory_index.db"
    injection = open_tree(kira).injection(XIAOMING, "你最近吉他练得怎么样？", now=NOW)
    assert injection.fts_query == fts_query("你最近吉他练得怎么样？")
    recalled = [memory.id for memory in injection.recalled]
    assert recalled == by_hand(index, injection.fts_query)
    assert set(recalled) == {"learning_guitar", "guitar_teacher", "guitar_effort"}  # not 小红's, not CSS
    scores = [memory.score for memory in injection.recalled]
    assert scores == sorted(scores, reverse=True)


def test_the_injection_text_is_the_plugins_blocks(kira):
    injection = open_tree(kira).injection(XIAOMING, "吉他", now=NOW)
    profile, memories = injection.text.split("\n\n")
    assert profile == ("[用户 qq:10001 画像]\n名字: 小明\n昵称: 明明\n平台: qq\n特征: 爱猫\n偏好: 饮料: 奶茶\n"
                       "关系: qq:10002: 同事\n互动次数: 12")
    lines = memories.splitlines()
    assert lines[0] == "[相关记忆]"
    assert "- [fact] [hobby] 小明最近在学吉他" in lines and "- [reflection] 他练吉他很用心" in lines


def test_the_file_is_what_is_shown_when_the_index_is_behind(kira):
    """The plugin shows the file's text, tags and importance over the index's (a hand edit since its start)."""
    facts = entity_dir(kira / "memory", "user", "qq:10001") / "facts"
    write_memory(facts, "learning_guitar", "小明最近在学吉他和尤克里里", importance=8, tags=["hobby", "music"])
    injection = open_tree(kira).injection(XIAOMING, "吉他", now=NOW)
    [edited] = [memory for memory in injection.recalled if memory.id == "learning_guitar"]
    assert (edited.text, edited.tags, edited.importance) == ("小明最近在学吉他和尤克里里", ("hobby", "music"), 8)


def test_no_words_no_index_or_another_kind_inject_only_what_the_plugin_would(kira, tmp_path):
    tree = open_tree(kira)
    assert tree.injection(XIAOMING, "？！。", now=NOW).recalled == []
    assert tree.injection(EntityRef("group", "qq:g1"), "吉他").text == ""
    assert profile_prompt({}) == "暂无画像信息"
    bare = build_tree(tmp_path / "bare")  # no memory_index.db yet: the profile only
    text = open_tree(bare).injection(XIAOMING, "吉他").text
    assert text.startswith("[用户 qq:10001 画像]") and "[相关记忆]" not in text
    assert tree.injection(XIAOMING, 'AND OR NOT "(').recalled == []  # an FTS5 syntax error recalls nothing


def test_a_hippocampus_tree_recalls_the_same_way_and_info_names_its_writer(tmp_path, capsys):
    import json

    from cli_helpers import run

    root = build_tree(tmp_path / "hippo")
    rows = [{"id": "learning_guitar", "entity_id": "qq:10001", "text": "小明最近在学吉他", "importance": 7,
             "tags": ["hobby"], "last_accessed": NOW},
            {"id": "often_late", "entity_id": "qq:10001", "folder": "reflections", "type": "reflection",
             "text": "他经常深夜练吉他", "importance": 4, "last_accessed": NOW}]
    write_index(root / "memory", rows, hippocampus=True)
    injection = open_tree(root).injection(XIAOMING, "吉他", now=NOW)
    assert sorted(m.id for m in injection.recalled) == ["learning_guitar", "often_late"]  # joined on id alone
    code, out, _ = run(capsys, "info", "--kira-data", str(root), "--json")
    assert code == 0 and json.loads(out)["written_by"] == "kira_plugin_hippocampus_memory"
    kiraos = build_tree(tmp_path / "kiraos")
    write_index(kiraos / "memory", rows)
    code, out, _ = run(capsys, "info", "--kira-data", str(kiraos))
    assert "written by: KiraOS plugin 3.x" in out
    code, out, _ = run(capsys, "info", "--kira-data", str(build_tree(tmp_path / "bare")))
    assert "written by: unknown (no memory_index.db to tell)" in out
