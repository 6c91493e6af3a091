"""Import of Agent Skills folders/archives and export of skills as SKILL.md folders."""
from __future__ import annotations

import io
import json
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from skills_ref.validator import validate

from agent_skills_helpers import pdf_skill, snapshot, unicode_skill, write_agent_skill, zip_folder
from kiraos_desktop.cli.skills import run_skills, standalone_parser
from kiraos_desktop.core.skills import SkillRouter, bundled_skills_dir
from kiraos_desktop.core.skills import archive as archive_module
from kiraos_desktop.core.skills.agent_format import REQUEST_LINE
from kiraos_desktop.core.skills.agent_io import (
    NameClashError,
    SkillTransferError,
    UnusableNameError,
    export_skill,
    import_skill,
)
from kiraos_desktop.core.tool_registry import ToolRegistry
from skills_helpers import FakeMemory, manifest, params, write_skill

BUNDLED = sorted(p.name for p in bundled_skills_dir().iterdir() if (p / "manifest.json").is_file())


@pytest.fixture
def skills_dir(tmp_path):
    path = tmp_path / "skills"
    write_skill(path, "existing", manifest("existing"), "x")
    return path


def registry(skills_dir: Path) -> ToolRegistry:
    return ToolRegistry(FakeMemory(), SkillRouter(skills_dir), lambda user, n: "")


# ----------------------------------------------------------------------------- import

def test_import_folder_with_references_and_scripts(tmp_path, skills_dir):
    source = pdf_skill(tmp_path / "src")
    result = import_skill(source, skills_dir)
    assert result.name == "pdf-processing" and result.folder == skills_dir / "pdf-processing"
    assert not result.restored and not result.replaced
    data = json.loads((result.folder / "manifest.json").read_text(encoding="utf-8"))
    assert data["name"] == "pdf-processing"
    assert data["description"].startswith("Extract text and tables from PDF files") and "\n" not in data["description"]
    assert data["parameters"] == {"type": "object", "properties": {
        "request": {"type": "string", "description": "用户的具体请求（可选）"}}}
    instruction = (result.folder / "instruction.md").read_text(encoding="utf-8")
    assert instruction.startswith("# PDF processing\n") and instruction.endswith(REQUEST_LINE + "\n")
    for relative in ("references/REFERENCE.md", "scripts/extract.py", "assets/logo.png"):
        assert (result.folder / relative).read_bytes() == (source / relative).read_bytes()
    assert not (result.folder / "SKILL.md").exists()
    assert sorted(p.name for p in skills_dir.iterdir()) == ["existing", "pdf-processing"]  # staging gone

    tools = registry(skills_dir)
    skill = tools.skills.get("pdf-processing")
    assert skill.valid and skill.problems == []
    result = tools.call("pdf-processing", "u1", {"request": "合并 a.pdf 和 b.pdf"})
    assert not result.is_error and "用户请求：<user_input>合并 a.pdf 和 b.pdf</user_input>" in result.content
    assert tools.call("pdf-processing", "u1", {"file": "references/REFERENCE.md"}).content == \
        "# Form fields\n\nname, date, signature\n"


def test_import_unicode_description_from_zip_and_skill_archives(tmp_path, skills_dir):
    source = unicode_skill(tmp_path / "src")
    for archive, top in ((tmp_path / "a.zip", True), (tmp_path / "b.skill", False)):
        zip_folder(source, archive, top=top)
        result = import_skill(archive, skills_dir, replace=True, backups_dir=tmp_path / "backups")
        data = json.loads((result.folder / "manifest.json").read_text(encoding="utf-8"))
        assert data["description"] == "数据分析助手：读取表格、计算统计量并画图 📊。用户提到「分析」「统计」或上传 CSV 时使用。"
        assert (result.folder / "references" / "统计方法.md").read_text(encoding="utf-8") == "均值、中位数、标准差。\n"
    assert SkillRouter(skills_dir).get("data-analysis").valid


