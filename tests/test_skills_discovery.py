"""Discovery and validation: every problem kind is reported as data and never stops other skills."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from kiraos_desktop.core.skills import (
    SkillRouter,
    validate_manifest_text,
    validate_skill_folder,
    validate_skill_texts,
)
from kiraos_desktop.core.skills import discovery
from skills_helpers import manifest, params, problems_of, write_skill


def good(root):
    write_skill(root, "zz_good", manifest("good", command="/good", parameters=params(["q"], q="string")),
                "Answer {q}.")


def assert_good_loaded(router):
    skill = router.get("good")
    assert skill is not None and skill.valid and skill.problems == []
    assert "good" in [s.name for s in router.enabled_skills()]


CASES = {
    "bad_json": (lambda r: write_skill(r, "a", '{\n  "name": "a",\n  "description": oops\n}'),
                 "manifest", "error", 3),
    "not_object": (lambda r: write_skill(r, "a", '["a"]'), "manifest", "error", 1),
    "empty_manifest": (lambda r: write_skill(r, "a", ""), "manifest", "error", None),
    "missing_name": (lambda r: write_skill(r, "a", {"description": "x"}), "name", "error", None),
    "name_not_string": (lambda r: write_skill(r, "a", {"name": 5, "description": "x"}), "name", "error", 2),
    "invalid_name": (lambda r: write_skill(r, "a", manifest("has space")), "name", "error", 2),
    "long_name": (lambda r: write_skill(r, "a", manifest("x" * 65)), "name", "error", 2),
    "reserved_name": (lambda r: write_skill(r, "a", manifest("memory_query")), "name", "error", 2),
    "parameters_not_object": (lambda r: write_skill(r, "a", manifest("a", parameters=["q"])),
                              "parameters", "error", 5),
    "parameters_bad_schema": (lambda r: write_skill(r, "a", manifest("a", parameters={
        "type": "object", "properties": {"q": {"type": "strng"}}})), "parameters.properties.q.type", "error", None),
    "parameters_not_object_type": (lambda r: write_skill(r, "a", manifest("a", parameters={
        "type": "string"})), "parameters.type", "error", None),
    "required_undeclared": (lambda r: write_skill(r, "a", manifest("a", parameters=params(["ghost"], q="string")),
                                                  "{q}"), "parameters.required", "error", None),
    "command_without_slash": (lambda r: write_skill(r, "a", manifest("a", command="tarot")), "command", "error", 5),
    "command_two_words": (lambda r: write_skill(r, "a", manifest("a", command="/a b")), "command", "error", 5),
    "command_not_string": (lambda r: write_skill(r, "a", manifest("a", command=7)), "command", "error", 5),
    "bad_template": (lambda r: write_skill(r, "a", manifest("a", template="mustache")), "template", "error", 5),
    "text_field_not_string": (lambda r: write_skill(r, "a", manifest("a", exclude=["x"])), "exclude", "error", 5),
    "missing_manifest": (lambda r: write_skill(r, "a", False), "manifest", "error", None),
    "missing_instruction": (lambda r: write_skill(r, "a", instruction=None), "instruction", "error", None),
    "empty_instruction": (lambda r: write_skill(r, "a", instruction="  \n\n"), "instruction", "error", None),
    "oversized_instruction": (lambda r: write_skill(r, "a", instruction="x" * (256 * 1024 + 1)),
                              "instruction", "error", None),
    "non_utf8_instruction": (lambda r: write_skill(r, "a", instruction=b"ok\nstill ok\n\xff\xfe bad"),
                             "instruction", "error", 3),
    "non_utf8_manifest": (lambda r: write_skill(r, "a", b'{"name": "a",\n "description": "\xe9t\xe9"}'),
                          "manifest", "error", 2),
    "instruction_is_folder": (lambda r: (write_skill(r, "a", instruction=None), os.mkdir(r / "a" / "instruction.md")),
                              "instruction", "error", None),
    "jinja_syntax": (lambda r: write_skill(r, "a", manifest("a", template="jinja2"), "ok\n{% if %}"),
                     "instruction", "error", 2),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_error_kind_is_reported_and_others_still_load(tmp_path, kind):
    build, field, severity, line = CASES[kind]
    good(tmp_path)
    build(tmp_path)
    router = SkillRouter(tmp_path)
    broken = [s for s in router.skills() if s.folder.name == "a"]
    assert len(broken) == 1
    skill = broken[0]
    found = problems_of(skill, field, severity)
    assert found, f"{kind}: expected a {severity} on {field}, got {skill.problems}"
    if line is not None:
        assert found[0].line == line
    assert not skill.valid
    assert skill.name not in [s.name for s in router.enabled_skills()]
    for problem in skill.problems:
        assert len(problem.message) > 20 and problem.message.rstrip().endswith((".", ")"))
    assert_good_loaded(router)


WARNINGS = {
    "undeclared_placeholder": (lambda r: write_skill(r, "a", manifest("a"), "line\n{ghost}"),
                               "instruction", 2),
    "unused_parameter": (lambda r: write_skill(r, "a", manifest("a", parameters=params(q="string")), "no use"),
                         "parameters.properties.q", None),
    "unknown_field": (lambda r: write_skill(r, "a", manifest("a", version="1.0")), "version", 5),
    "no_description": (lambda r: write_skill(r, "a", {"name": "a"}), "description", None),
    "jinja_undeclared_variable": (lambda r: write_skill(r, "a", manifest("a", template="jinja2"),
                                                        "x\n{% if mood %}y{% endif %}"), "instruction", 2),
}


@pytest.mark.parametrize("kind", sorted(WARNINGS))
def test_warnings_keep_the_skill_valid(tmp_path, kind):
    build, field, line = WARNINGS[kind]
    good(tmp_path)
    build(tmp_path)
    router = SkillRouter(tmp_path)
    skill = router.get("a")
    found = problems_of(skill, field, "warning")
    assert found, skill.problems
    assert found[0].line == line
    assert skill.valid and skill in router.enabled_skills()
    assert_good_loaded(router)


def test_symlink_loop_folder_and_file(tmp_path):
    good(tmp_path)
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    write_skill(tmp_path, "b", instruction=None)
    os.symlink(tmp_path / "b" / "instruction.md", tmp_path / "b" / "instruction.md")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    router = SkillRouter(tmp_path)
    by_folder = {s.folder.name: s for s in router.skills()}
    assert problems_of(by_folder["loop"], "folder", "error")
    assert problems_of(by_folder["dangling"], "folder", "error")
    [problem] = problems_of(by_folder["b"], "instruction", "error")
    assert "loop" in problem.message
    assert_good_loaded(router)


def test_a_symlinked_skill_folder_is_listed_with_an_error_and_never_served(tmp_path):
    # DESIGN 13: nothing outside the skills folder, links included (its `file` argument read under
    # the link's target, anywhere on the disk).
    elsewhere = tmp_path / "elsewhere"
    write_skill(elsewhere, "real", manifest("linked"))
    skills = tmp_path / "skills"
    skills.mkdir()
    os.symlink(elsewhere / "real", skills / "linked")
    router = SkillRouter(skills)
    [skill] = router.skills()
    [problem] = problems_of(skill, "folder", "error")
    assert "symbolic link" in problem.message
    assert not skill.valid and router.enabled_skills() == [] and router.get("linked") is None


def test_folder_vanishing_mid_scan(tmp_path, monkeypatch):
    good(tmp_path)
    write_skill(tmp_path, "b_gone")
    write_skill(tmp_path, "c_half")
    original_load = discovery.load_skill_folder
    original_instruction = discovery.load_instruction

    def load(folder):
        if folder.name == "b_gone":
            shutil.rmtree(folder)
        return original_load(folder)

    def load_instruction(path, manifest_data):
        if path.parent.name == "c_half":
            shutil.rmtree(path.parent)
        return original_instruction(path, manifest_data)

    monkeypatch.setattr(discovery, "load_skill_folder", load)
    monkeypatch.setattr(discovery, "load_instruction", load_instruction)
    router = SkillRouter(tmp_path)
    names = [s.folder.name for s in router.skills()]
    assert "b_gone" not in names
    half = router.get("c_half")
    assert half is not None and problems_of(half, "instruction", "error")
    assert_good_loaded(router)


def test_unexpected_exception_in_one_folder_does_not_stop_others(tmp_path, monkeypatch):
    good(tmp_path)
    write_skill(tmp_path, "boom")
    original = discovery.load_skill_folder

    def load(folder):
        if folder.name == "boom":
            raise RuntimeError("bug")
        return original(folder)

    monkeypatch.setattr(discovery, "load_skill_folder", load)
    router = SkillRouter(tmp_path)
    boom = [s for s in router.skills() if s.folder.name == "boom"][0]
    assert not boom.valid
    assert_good_loaded(router)


def test_hidden_underscore_and_plain_files_are_skipped(tmp_path):
    good(tmp_path)
    write_skill(tmp_path, "_draft", manifest("draft"))
    write_skill(tmp_path, ".hidden", manifest("hidden"))
    (tmp_path / "notes.txt").write_text("x")
    router = SkillRouter(tmp_path)
    assert [s.name for s in router.skills()] == ["good"]


def test_missing_or_file_skills_dir_gives_no_skills(tmp_path):
    assert SkillRouter(tmp_path / "absent").skills() == []
    (tmp_path / "file").write_text("x")
    assert SkillRouter(tmp_path / "file").skills() == []


def test_duplicates_first_in_folder_order_wins(tmp_path):
    write_skill(tmp_path, "a1", manifest("same", command="/one"), "first")
    write_skill(tmp_path, "a2", manifest("same", command="/two"), "second")
    write_skill(tmp_path, "b1", manifest("other", command="/one"), "third")
    write_skill(tmp_path, "b2", manifest("third", command="/three"), "fourth")
    router = SkillRouter(tmp_path)
    skills = {s.folder.name: s for s in router.skills()}
    assert [s.folder.name for s in router.skills()] == ["a1", "a2", "b1", "b2"]
    assert skills["a1"].valid
    assert problems_of(skills["a2"], "name", "error") and "a1" in skills["a2"].problems[0].message
    assert problems_of(skills["b1"], "command", "error")
    assert skills["b2"].valid
    assert router.get("same").folder.name == "a1"
    assert router.instruction("same") == "first"
    assert [s.name for s in router.enabled_skills()] == ["same", "third"]
    assert router.match_command("/two hi") is None
    assert router.match_command("/one hi").skill == "same"


def test_bom_and_crlf_are_accepted(tmp_path):
    write_skill(tmp_path, "a", "\ufeff" + json.dumps(manifest("a", parameters=params(q="string"))),
                b"line1\r\nuse {q}\r\n")
    router = SkillRouter(tmp_path)
    skill = router.get("a")
    assert skill.valid and skill.problems == []
    assert router.instruction("a") == "line1\nuse {q}\n"


def test_validate_skill_folder_alone(tmp_path):
    folder = write_skill(tmp_path, "a", manifest("a", parameters=params(["q"], q="string")), "{q}")
    skill, problems = validate_skill_folder(folder)
    assert skill.name == "a" and skill.command is None and problems == []
    assert skill.parameters["required"] == ["q"]
    skill, problems = validate_skill_folder(tmp_path / "nope")
    assert skill is None and problems[0].field == "folder" and problems[0].severity == "error"


def test_broken_manifest_skill_uses_folder_name(tmp_path):
    write_skill(tmp_path, "broken_one", "{")
    skill, _ = validate_skill_folder(tmp_path / "broken_one")
    assert skill.name == "broken_one" and not skill.valid


def test_validate_manifest_text_on_unsaved_text():
    data, problems = validate_manifest_text('{"name": "ok", "trigger": "t"}')
    assert data == {"name": "ok", "trigger": "t"} and problems == []
    data, problems = validate_manifest_text('{"name": "bad name", "trigger": "t"}')
    assert data["name"] == "bad name" and problems[0].field == "name"
    data, problems = validate_manifest_text("{\n\n,}")
    assert data is None and problems[0].line == 3
    data, problems = validate_manifest_text("[" * 100000)
    assert data is None and problems[0].severity == "error"


def test_problems_never_raise_on_odd_schemas(tmp_path):
    odd = [{"$schema": "http://example.com/unknown", "type": "object"},
           {"type": "object", "properties": {"q": {"$ref": "http://example.com/x.json"}}},
           {"type": "object", "properties": "nope"},
           {"type": "object", "required": "q"}]
    good(tmp_path)
    for i, schema in enumerate(odd):
        write_skill(tmp_path, f"odd{i}", manifest(f"odd{i}", parameters=schema))
    router = SkillRouter(tmp_path)
    assert len(router.skills()) == len(odd) + 1
    for i in (0, 2, 3):
        skill = router.get(f"odd{i}")
        assert not skill.valid and skill.errors[0].field.startswith("parameters")
    assert router.get("odd1").valid  # a remote $ref is legal; it fails when called (see router tests)
    assert_good_loaded(router)


def test_validate_skill_texts_for_an_editor():
    text = json.dumps(manifest("draft", parameters=params(["q"], q="string")))
    data, problems = validate_skill_texts(text, "use {q}")
    assert data["name"] == "draft" and problems == []
    _, problems = validate_skill_texts(text, "no use {other}")
    assert sorted(p.field for p in problems) == ["instruction", "parameters.properties.q"]
    _, problems = validate_skill_texts("{", "")
    assert [p.field for p in problems] == ["manifest", "instruction"]


def _scan_within(seconds: float, run):
    """run() in a thread; fails (instead of hanging the suite) when it does not return in time."""
    import threading

    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(run()), daemon=True)
    worker.start()
    worker.join(seconds)
    return outcome


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("name", ["manifest.json", "instruction.md"])
def test_a_named_pipe_in_a_skill_folder_is_an_error_not_a_hang(tmp_path, name):
    good(tmp_path)
    folder = write_skill(tmp_path, "a", manifest("a"), "Do it.")
    os.remove(folder / name)
    os.mkfifo(folder / name)
    try:
        outcome = _scan_within(10, lambda: SkillRouter(tmp_path))
        assert outcome, "reading a named pipe blocked the scan of the skills folder"
        router = outcome[0]
        [broken] = [s for s in router.skills() if s.folder.name == "a"]
        assert not broken.valid
        assert any("not a regular file" in p.message for p in broken.problems), broken.problems
        assert_good_loaded(router)
    finally:
        try:  # let a reader still blocked in open() go
            os.close(os.open(folder / name, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
