"""Reading a KiraOS plugin 3.x memory tree (built by plain code in tree_fixtures.py): list, search, show, problems."""
from __future__ import annotations

import os
import time

import pytest

from kiraos_desktop.core.memory.records import NotFoundError, StoreError
from kiraos_desktop.core.storage.plugin_layout import NotPluginData
from kiraos_desktop.core.storage.tree import open_tree
from kiraos_desktop.core.storage.tree.layout import (
    EntityRef,
    archive_name,
    entity_dir_name,
    parse_archive_name,
    parse_entity_dir,
    parse_ref,
)
from tree_fixtures import build_tree, entity_dir, link_outside, write_memory

XIAOMING = EntityRef("user", "qq:10001")
ODD = EntityRef("user", "😀:a%b/中文")


@pytest.fixture
def kira(tmp_path):
    return build_tree(tmp_path / "kira")


def labels(rows):
    return [row.ref.label() for row in rows]


def test_the_list_holds_every_entity_then_the_bots_own_memory(kira):
    rows = open_tree(kira).entities()
    assert labels(rows) == ["user:qq:10001", "user:qq:10002", "user:qq:10003", "user:qq:10004", "user:😀:a%b/中文",
                            "group:qq:g1", "channel:discord:c1", "global", "self"]
    by = {row.ref: row for row in rows}
    assert by[XIAOMING].name == "小明" and by[XIAOMING].nickname == "明明"
    assert by[XIAOMING].counts == {"facts": 2, "reflections": 1, "skills": 0} and by[XIAOMING].archived == 1
    assert by[EntityRef("global")].counts == {"facts": 1, "skills": 1}
    assert by[EntityRef("self")].counts == {"facts": 0, "reflections": 1} and by[EntityRef("self")].archived == 1
    assert by[EntityRef("user", "qq:10004")].problems == 1
    # listed without reading memory files: their count is of the files, the problems of profile.json
    listed = by[EntityRef("user", "qq:10002")]
    assert (listed.counts["facts"], listed.problems) == (3, 1)
    read = {row.ref: row for row in open_tree(kira).entities(read=True)}[EntityRef("user", "qq:10002")]
    assert (read.counts["facts"], read.problems) == (1, 3)  # a profile field, two files
    assert [row.ref for row in open_tree(kira).entities(read=True)] == [row.ref for row in rows]


def test_the_type_filter_and_search_over_profiles_and_memories(kira):
    tree = open_tree(kira)
    assert labels(tree.entities(kind="group")) == ["group:qq:g1"]
    assert labels(tree.entities(search="吉他")) == ["user:qq:10001", "group:qq:g1"]  # a fact, a profile field
    assert labels(tree.entities(search="奶茶")) == ["user:qq:10001"]  # a preference's value
    assert labels(tree.entities(search="CSS")) == labels(tree.entities(search="css")) == ["user:qq:10001"]
    assert labels(tree.entities(search="最近在学吉他的人")) == []  # every word must be held: 人 is not
    assert labels(tree.entities(search="生日")) == ["global"]
    assert labels(tree.entities(kind="user", search="吉他")) == ["user:qq:10001"]
    with pytest.raises(ValueError, match="unknown entity type"):
        tree.entities(kind="robot")


def test_an_entity_shows_its_profile_memories_archive_and_source(kira):
    detail = open_tree(kira).entity(XIAOMING)
    assert detail.profile["traits"] == ["爱猫"] and detail.profile["preferences"] == {"饮料": "奶茶"}
    assert detail.profile["relationships"] == {"qq:10002": "同事"} and detail.profile["interaction_count"] == 12
    [css, guitar] = detail.memories["facts"]  # sorted by id
    assert (guitar.id, guitar.text, guitar.importance, guitar.tags) == ("learning_guitar", "小明最近在学吉他", 7, ("hobby",))
    assert guitar.session == "qq:pm:10001" and guitar.time == "2026-05-20T10:00:00+00:00"
    assert guitar.path == f"entities/{entity_dir_name(XIAOMING)}/facts/learning_guitar.toml"
    assert [m.type for m in detail.memories["reflections"]] == ["reflection"]
    [old] = detail.archived
    assert (old.id, old.folder, old.text, old.meta["access_count"]) == ("old_city", "facts", "小明以前住在北京", 3)
    assert detail.problems == []


def test_broken_files_are_problems_with_path_and_reason_and_hide_nothing_else(kira):
    memory = kira / "memory"
    bad = entity_dir(memory, "user", "qq:10002") / "facts" / "bad_toml.toml"
    before = bad.read_bytes()
    detail = open_tree(kira).entity(EntityRef("user", "qq:10002"))
    reasons = {p.path.rsplit("/", 1)[-1]: p.reason for p in detail.problems}
    assert "not valid TOML" in reasons["bad_toml.toml"] and "not UTF-8" in reasons["latin1.toml"]
    assert reasons["profile.json"].startswith("traits should be a list, not text")
    assert detail.profile["name"] == "小红" and "traits" not in detail.profile  # the other fields kept
    [tea] = detail.memories["facts"]
    assert tea.importance == 10  # 15, clamped as the plugin clamps it
    assert bad.read_bytes() == before  # never rewritten
    unreadable = open_tree(kira).entity(EntityRef("user", "qq:10004"))
    assert unreadable.profile == {} and "not valid JSON" in unreadable.problems[0].reason
    stray = [p for p in open_tree(kira).problems() if "not_an_archive_name" in p.path]
    assert stray and "archive name" in stray[0].reason


