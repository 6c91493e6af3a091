"""The `skills` CLI command: list, lint and preview."""
from __future__ import annotations

import argparse
import json
from types import SimpleNamespace

import pytest

from kiraos_desktop.cli.skills import add_skills_parser, coerce_value, run_skills
from kiraos_desktop.core.skills import SkillRouter
from kiraos_desktop.core.tool_registry import ToolRegistry
from skills_helpers import FakeMemory, manifest, params, write_skill


def parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir")
    top = argparse.ArgumentParser(prog="kiraos-desktop")
    add_skills_parser(top.add_subparsers(dest="command"), [common])
    return top


@pytest.fixture
def engine(tmp_path):
    skills = tmp_path / "skills"
    write_skill(skills, "a", manifest("demo", command="/demo", parameters=params(
        ["topic"], topic="string", n="integer", x="number", flag="boolean",
        tags={"type": "array"}, opts={"type": "object"})),
        "T={topic} N={n} X={x} F={flag} G={tags} O={opts}")
    write_skill(skills, "b", manifest("off"), "x")
    write_skill(skills, "c", manifest("warned", parameters=params(q="string")), "no q here")
    router = SkillRouter(skills, disabled=["off"])
    contexts = {"u1": "[u1:basic] 昵称=小明(✓)"}
    tools = ToolRegistry(FakeMemory(), router, lambda user, n: contexts.get(user, ""))
    return SimpleNamespace(skills=router, tools=tools, settings=None)


def run(argv, engine):
    args = parser().parse_args(argv)
    return run_skills(args, engine)


def test_list(engine, capsys):
    assert run(["skills", "list"], engine) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["NAME", "COMMAND", "ENABLED", "PROBLEMS", "FOLDER"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["demo"] == ["demo", "/demo", "yes", "0", "a"]
    assert rows["off"] == ["off", "-", "no", "0", "b"]
    assert rows["warned"] == ["warned", "-", "yes", "1", "c"]


def test_common_options_after_the_subcommand(engine):
    args = parser().parse_args(["skills", "list", "--data-dir", "D"])
    assert args.data_dir == "D" and args.skills_command == "list"


def test_lint_dir_without_engine(tmp_path, capsys):
    good = tmp_path / "good"
    write_skill(good, "a", manifest("a"), "x")
    assert run(["skills", "lint", str(good)], None) == 0
    assert "no problems" in capsys.readouterr().out

    mixed = tmp_path / "mixed"
    write_skill(mixed, "a", manifest("a"), "x {ghost}")
    assert run(["skills", "lint", str(mixed)], None) == 0  # warnings only
    out = capsys.readouterr().out
    assert "a/instruction.md:1: warning: [instruction]" in out and "0 error(s), 1 warning(s)" in out

    write_skill(mixed, "b", '{"name": "b",\n oops}', "x")
    assert run(["skills", "lint", str(mixed)], None) == 2
    assert "b/manifest.json:2: error: [manifest]" in capsys.readouterr().out


def test_lint_missing_dir_and_no_engine(tmp_path, capsys):
    assert run(["skills", "lint", str(tmp_path / "absent")], None) == 2
    assert "nor a folder" in capsys.readouterr().err
    assert run(["skills", "lint"], None) == 2
    assert run(["skills", "list"], None) == 2


def test_lint_configured_folder_rescans(engine, capsys):
    write_skill(engine.skills.skills_dir, "d", "{", "x")
    assert run(["skills", "lint"], engine) == 2
    assert "d/manifest.json:1: error" in capsys.readouterr().out


def test_preview_prints_exactly_the_tool_result(engine, capsys):
    argv = ["skills", "preview", "demo", "--arg", "topic=猫 & 狗", "--arg", "n=3", "--arg", "x=1.5",
            "--arg", "flag=yes", "--arg", 'tags=["a"]', "--arg", 'opts={"k": 1}', "--user", "u1"]
    assert run(argv, engine) == 0
    out = capsys.readouterr().out
    expected = engine.tools.call("demo", "u1", {"topic": "猫 & 狗", "n": 3, "x": 1.5, "flag": True,
                                                "tags": ["a"], "opts": {"k": 1}}).content
    assert out == expected + "\n"
    assert "N=<user_input>3</user_input>" in out and "<context>" in out


def test_preview_json_and_default_user(engine, capsys):
    argv = ["skills", "preview", "demo", "--json", json.dumps({"topic": "a", "n": 1}), "--arg", "n=2"]
    assert run(argv, engine) == 0
    out = capsys.readouterr().out
    assert "T=<user_input>a</user_input> N=<user_input>2</user_input>" in out
    assert "<context>" not in out


@pytest.mark.parametrize("extra, message", [
    (["--arg", "n=many", "--arg", "topic=t"], "n"),
    (["--arg", "noequals"], "key=value"),
    (["--json", "[1]"], "JSON object"),
    (["--json", "{bad"], "not valid JSON"),
    ([], "topic"),
    (["--arg", "topic=t", "--arg", "x=inf"], "x"),
])
def test_preview_bad_arguments_exit_2(engine, capsys, extra, message):
    assert run(["skills", "preview", "demo", *extra], engine) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_preview_unknown_disabled_and_memory_tools(engine, capsys):
    assert run(["skills", "preview", "nope"], engine) == 2
    assert run(["skills", "preview", "off"], engine) == 2
    assert "disabled" in capsys.readouterr().err
    assert run(["skills", "preview", "memory_clear"], engine) == 2
    assert engine.tools._memory.calls == []


def test_coerce_value():
    assert coerce_value("k", "5", {"type": ["integer", "string"]}) == 5
    assert coerce_value("k", "five", {"type": ["integer", "string"]}) == "five"
    assert coerce_value("k", "off", {"type": "boolean"}) is False
    assert coerce_value("k", "null", {"type": ["null", "string"]}) is None
    assert coerce_value("k", "007", {}) == "007"
    with pytest.raises(ValueError):
        coerce_value("k", "[1]", {"type": "object"})