def test_name_clash_fails_and_changes_nothing_then_replace_or_rename(tmp_path, skills_dir):
    source = write_agent_skill(tmp_path / "src", "existing", "---\nname: existing\ndescription: new one\n---\nNew.\n")
    before = snapshot(skills_dir)
    with pytest.raises(NameClashError) as caught:
        import_skill(source, skills_dir)
    assert caught.value.name == "existing" and caught.value.folder == skills_dir / "existing"
    assert snapshot(skills_dir) == before

    renamed = import_skill(source, skills_dir, name="existing_2")
    assert renamed.folder == skills_dir / "existing_2"
    assert json.loads((renamed.folder / "manifest.json").read_text())["name"] == "existing_2"

    old_instruction = (skills_dir / "existing" / "instruction.md").read_text()
    replaced = import_skill(source, skills_dir, replace=True, backups_dir=tmp_path / "backups")
    assert replaced.replaced and replaced.folder == skills_dir / "existing"
    assert (replaced.folder / "instruction.md").read_text().startswith("New.")
    assert sorted(p.name for p in skills_dir.iterdir()) == ["existing", "existing_2"]
    # The replaced skill is kept where a deleted one goes, under its folder's name.
    assert replaced.backup.parent == tmp_path / "backups" / "deleted-skills"
    assert replaced.backup.name.startswith("existing-")
    assert (replaced.backup / "instruction.md").read_text() == old_instruction


def test_a_replace_whose_old_skill_cannot_reach_the_backups_changes_nothing(tmp_path, skills_dir):
    source = write_agent_skill(tmp_path / "src", "existing", "---\nname: existing\ndescription: new one\n---\nNew.\n")
    blocked = tmp_path / "backups"
    blocked.write_text("a file where the backups folder would be")
    before = snapshot(skills_dir)
    with pytest.raises(SkillTransferError, match="backups.*nothing was replaced"):
        import_skill(source, skills_dir, replace=True, backups_dir=blocked)
    assert snapshot(skills_dir) == before
    with pytest.raises(ValueError, match="backups folder"):
        import_skill(source, skills_dir, replace=True)
    assert snapshot(skills_dir) == before


def test_a_folder_taken_by_another_skill_gets_a_free_name(tmp_path, skills_dir):
    write_skill(skills_dir, "pdf-processing", manifest("something_else"), "x")
    result = import_skill(pdf_skill(tmp_path / "src"), skills_dir)
    assert result.folder == skills_dir / "pdf-processing_2"


def test_a_folder_differing_only_in_case_is_not_taken_either(tmp_path, skills_dir):
    # "Existing" next to "existing" is one folder on Windows and macOS: the copied folder would clash.
    source = write_agent_skill(tmp_path / "src", "d", "---\nname: Existing\ndescription: d\n---\nbody\n")
    result = import_skill(source, skills_dir)
    assert result.name == "Existing" and result.folder == skills_dir / "Existing_2"
    assert sorted(p.name for p in skills_dir.iterdir()) == ["Existing_2", "existing"]
    router = SkillRouter(skills_dir)
    assert router.get("Existing").valid and router.get("existing").valid


def test_cli_import_clash_exits_2(tmp_path, skills_dir, capsys):
    source = pdf_skill(tmp_path / "src")
    engine = SimpleNamespace(skills=SkillRouter(skills_dir))
    args = standalone_parser().parse_args(["skills", "import", str(source)])
    assert run_skills(args, engine) == 0
    assert "imported skill 'pdf-processing'" in capsys.readouterr().out
    assert engine.skills.get("pdf-processing") is not None
    before = snapshot(skills_dir)
    assert run_skills(args, engine) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--replace" in err and "--name" in err
    assert snapshot(skills_dir) == before

    engine.paths = SimpleNamespace(backups_dir=tmp_path / "backups")
    args = standalone_parser().parse_args(["skills", "import", str(source), "--replace"])
    assert run_skills(args, engine) == 0
    out = capsys.readouterr().out
    assert "replacing the previous one, moved to" in out and str(tmp_path / "backups" / "deleted-skills") in out


