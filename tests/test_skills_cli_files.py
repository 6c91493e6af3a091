"""`skills new | rename | delete` through the CLI entry point, on a real data dir (no Qt)."""
from __future__ import annotations

import json

import pytest

from kiraos_desktop import cli
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.settings import load_settings
from kiraos_desktop.core.skills import SkillRouter, file_ops
from skills_helpers import manifest, write_skill


@pytest.fixture
def data(tmp_path):
    root = tmp_path / "data"
    Engine.open(data_dir=root, install_examples=False).close()
    write_skill(root / "skills", "alpha", manifest("alpha", command="/alpha"), "A")
    write_skill(root / "skills", "beta", manifest("beta"), "B")
    return root


def run(data, *argv) -> int:
    return cli.main(["skills", *argv, "--data-dir", str(data)])


def folders(data) -> list[str]:
    return sorted(p.name for p in (data / "skills").iterdir())


def read_manifest(data, folder) -> dict:
    return json.loads((data / "skills" / folder / "manifest.json").read_text(encoding="utf-8"))


def test_new_creates_a_disabled_skill_from_the_template_that_no_host_sees(data, capsys):
    assert run(data, "new", "fresh") == 0
    out = capsys.readouterr().out
    assert "created" in out and "disabled" in out
    skill = SkillRouter(data / "skills").get("fresh")
    assert skill is not None and skill.command == "/fresh" and not skill.valid  # the template's …… texts
    assert read_manifest(data, "fresh")["name"] == "fresh"
    assert "fresh" in load_settings(data / "settings.json")[0].disabled_skills
    engine = Engine.open(data_dir=data)
    try:
        assert "fresh" not in [d.name for d in engine.tools.descriptors()]
    finally:
        engine.close()
    assert cli.main(["skills", "lint", "--data-dir", str(data)]) != 0
    assert "still the template" in capsys.readouterr().out


@pytest.mark.parametrize("name, message", [
    ("alpha", "already named 'alpha'"),
    ("has space", "not a valid skill name"),
    ("_hidden", "not a valid skill name"),
    ("memory_update", "reserved"),
    ("ALPHA", "already has an entry named 'ALPHA'"),
])
def test_new_refuses_an_unusable_name_and_creates_nothing(data, capsys, name, message):
    before = folders(data)
    assert run(data, "new", name) == 2
    assert message in capsys.readouterr().err
    assert folders(data) == before


def test_rename_renames_the_skill_and_its_folder(data, capsys):
    assert run(data, "rename", "alpha", "gamma") == 0
    assert folders(data) == ["beta", "gamma"]
    assert read_manifest(data, "gamma")["name"] == "gamma"
    assert read_manifest(data, "gamma")["command"] == "/alpha"  # like the workbench: only the name changes
    assert "renamed alpha to gamma" in capsys.readouterr().out


def test_rename_keeps_a_disabled_skill_disabled(data):
    engine = Engine.open(data_dir=data)
    try:
        engine.update_settings(engine.settings.replace(disabled_skills=["beta", "other"]))
    finally:
        engine.close()
    assert run(data, "rename", "beta", "delta") == 0
    settings, _unknown = load_settings(data / "settings.json")
    assert settings.disabled_skills == ["delta", "other"]


def test_rename_to_its_own_name_moves_only_the_folder(data, capsys):
    write_skill(data / "skills", "folder_x", manifest("named_y"), "Y")
    assert run(data, "rename", "named_y", "named_y") == 0
    assert "named_y" in folders(data) and "folder_x" not in folders(data)
    assert run(data, "rename", "named_y", "named_y") == 0
    assert "already has that name" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["rename", "alpha", "beta"], "already named 'beta'"),
    (["rename", "alpha", "bad name"], "not a valid skill name"),
    (["rename", "nope", "other"], "no skill named 'nope'"),
    (["delete", "nope"], "no skill named 'nope'"),
])
def test_bad_rename_or_delete_changes_nothing(data, capsys, argv, message):
    before = folders(data)
    assert run(data, *argv) == 2
    assert message in capsys.readouterr().err
    assert folders(data) == before and read_manifest(data, "alpha")["name"] == "alpha"


@pytest.mark.parametrize("manifest_bytes, message", [
    (b'{"name": "broken",', "manifest.json is not valid JSON"),
    (b'{"name": "broken", "description": "caf\xe9"}', "manifest.json is not UTF-8 text"),
    (b'["broken"]', "must hold a JSON object"),
])
def test_rename_of_a_skill_whose_manifest_cannot_be_read_says_to_fix_it(data, capsys, manifest_bytes, message):
    write_skill(data / "skills", "broken", manifest_bytes, "x")
    before = folders(data)
    assert run(data, "rename", "broken", "fixed") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "skills lint" in err and "Error:" not in err
    assert folders(data) == before


def test_rename_of_an_agent_skills_folder_says_how_to_rename_it(data, capsys):
    folder = data / "skills" / "pdf"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: pdf\ndescription: d\n---\nbody\n", encoding="utf-8")
    assert SkillRouter(data / "skills").get("pdf").valid
    assert run(data, "rename", "pdf", "pdf-tools") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SKILL.md" in err and "FileNotFoundError" not in err
    assert (folder / "SKILL.md").is_file() and not (data / "skills" / "pdf-tools").exists()


def test_a_failed_rename_exits_1_and_leaves_the_skill_as_it_was(data, capsys, monkeypatch):
    def failing_stage(*_args):
        raise OSError("disk full")

    monkeypatch.setattr(file_ops, "_stage", failing_stage)
    assert run(data, "rename", "alpha", "gamma") == 1
    assert "disk full" in capsys.readouterr().err
    assert folders(data) == ["alpha", "beta"] and read_manifest(data, "alpha")["name"] == "alpha"


def test_delete_moves_the_folder_to_the_backups_without_asking(data, capsys):
    assert run(data, "delete", "alpha") == 0
    assert folders(data) == ["beta"]
    moved = list((data / "backups" / file_ops.DELETED_SKILLS).iterdir())
    assert [p.name.startswith("alpha-") for p in moved] == [True]
    assert json.loads((moved[0] / "manifest.json").read_text(encoding="utf-8"))["name"] == "alpha"
    assert str(moved[0]) in capsys.readouterr().out


def test_delete_finds_a_skill_by_folder_when_its_manifest_is_broken(data):
    write_skill(data / "skills", "broken", "{not json", "x")
    assert run(data, "delete", "broken") == 0
    assert "broken" not in folders(data)


def test_delete_needs_an_explicit_name(data, capsys):
    with pytest.raises(SystemExit) as stop:
        run(data, "delete")
    assert stop.value.code == 2
    assert folders(data) == ["alpha", "beta"]


def test_new_that_cannot_create_the_folder_leaves_the_settings_as_they_were(data, capsys, monkeypatch):
    def refuse(*_args, **_kwargs):
        raise file_ops.SkillFileError("cannot create it: disk full")

    monkeypatch.setattr(file_ops, "create_skill", refuse)
    assert run(data, "new", "fresh") == 1
    assert "disk full" in capsys.readouterr().err
    assert "fresh" not in load_settings(data / "settings.json")[0].disabled_skills
