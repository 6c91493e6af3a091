"""Hostile skill trees: thousands of folder levels or of folders are refused with one line (exit 2),
leave nothing behind, and what a killed import left is cleaned at the next start."""
from __future__ import annotations

import os
import sys
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent_skills_helpers import pdf_skill, snapshot
from kiraos_desktop.cli.skills import run_skills, standalone_parser
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.skills import SkillRouter
from kiraos_desktop.core.skills.agent_io import STAGING_PREFIX, STALE_STAGING_SECONDS, import_skill
from kiraos_desktop.core.skills.archive import MAX_DEPTH, MAX_FOLDERS
from kiraos_desktop.core.skills.remove_tree import remove_tree

LEVELS = 1200  # deeper than Python's recursion limit


@pytest.fixture(autouse=True)
def _deep_trees_removed(tmp_path):
    """pytest removes old temporary folders with shutil.rmtree, which these trees make raise
    RecursionError (and every later session fail at its end): each test removes its own."""
    yield
    assert remove_tree(tmp_path)


def deep_folder(top: Path, levels: int = LEVELS) -> Path:
    """`top` with `levels` nested folders "d" and a file at the bottom, made without recursion."""
    here = os.fspath(top)
    os.makedirs(here, exist_ok=True)
    fd = os.open(here, os.O_RDONLY)
    try:
        for _ in range(levels):  # relative to the last level: no path grows past PATH_MAX
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as handle:
            handle.write("deep")
    finally:
        os.close(fd)
    return top


def test_a_skill_folder_nested_past_the_limit_is_refused_with_one_line(tmp_path, capsys):
    source = pdf_skill(tmp_path / "src")
    deep_folder(source / "assets" / "deep")
    skills_dir = tmp_path / "skills"
    engine = SimpleNamespace(skills=SkillRouter(skills_dir))
    before = snapshot(skills_dir)
    args = standalone_parser().parse_args(["skills", "import", str(source)])
    assert run_skills(args, engine) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"more than {MAX_DEPTH} deep" in err
    assert snapshot(skills_dir) == before  # no .importing-* left behind
    assert not list(skills_dir.glob(STAGING_PREFIX + "*"))
    assert run_skills(standalone_parser().parse_args(["skills", "import", str(pdf_skill(tmp_path / "ok"))]),
                      engine) == 0  # and the next import works


def test_an_archive_entry_nested_past_the_limit_is_refused(tmp_path):
    archive = tmp_path / "deep.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("pdf-processing/SKILL.md", (pdf_skill(tmp_path / "src") / "SKILL.md").read_text("utf-8"))
        handle.writestr("pdf-processing/" + "d/" * 1500 + "x.txt", "deep")
    skills_dir = tmp_path / "skills"
    with pytest.raises(Exception, match=f"at most {MAX_DEPTH} deep"):
        import_skill(archive, skills_dir)
    assert not list(skills_dir.glob(STAGING_PREFIX + "*"))


@pytest.mark.parametrize("as_archive", [False, True])
def test_too_many_folders_are_refused(tmp_path, as_archive):
    source = pdf_skill(tmp_path / "src")
    for n in range(MAX_FOLDERS + 5):
        (source / "assets" / f"f{n}").mkdir(parents=True)
    if as_archive:
        archive = tmp_path / "many.zip"
        with zipfile.ZipFile(archive, "w") as handle:
            for root, dirs, files in os.walk(source):
                for name in dirs:
                    handle.write(Path(root) / name, (Path(root) / name).relative_to(source.parent).as_posix() + "/")
                for name in files:
                    handle.write(Path(root) / name, (Path(root) / name).relative_to(source.parent).as_posix())
        source = archive
    with pytest.raises(Exception, match=f"more than {MAX_FOLDERS} folders"):
        import_skill(source, tmp_path / "skills")


def test_remove_tree_takes_a_tree_deeper_than_the_recursion_limit(tmp_path):
    top = deep_folder(tmp_path / "deep", levels=sys.getrecursionlimit() + 200)
    assert remove_tree(top)
    assert not top.exists()


def test_a_killed_imports_staging_folder_is_removed_at_the_next_start(tmp_path):
    data = tmp_path / "data"
    Engine.open(data_dir=data, install_examples=False).close()
    skills_dir = data / "skills"
    stale = deep_folder(skills_dir / f"{STAGING_PREFIX}killed")
    running = skills_dir / f"{STAGING_PREFIX}running"  # another process's import, going on now
    running.mkdir()
    old = time.time() - STALE_STAGING_SECONDS - 60
    os.utime(stale, (old, old))
    Engine.open(data_dir=data, install_examples=False).close()
    assert not stale.exists() and running.exists()