def _zip(path: Path, entries: list[tuple], compression=zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as handle:
        for entry in entries:
            name, data = entry[0], entry[1]
            info = zipfile.ZipInfo(name)
            info.compress_type = compression
            if len(entry) > 2:
                info.external_attr = entry[2] << 16
            handle.writestr(info, data)
    return path


GOOD_MD = "---\nname: good\ndescription: d\n---\nbody\n"


def _bad_archives(tmp_path: Path) -> dict[str, Path]:
    bomb_size = archive_module.MAX_RATIO * 4096
    cases = {
        "not a readable zip": tmp_path / "plain.zip",
        "points outside": _zip(tmp_path / "slip.zip", [("good/SKILL.md", GOOD_MD), ("../evil.md", "evil")]),
        "absolute path": _zip(tmp_path / "abs.zip", [("good/SKILL.md", GOOD_MD),
                                                     (str(tmp_path / "evil.md"), "evil")]),
        "uses '\\'": _zip(tmp_path / "win.zip", [("good/SKILL.md", GOOD_MD), ("good\\..\\..\\evil.md", "evil")]),
        "drive letter": _zip(tmp_path / "drive.zip", [("good/SKILL.md", GOOD_MD), ("C:/evil.md", "evil")]),
        "symbolic link": _zip(tmp_path / "link.zip", [("good/SKILL.md", GOOD_MD),
                                                      ("good/link", "/etc/passwd", stat.S_IFLNK | 0o777)]),
        "zip bomb": _zip(tmp_path / "bomb.zip", [("good/SKILL.md", GOOD_MD), ("good/big.txt", b"\0" * (bomb_size * 8))]),
        "no SKILL.md": _zip(tmp_path / "empty.zip", [("good/README.md", "hi")]),
        "not valid YAML": _zip(tmp_path / "yaml.zip", [("good/SKILL.md", "---\nname: [good\n---\nbody")]),
        "twice": _zip(tmp_path / "twice.zip", [("good/SKILL.md", GOOD_MD), ("good/a.md", "1"), ("good/a.md", "2")]),
        "damaged": tmp_path / "crc.zip",
        "its own manifest.json": _zip(tmp_path / "own.zip", [("good/SKILL.md", GOOD_MD), ("good/manifest.json", "{}")]),
        "cannot be a tool name": _zip(tmp_path / "uni.zip", [("数据/SKILL.md", "---\nname: 数据\ndescription: d\n---\nb")]),
    }
    (tmp_path / "plain.zip").write_bytes(b"this is not a zip")
    _zip(tmp_path / "crc.zip", [("good/SKILL.md", GOOD_MD), ("good/ref.md", "x" * 5000)], zipfile.ZIP_STORED)
    data = bytearray((tmp_path / "crc.zip").read_bytes())
    spot = bytes(data).index(b"x" * 100) + 50
    data[spot] = ord("y")
    (tmp_path / "crc.zip").write_bytes(bytes(data))
    return cases


def test_broken_archives_change_nothing(tmp_path, skills_dir):
    before = snapshot(skills_dir)
    with pytest.warns(UserWarning):  # zipfile warns about the duplicate name while writing it
        cases = _bad_archives(tmp_path)
    for message, archive in cases.items():
        with pytest.raises(SkillTransferError) as caught:
            import_skill(archive, skills_dir)
        assert message in str(caught.value), (archive.name, str(caught.value))
        assert snapshot(skills_dir) == before, archive.name
        assert not (tmp_path / "evil.md").exists() and not (tmp_path.parent / "evil.md").exists()


def test_oversized_file_in_archive_is_refused(tmp_path, skills_dir, monkeypatch):
    monkeypatch.setattr(archive_module, "MAX_FILE_BYTES", 1000)
    archive = _zip(tmp_path / "big.zip", [("good/SKILL.md", GOOD_MD), ("good/big.bin", bytes(range(256)) * 8)])
    before = snapshot(skills_dir)
    with pytest.raises(SkillTransferError, match="a skill file may have"):
        import_skill(archive, skills_dir)
    assert snapshot(skills_dir) == before


def test_lying_headers_do_not_get_past_the_size_limit(tmp_path, skills_dir, monkeypatch):
    monkeypatch.setattr(archive_module, "MAX_TOTAL_BYTES", 3000)
    payload = bytes(range(256)) * 20  # 5120 bytes that hardly compress
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as handle:
        handle.writestr("good/SKILL.md", GOOD_MD)
        handle.writestr("good/data.bin", payload)
    (tmp_path / "total.zip").write_bytes(buffer.getvalue())
    with pytest.raises(SkillTransferError, match="inflates to more than"):
        import_skill(tmp_path / "total.zip", skills_dir)


def test_folders_with_links_are_refused(tmp_path, skills_dir):
    source = pdf_skill(tmp_path / "src")
    (tmp_path / "secret.txt").write_text("secret")
    (source / "references" / "secret.md").symlink_to(tmp_path / "secret.txt")
    before = snapshot(skills_dir)
    with pytest.raises(SkillTransferError, match="symbolic link"):
        import_skill(source, skills_dir)
    assert snapshot(skills_dir) == before


# ----------------------------------------------------------------------------- export

@pytest.mark.parametrize("folder", BUNDLED)
def test_every_bundled_skill_exports_to_a_valid_agent_skill(tmp_path, folder):
    target = export_skill(bundled_skills_dir() / folder, tmp_path / "out")
    assert target.name == folder.replace("_", "-").lower()
    assert validate(target) == []
    text = (target / "SKILL.md").read_text(encoding="utf-8")
    assert text.startswith("---\nname: ") and "\n---\n" in text
    assert sorted(p.name for p in target.iterdir()) == ["SKILL.md"]


def test_the_reference_cli_accepts_an_export(tmp_path):
    target = export_skill(bundled_skills_dir() / BUNDLED[0], tmp_path)
    command = Path(sys.executable).parent / "agentskills"
    done = subprocess.run([str(command), "validate", str(target)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    broken = tmp_path / "broken"
    shutil.copytree(target, broken)
    done = subprocess.run([str(command), "validate", str(broken)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1  # the folder name no longer matches: the validator can fail


@pytest.mark.parametrize("folder", BUNDLED)
def test_export_then_import_gives_the_same_skill(tmp_path, folder):
    original = tmp_path / "original" / folder
    shutil.copytree(bundled_skills_dir() / folder, original)
    (original / "references").mkdir()
    (original / "references" / "notes.md").write_text("参考资料\n", encoding="utf-8")
    exported = export_skill(original, tmp_path / "out")
    assert (exported / "references" / "notes.md").read_text(encoding="utf-8") == "参考资料\n"
    result = import_skill(exported, tmp_path / "skills")
    assert result.restored
    for name in ("manifest.json", "instruction.md", "references/notes.md"):
        assert (result.folder / name).read_bytes() == (original / name).read_bytes(), name
    before = SkillRouter(tmp_path / "original").skills()[0]
    after = SkillRouter(tmp_path / "skills").skills()[0]
    assert (after.name, after.manifest, after.parameters) == (before.name, before.manifest, before.parameters)


def test_round_trip_of_awkward_manifests(tmp_path):
    data = manifest("Odd__Name-", description="a --- b \"q\" \\ \t" + "长" * 1500, trigger="---",
                    exclude="x\ny", command="/odd", parameters=params(["q"], q="string", n="integer"))
    original = write_skill(tmp_path / "original", "odd", data, "---\n{q} {n}\n\n\n---\n")
    exported = export_skill(original, tmp_path / "out")
    assert exported.name == "odd-name" and validate(exported) == []
    result = import_skill(exported, tmp_path / "skills")
    for name in ("manifest.json", "instruction.md"):
        assert (result.folder / name).read_bytes() == (original / name).read_bytes()


def test_export_refusals_write_nothing(tmp_path, capsys):
    broken = write_skill(tmp_path / "src", "broken", manifest("broken", parameters=[1]), "x")
    out = tmp_path / "out"
    with pytest.raises(SkillTransferError, match="has errors"):
        export_skill(broken, out)
    assert not out.exists()
    good = write_skill(tmp_path / "src", "good", manifest("good"), "x")
    export_skill(good, out)
    before = snapshot(out)
    with pytest.raises(SkillTransferError, match="exists already"):
        export_skill(good, out)
    assert snapshot(out) == before
    export_skill(good, out, overwrite=True)
    assert sorted(snapshot(out)) == ["good", "good/SKILL.md"]


def test_export_into_the_skills_folder_itself_is_refused(tmp_path, capsys):
    # The export is a skill of the same name that sorts first ("my-skill" < "my_skill"): it would
    # take the name over and turn the original into a duplicate with an error.
    skills = tmp_path / "skills"
    write_skill(skills, "my_skill", manifest("my_skill"), "Do {x}.")
    before = snapshot(skills)
    for destination in (skills, tmp_path / "skills" / ".." / "skills"):
        for overwrite in (False, True):
            with pytest.raises(SkillTransferError, match="is the skills folder of this skill"):
                export_skill(skills / "my_skill", destination, overwrite=overwrite)
    assert snapshot(skills) == before
    engine = SimpleNamespace(skills=SkillRouter(skills))
    assert run_skills(standalone_parser().parse_args(["skills", "export", "my_skill", str(skills)]), engine) == 2
    assert "choose another folder" in capsys.readouterr().err
    assert snapshot(skills) == before and SkillRouter(skills).get("my_skill").valid


def test_cli_export(tmp_path, capsys):
    skills = tmp_path / "skills"
    write_skill(skills, "my_skill", manifest("my_skill"), "Do {x}.")
    engine = SimpleNamespace(skills=SkillRouter(skills))
    parser = standalone_parser()
    assert run_skills(parser.parse_args(["skills", "export", "my_skill", str(tmp_path / "out")]), engine) == 0
    assert validate(tmp_path / "out" / "my-skill") == []
    assert run_skills(parser.parse_args(["skills", "export", "my_skill", str(tmp_path / "out")]), engine) == 2
    assert "exists already" in capsys.readouterr().err
    assert run_skills(parser.parse_args(["skills", "export", "nope", str(tmp_path / "out")]), engine) == 2
    assert "no skill named 'nope'" in capsys.readouterr().err


def test_agent_skill_in_the_skills_dir_exports_as_it_is(tmp_path):
    source = pdf_skill(tmp_path / "skills")
    exported = export_skill(source, tmp_path / "out")
    assert snapshot(exported) == snapshot(source)
    assert validate(exported) == []


def test_cli_import_of_a_name_that_cannot_be_a_tool_name(tmp_path, skills_dir, capsys):
    source = write_agent_skill(tmp_path / "src", "数据", "---\nname: 数据\ndescription: d\n---\nbody\n")
    engine = SimpleNamespace(skills=SkillRouter(skills_dir))
    parser = standalone_parser()
    assert run_skills(parser.parse_args(["skills", "import", str(source)]), engine) == 2
    assert "'数据' cannot be a tool name" in capsys.readouterr().err
    assert run_skills(parser.parse_args(["skills", "import", str(source), "--name", "data"]), engine) == 0
    assert engine.skills.get("data").valid


def test_an_import_never_takes_another_skills_command(tmp_path):
    skills = tmp_path / "skills"
    write_skill(skills, "tarot_reading", manifest("tarot_reading", command="/tarot"), "x")
    exported = export_skill(skills / "tarot_reading", tmp_path / "out")
    result = import_skill(exported, skills, name="a_tarot")  # sorts first: it would win /tarot
    assert result.command_changed == ("/tarot", "/a_tarot")
    router = SkillRouter(skills)
    assert router.get("tarot_reading").valid and router.get("a_tarot").valid
    assert router.match_command("/tarot x").skill == "tarot_reading"
    write_skill(skills, "zz", manifest("zz", command="/b_tarot"), "x")
    assert import_skill(exported, skills, name="b_tarot").command_changed == ("/tarot", "")
    assert "command" not in SkillRouter(skills).get("b_tarot").manifest
    again = import_skill(exported, skills, replace=True, backups_dir=tmp_path / "backups")  # keeps its command
    assert again.command_changed is None and SkillRouter(skills).get("tarot_reading").command == "/tarot"


def test_a_killed_import_leaves_nothing_that_stays(tmp_path, skills_dir):
    import os
    import time

    stale = skills_dir / ".importing-deadbeef"
    (stale / "source").mkdir(parents=True)
    fresh = skills_dir / ".importing-inprogress"
    fresh.mkdir()
    old = time.time() - 2 * 3600
    os.utime(stale, (old, old))
    import_skill(pdf_skill(tmp_path / "src"), skills_dir)
    assert not stale.exists() and fresh.exists()  # one running right now is left alone
    assert "pdf-processing" in [s.name for s in SkillRouter(skills_dir).skills()]


@pytest.mark.parametrize("name", ["_draft", "__init__"])
def test_a_name_the_skills_folder_would_hide_is_refused(tmp_path, skills_dir, capsys, name):
    # Folders starting with "_" are skipped by the scan: the skill would be imported but never shown.
    source = write_agent_skill(tmp_path / "src", "d", f"---\nname: {name}\ndescription: d\n---\nbody\n")
    before = snapshot(skills_dir)
    with pytest.raises(UnusableNameError):
        import_skill(source, skills_dir)
    with pytest.raises(UnusableNameError):
        import_skill(pdf_skill(tmp_path / "pdf"), skills_dir, name=name)
    assert snapshot(skills_dir) == before
    engine = SimpleNamespace(skills=SkillRouter(skills_dir))
    assert run_skills(standalone_parser().parse_args(["skills", "import", str(source)]), engine) == 2
    err = capsys.readouterr().err
    assert f"{name!r} cannot be a tool name" in err and "not starting with _" in err and "--name NEW" in err