def test_hostile_ids_round_trip_through_the_quoting(kira):
    tree = open_tree(kira)
    detail = tree.entity(parse_ref("user:😀:a%b/中文"))
    assert detail.ref == ODD and detail.profile["name"] == "表情"
    assert [m.id for m in detail.memories["facts"]] == ["emoji_fact"]
    assert "/" not in entity_dir_name(ODD) and parse_entity_dir(entity_dir_name(ODD)) == ODD
    for ref in (ODD, XIAOMING, EntityRef("self")):
        assert parse_archive_name(archive_name(ref, "facts", "x__y")) == (ref, "facts", "x__y")
    # "__" inside an id makes the plugin's archive names ambiguous: the entity the tree holds decides
    clash = EntityRef("group", "a__facts__b")
    name = archive_name(clash, "facts", "x__y")
    assert parse_archive_name(name) == (EntityRef("group", "a"), "facts", "b__facts__x__y")
    assert parse_archive_name(name, lambda ref: ref == clash) == (clash, "facts", "x__y")
    with pytest.raises(NotFoundError):
        tree.entity(EntityRef("user", "../../etc"))


def test_nothing_outside_the_tree_is_followed(kira, tmp_path):
    link_outside(kira, tmp_path / "outside")
    tree = open_tree(kira)
    assert "user:linked" not in labels(tree.entities())
    problems = {p.path: p.reason for p in tree.problems()}
    assert "link" in problems["entities/user_linked"]
    linked = f"entities/{entity_dir_name(XIAOMING)}/facts/linked.toml"
    assert "link" in problems[linked]
    everything = repr(tree.entity(XIAOMING)) + repr(tree.entities(search="OUTSIDE"))
    assert "OUTSIDE" not in everything.replace("search=", "")


def test_another_processs_new_changed_and_archived_files_are_read_again(kira):
    tree = open_tree(kira)
    assert tree.entity(XIAOMING).memories["facts"][1].text == "小明最近在学吉他"
    facts = entity_dir(kira / "memory", "user", "qq:10001") / "facts"
    write_memory(facts, "new_pet", "小明新养了一只橘猫", importance=6)
    guitar = facts / "learning_guitar.toml"
    text = guitar.read_text(encoding="utf-8").replace("在学吉他", "在学尤克里里")
    guitar.write_text(text, encoding="utf-8")
    os.utime(guitar, ns=(time.time_ns(), time.time_ns() + 1_000_000))
    os.replace(facts / "hates_css.toml", kira / "memory" / "archive" / "user__qq%3A10001__facts__hates_css.toml")
    detail = tree.entity(XIAOMING)
    assert [m.id for m in detail.memories["facts"]] == ["learning_guitar", "new_pet"]
    assert detail.memories["facts"][0].text == "小明最近在学尤克里里"
    assert sorted(m.id for m in detail.archived) == ["hates_css", "old_city"]
    assert labels(tree.entities(search="橘猫")) == ["user:qq:10001"]


def test_only_a_3x_folder_opens_as_a_tree(tmp_path):
    with pytest.raises(NotPluginData):
        open_tree(tmp_path)
    import sqlite3

    (tmp_path / "memory").mkdir()
    sqlite3.connect(tmp_path / "memory" / "kiraos.db").executescript(
        "CREATE TABLE user_profiles (user_id TEXT, memory_key TEXT, memory_value TEXT, expires_at TEXT);"
        "CREATE TABLE event_logs (id INTEGER PRIMARY KEY, user_id TEXT, event_summary TEXT, created_at TEXT);")
    with pytest.raises(StoreError, match="KiraOS 1.x data"):
        open_tree(tmp_path)


@pytest.mark.parametrize("text", ["robot:1", "user:", "user", "qq:123", ""])
def test_a_bad_entity_name_says_how_to_write_one(text):
    with pytest.raises(ValueError, match="TYPE:ID"):
        parse_ref(text)


def test_the_search_rule_is_the_user_lists_word_starts(kira):
    """Issue 50: the 3.x list found the inside of words (its text held the search), the user list
    whole words only. Both now find a word's start: `Rus` finds Rust, `teach` a teacher, `ust` neither."""
    from kiraos_desktop.core.storage.tree.layout import EntityRef as Ref
    from tree_fixtures import entity_dir, write_memory

    write_memory(entity_dir(kira / "memory", "user", "qq:10003") / "facts", "rust", "Learning Rust with a teacher")
    tree = open_tree(kira)
    assert labels(tree.entities(search="Rus")) == labels(tree.entities(search="teach")) == ["user:qq:10003"]
    assert labels(tree.entities(search="ust")) == labels(tree.entities(search="eacher")) == []
    assert labels(tree.entities(search="rust teach")) == ["user:qq:10003"]  # every word
    assert Ref("user", "qq:10003") in [row.ref for row in tree.entities(search="s")]  # one character: inside
