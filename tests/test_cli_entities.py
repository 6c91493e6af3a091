"""`entities` and `entity show` on a KiraOS plugin 3.x tree: text, --json, and one line with exit 2 for bad input."""
from __future__ import annotations

import json

import pytest

from cli_helpers import run
from tree_fixtures import build_tree


@pytest.fixture
def kira(tmp_path):
    return str(build_tree(tmp_path / "kira"))


def test_entities_lists_with_counts_and_filters(capsys, kira):
    code, out, err = run(capsys, "entities", "--kira-data", kira)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "user:qq:10001 (小明): 2 facts, 1 reflections, 0 skills, 1 archived"
    assert "user:qq:10002 (小红): 3 facts, 0 reflections, 0 skills, 1 problem(s)" in lines  # files, profile.json
    assert lines[-2:] == ["global: 1 facts, 1 skills, 1 problem(s)", "self: 0 facts, 1 reflections, 1 archived"]
    code, out, _ = run(capsys, "entities", "--kira-data", kira, "--type", "group", "--search", "吉他")
    assert code == 0 and out == "group:qq:g1 (吉他交流群): 1 facts, 0 reflections, 0 skills\n"
    code, out, _ = run(capsys, "entities", "--kira-data", kira, "--search", "不存在的词")
    assert code == 0 and out == "no entity matches\n"


def test_entities_json_shape(capsys, kira):
    code, out, _ = run(capsys, "entities", "--kira-data", kira, "--search", "奶茶", "--json")
    assert code == 0
    assert json.loads(out) == [{"type": "user", "id": "qq:10001", "name": "小明", "nickname": "明明",
                                "counts": {"facts": 2, "reflections": 1, "skills": 0}, "archived": 1, "problems": 0}]


def test_entity_show_prints_everything_and_its_problems_with_exit_0(capsys, kira):
    code, out, _ = run(capsys, "entity", "show", "user:qq:10001", "--kira-data", kira)
    assert code == 0
    assert "  preferences: {\"饮料\": \"奶茶\"}" in out
    assert "  [7] learning_guitar: 小明最近在学吉他 #hobby (2026-05-20)" in out
    assert "archived: 1\n  [4] old_city: 小明以前住在北京" in out and out.endswith("problems: 0\n")
    code, out, _ = run(capsys, "entity", "show", "user:qq:10002", "--kira-data", kira, "--json")
    shown = json.loads(out)
    assert code == 0 and shown["profile"]["name"] == "小红"
    assert [m["importance"] for m in shown["memories"]["facts"]] == [10]
    assert sorted(p["path"].rsplit("/", 1)[-1] for p in shown["problems"]) == [
        "bad_toml.toml", "latin1.toml", "profile.json"]
    code, out, _ = run(capsys, "entity", "show", "self", "--kira-data", kira, "--json")
    assert code == 0 and [m["id"] for m in json.loads(out)["archived"]] == ["old_name"]


@pytest.mark.parametrize("argv, says", [
    (["entity", "show", "robot:1"], "TYPE:ID"),
    (["entity", "show", "user:nobody"], "the tree has no user:nobody"),
    (["entities"], "needs --kira-data"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, kira, argv, says):
    extra = [] if argv == ["entities"] else ["--kira-data", kira]
    code, out, err = run(capsys, *argv, *extra)
    assert code == 2 and out == "" and says in err and len(err.strip().splitlines()) == 1


def test_a_1x_folder_is_named_not_listed(capsys, tmp_path):
    import sqlite3

    (tmp_path / "memory").mkdir()
    sqlite3.connect(tmp_path / "memory" / "kiraos.db").executescript(
        "CREATE TABLE user_profiles (user_id TEXT, memory_key TEXT, memory_value TEXT, expires_at TEXT);"
        "CREATE TABLE event_logs (id INTEGER PRIMARY KEY, user_id TEXT, event_summary TEXT, created_at TEXT);")
    code, out, err = run(capsys, "entities", "--kira-data", str(tmp_path))
    assert code == 2 and "KiraOS 1.x data" in err and "not a 3.x tree" in err


def test_info_counts_the_tree_as_its_reader_takes_it(capsys, kira):
    code, out, _ = run(capsys, "info", "--kira-data", kira, "--json")
    info = json.loads(out)
    assert code == 0 and info["layout"] == "3.x"
    assert info["counts"] == {"entities": {"user": 5, "group": 1, "channel": 1}, "facts": 6, "reflections": 2,
                              "skills": 1, "archived": 2, "problems": 5}
    code, out, _ = run(capsys, "info", "--kira-data", kira)
    assert "problems: 5 file(s) that cannot be read" in out and "entity show TYPE:ID" in out
    assert "open it in the window with `kiraos-desktop --kira-data FOLDER`" in out  # it said it could not


def test_the_help_of_kira_data_names_every_layout(capsys):
    from kiraos_desktop import cli

    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "1.x/2.x (memory/kiraos.db) or 3.x (memory/entities/)" in text


def test_entity_show_message_prints_what_the_bot_sees(capsys, tmp_path):
    from tree_fixtures import write_index

    root = build_tree(tmp_path / "kira")
    write_index(root / "memory", [{"id": "learning_guitar", "entity_id": "qq:10001", "text": "小明最近在学吉他",
                                   "importance": 7, "tags": ["hobby"], "last_accessed": 1.7e9}])
    code, out, _ = run(capsys, "entity", "show", "user:qq:10001", "--message", "吉他", "--kira-data", str(root))
    assert code == 0 and out.startswith("[用户 qq:10001 画像]\n名字: 小明\n")
    assert out.endswith("[相关记忆]\n- [fact] [hobby] 小明最近在学吉他\n")
    code, out, _ = run(capsys, "entity", "show", "user:qq:10001", "--message", "吉他", "--json",
                       "--kira-data", str(root))
    shown = json.loads(out)
    assert code == 0 and shown["fts_query"] == "吉他" and [m["id"] for m in shown["recalled"]] == ["learning_guitar"]
    code, out, err = run(capsys, "entity", "show", "user:nobody", "--message", "吉他", "--kira-data", str(root))
    assert code == 2 and "the tree has no user:nobody" in err
