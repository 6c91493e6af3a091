"""Level three of progressive disclosure: a skill tool's `file` argument, and nothing outside the folder."""
from __future__ import annotations

import os

import pytest

from kiraos_desktop.core.skills import SkillRouter
from kiraos_desktop.core.skills import skill_files
from kiraos_desktop.core.tool_registry import FILE_ARGUMENT, ToolArgumentError, ToolRegistry
from skills_helpers import FakeMemory, manifest, params, write_skill

SECRET = "TOP-SECRET-CONTENT"


@pytest.fixture
def tools(tmp_path):
    (tmp_path / "secret.txt").write_text(SECRET, encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.md").write_text(SECRET, encoding="utf-8")
    skills = tmp_path / "skills"
    folder = write_skill(skills, "tarot", manifest("tarot", parameters=params(["question"], question="string")),
                         "Ask {question}; see references/cards.md")
    (folder / "references").mkdir()
    (folder / "references" / "cards.md").write_text("愚者、魔术师\r\n", encoding="utf-8")
    (folder / "references" / "a b%20c.md").write_text("spaces", encoding="utf-8")
    (folder / "assets").mkdir()
    (folder / "assets" / "card.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (folder / "assets" / "latin1.txt").write_bytes("café".encode("latin-1"))
    (folder / "link-out.md").symlink_to(tmp_path / "secret.txt")
    (folder / "dir-out").symlink_to(outside, target_is_directory=True)
    (folder / "link-in.md").symlink_to(folder / "references" / "cards.md")
    (folder / ".env").write_text(SECRET, encoding="utf-8")
    (folder / "refs" / ".git").mkdir(parents=True)
    (folder / "refs" / ".git" / "config").write_text(SECRET, encoding="utf-8")
    write_skill(skills, "own", manifest("own", parameters=params(file="string")), "File {file}")
    return ToolRegistry(FakeMemory(), SkillRouter(skills), lambda user, n: "")


def test_every_skill_tool_offers_an_optional_file_argument(tools):
    for fmt, key in (("openai", ("function", "parameters")), ("anthropic", ("input_schema",)),
                     ("mcp", ("inputSchema",))):
        for tool in tools.list_tools(fmt)[3:]:
            schema = tool
            for part in key:
                schema = schema[part]
            assert schema["properties"][FILE_ARGUMENT]["type"] == "string"
            assert FILE_ARGUMENT not in schema.get("required", [])
    assert "file" not in tools.list_tools("openai")[0]["function"]["parameters"]["properties"]


def test_file_returns_the_text_of_the_file(tools):
    result = tools.call("tarot", "u1", {"file": "references/cards.md"})
    assert (result.is_error, result.content) == (False, "愚者、魔术师\n")
    assert tools.call("tarot", "u1", {"file": "./references//cards.md", "question": "q"}).content == "愚者、魔术师\n"
    assert tools.call("tarot", "u1", {"file": "link-in.md"}).content == "愚者、魔术师\n"
    assert tools.call("tarot", "u1", {"file": "references/a b%20c.md"}).content == "spaces"
    normal = tools.call("tarot", "u1", {"question": "q"})
    assert not normal.is_error and "<skill name=\"tarot\">" in normal.content


def test_other_arguments_keep_their_types_in_file_mode(tools):
    with pytest.raises(ToolArgumentError) as caught:
        tools.call("tarot", "u1", {"file": "references/cards.md", "question": 3})
    assert caught.value.field == "question"
    with pytest.raises(ToolArgumentError):
        tools.call("tarot", "u1", {"file": 5})


def test_a_skill_that_declares_its_own_file_parameter_keeps_it(tools):
    result = tools.call("own", "u1", {"file": "references/cards.md"})
    assert not result.is_error and "File <user_input>references/cards.md</user_input>" in result.content


@pytest.mark.parametrize("path", [
    "../secret.txt", "references/../../secret.txt", "references/../..", "..",
    "%2e%2e/secret.txt", "%2E%2E%2Fsecret.txt", "%252e%252e%252fsecret.txt", "references%2f..%2f..%2fsecret.txt",
    "..\\secret.txt", "references\\..\\..\\secret.txt", "C:\\secret.txt", "c:/secret.txt", "\\\\server\\share\\x",
    "link-out.md", "dir-out/notes.md", "~/secret.txt", "references/cards.md\x00.png", ".env", "refs/.git/config",
])
def test_traversal_attempts_return_an_error_and_no_content(tools, tmp_path, path):
    result = tools.call("tarot", "u1", {"file": path})
    assert result.is_error and SECRET not in result.content
    assert result.content.startswith("技能 tarot 无法读取文件 ")


def test_absolute_paths_are_refused_even_inside_the_folder(tools, tmp_path):
    for path in (str(tmp_path / "secret.txt"), str(tmp_path / "skills" / "tarot" / "references" / "cards.md")):
        result = tools.call("tarot", "u1", {"file": path})
        assert result.is_error and SECRET not in result.content and "relative" in result.content


@pytest.mark.parametrize("path, message", [
    ("references/missing.md", "there is no file"),
    ("references", "is a folder"),
    ("assets/card.png", "binary"),
    ("assets/latin1.txt", "not UTF-8"),
    ("", "name a file"),
])
def test_unreadable_files_give_clear_errors(tools, path, message):
    result = tools.call("tarot", "u1", {"file": path})
    assert result.is_error and message in result.content


def test_oversized_files_are_refused(tools, tmp_path, monkeypatch):
    monkeypatch.setattr(skill_files, "MAX_SKILL_FILE_BYTES", 10)
    result = tools.call("tarot", "u1", {"file": "references/cards.md"})
    assert result.is_error and "KiB a skill file may have" in result.content and "愚者" not in result.content


def test_a_link_swapped_in_after_the_check_is_not_followed(tmp_path, monkeypatch):
    folder = tmp_path / "skill"
    folder.mkdir()
    (tmp_path / "secret.txt").write_text(SECRET)
    (folder / "a.md").write_text("fine")
    real_resolve = skill_files.resolve_skill_file

    def resolve_then_swap(base, path):
        target = real_resolve(base, path)
        os.remove(target)
        os.symlink(tmp_path / "secret.txt", target)
        return target

    monkeypatch.setattr(skill_files, "resolve_skill_file", resolve_then_swap)
    with pytest.raises(skill_files.SkillFileReadError):
        skill_files.read_skill_file(folder, "a.md")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    import threading

    folder = tmp_path / "skill"
    folder.mkdir()
    os.mkfifo(folder / "pipe.md")
    outcome: list = []

    def read():
        try:
            skill_files.read_skill_file(folder, "pipe.md")
        except skill_files.SkillFileReadError as exc:
            outcome.append(str(exc))

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(10)
    try:
        assert outcome and "not a regular file" in outcome[0], "the file argument blocked on a named pipe"
    finally:
        try:  # let a reader still blocked in open() go
            os.close(os.open(folder / "pipe.md", os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
