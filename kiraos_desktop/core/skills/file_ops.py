"""File operations on skill folders: save, create from template, duplicate, rename, delete."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import uuid
from datetime import datetime
from pathlib import Path
from typing import Iterable

from .remove_tree import remove_tree
from .manifest_fields import dump_manifest
from .problems import (
    AGENT_SKILL_FILE,
    COMMAND_RE,
    INSTRUCTION_FILE,
    MANIFEST_FILE,
    NAME_RE,
    RESERVED_NAMES,
    TEMPLATE_ARGUMENT_HINT,
    TEMPLATE_DESCRIPTION,
    TEMPLATE_INSTRUCTION_PLACEHOLDERS,
    TEMPLATE_TRIGGER,
)

DELETED_SKILLS = "deleted-skills"

# Name check results (the page turns them into translated messages).
NAME_OK, NAME_EMPTY, NAME_INVALID, NAME_RESERVED, NAME_TAKEN, FOLDER_TAKEN = (
    "ok", "empty", "invalid", "reserved", "taken", "folder-taken")


class SkillFileError(OSError):
    """A file operation on a skill folder failed; nothing was left half done."""


def check_name(name: str) -> str:
    """Whether `name` can name a skill and its folder at all: a tool name that is not reserved and
    that the skills folder scan does not skip (folders starting with "_" or ".")."""
    if not name:
        return NAME_EMPTY
    if not NAME_RE.match(name) or name.startswith(("_", ".")):
        return NAME_INVALID
    if name in RESERVED_NAMES:
        return NAME_RESERVED
    return NAME_OK


def check_new_name(name: str, skills_dir: Path, taken_names: Iterable[str]) -> str:
    """Whether `name` can be the name and folder of a new (or renamed) skill."""
    code = check_name(name)
    if code != NAME_OK:
        return code
    if name in set(taken_names):
        return NAME_TAKEN
    if folder_taken(Path(skills_dir), name):
        return FOLDER_TAKEN
    return NAME_OK


def check_name_in(router, name: str, own_name: str = "") -> str:
    """check_new_name against the router's skills folder and its other skills; a renamed skill
    may keep its own name (`own_name`)."""
    if own_name and name == own_name:
        return NAME_OK
    taken = [s.name for s in router.skills() if s.name != own_name]
    return check_new_name(name, router.skills_dir, taken)


def skill_folder(router, name: str) -> Path | None:
    """The folder of the skill called `name`, else of the skill in a folder called `name` (a
    manifest too broken to name its skill); None when there is neither."""
    skills = router.skills()
    for skill in skills:
        if skill.name == name:
            return Path(skill.folder)
    for skill in skills:
        if Path(skill.folder).name == name:
            return Path(skill.folder)
    return None


def renamed_in(names: Iterable[str], old: str, new: str) -> list[str] | None:
    """`names` (the disabled skills) with `old` replaced by `new`; None when `old` is not among them."""
    names = list(names)
    if old not in names:
        return None
    return [new if n == old else n for n in names]


def folder_taken(skills_dir: Path, name: str) -> bool:
    """`skills_dir/name` exists, or an entry whose name differs only in case (one folder on
    case-insensitive file systems, so a copy of the skills folder would clash)."""
    if os.path.lexists(Path(skills_dir) / name):
        return True
    try:
        return any(entry.lower() == name.lower() for entry in os.listdir(skills_dir))
    except OSError:
        return False


# ---------------------------------------------------------------------- saving

def save_skill_files(folder: Path, manifest_text: str, instruction_text: str) -> None:
    """Write manifest.json and instruction.md: both are written to temp files first (and synced),
    then each is moved into place with os.replace, so a reader never sees half a file and a
    failure before the replace step leaves both files as they were."""
    folder = Path(folder)
    staged: list[tuple[str, Path]] = []
    try:
        for name, text in ((MANIFEST_FILE, manifest_text), (INSTRUCTION_FILE, instruction_text)):
            staged.append((_stage(folder, name, text), folder / name))
        for temp, target in staged:
            os.replace(temp, target)
    except OSError as exc:
        for temp, _target in staged:
            _unlink_quietly(temp)
        raise SkillFileError(f"cannot save the skill in {folder}: {exc.strerror or exc}") from exc


def save_skill_md(folder: Path, text: str) -> None:
    """Write the SKILL.md of an Agent Skills folder (temp file, synced, then os.replace)."""
    folder = Path(folder)
    try:
        _replace_file(folder, AGENT_SKILL_FILE, text)
    except OSError as exc:
        raise SkillFileError(f"cannot save the skill in {folder}: {exc.strerror or exc}") from exc


def _replace_file(folder: Path, name: str, text: str) -> None:
    """One file written through a synced temp file and os.replace; no temp file is left on failure."""
    temp = _stage(folder, name, text)
    try:
        os.replace(temp, folder / name)
    except OSError:
        _unlink_quietly(temp)
        raise


def _stage(folder: Path, name: str, text: str) -> str:
    fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        _unlink_quietly(temp)
        raise
    return temp


def _unlink_quietly(path: str | Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


# ---------------------------------------------------------------------- creating

def template_files(name: str) -> tuple[str, str]:
    """Manifest and instruction text of a new skill (protocol text, in Chinese like the examples)."""
    manifest: dict = {
        "name": name,
        "description": TEMPLATE_DESCRIPTION,
        "trigger": TEMPLATE_TRIGGER,
        "exclude": "",
    }
    command = f"/{name}"
    if COMMAND_RE.match(command):
        manifest["command"] = command
    manifest["parameters"] = {
        "type": "object",
        "properties": {"request": {"type": "string", "description": TEMPLATE_ARGUMENT_HINT}},
        "required": ["request"],
    }
    role, first, second = TEMPLATE_INSTRUCTION_PLACEHOLDERS
    instruction = (f"# {name}\n\n"
                   f"## 角色\n{role}\n\n"
                   "## 用户的要求\n{request}\n\n"
                   f"## 执行步骤\n{first}\n{second}\n\n"
                   "## 输出要求\n- 只输出结果本身\n")
    return dump_manifest(manifest), instruction


def enabled_in(names: Iterable[str], name: str, enabled: bool) -> list[str]:
    """The disabled_skills setting with `name` enabled (left out) or disabled (listed once)."""
    kept = [n for n in names if n != name]
    return kept if enabled else [*kept, name]


def disabled_with(names: list[str], name: str) -> list[str]:
    """The disabled_skills setting with `name` added: a new skill from the template starts disabled,
    so bots never see it before its author has written it and enabled it."""
    return names if name in names else [*names, name]


def create_skill(skills_dir: Path, folder_name: str, manifest_text: str, instruction_text: str) -> Path:
    """Create skills_dir/folder_name with both files. The folder is filled under a hidden name
    (which the router skips) and renamed into place, so it never appears half written."""
    skills_dir = Path(skills_dir)
    target = skills_dir / folder_name
    if os.path.lexists(target):
        raise SkillFileError(f"{target} already exists")
    staging = skills_dir / f".creating-{folder_name}-{uuid.uuid4().hex[:8]}"
    try:
        staging.mkdir(parents=True)
        save_skill_files(staging, manifest_text, instruction_text)
        if os.path.lexists(target):
            raise SkillFileError(f"{target} already exists")
        os.rename(staging, target)
    except OSError as exc:
        remove_tree(staging)
        if isinstance(exc, SkillFileError):
            raise
        raise SkillFileError(f"cannot create {target}: {exc.strerror or exc}") from exc
    return target


def with_name(manifest_text: str, name: str, command: str | None = None) -> str:
    """The manifest with another name (and optionally command); ValueError if it is not an object."""
    data = json.loads(manifest_text)
    if not isinstance(data, dict):
        raise ValueError("the manifest is not a JSON object")
    data["name"] = name
    if command is not None:
        if COMMAND_RE.match(command):
            data["command"] = command
        else:
            data.pop("command", None)
    return dump_manifest(data)


def duplicate_skill(folder: Path, new_name: str) -> Path:
    """Copy a skill under a new name; the copy gets the command `/new_name` so it clashes with
    nothing. The other files of the folder are copied too."""
    folder = Path(folder)
    manifest_text = (folder / MANIFEST_FILE).read_text(encoding="utf-8-sig")
    instruction_text = (folder / INSTRUCTION_FILE).read_text(encoding="utf-8-sig")
    manifest_text = with_name(manifest_text, new_name, f"/{new_name}")
    target = create_skill(folder.parent, new_name, manifest_text, instruction_text)
    for extra in folder.iterdir():
        if extra.name in (MANIFEST_FILE, INSTRUCTION_FILE) or extra.name.startswith("."):
            continue
        try:
            if extra.is_dir():
                shutil.copytree(extra, target / extra.name)
            else:
                shutil.copy2(extra, target / extra.name)
        except OSError:
            pass  # the skill itself is complete; an extra file that cannot be copied is not fatal
    return target


def rename_skill(folder: Path, new_name: str) -> Path:
    """Rename the folder to `new_name` and set the manifest's name. The folder is renamed first
    (refused when the target exists); if writing the manifest then fails the rename is undone."""
    folder = Path(folder)
    manifest_text = (folder / MANIFEST_FILE).read_text(encoding="utf-8-sig")
    new_manifest = with_name(manifest_text, new_name)
    target = folder.parent / new_name
    moved = target != folder
    if moved:
        if os.path.lexists(target):
            raise SkillFileError(f"{target} already exists")
        try:
            os.rename(folder, target)
        except OSError as exc:
            raise SkillFileError(f"cannot rename {folder.name} to {new_name}: {exc.strerror or exc}") from exc
    try:
        _replace_file(target, MANIFEST_FILE, new_manifest)
    except OSError as exc:
        if moved:
            os.rename(target, folder)
        raise SkillFileError(f"cannot write the new name into {MANIFEST_FILE}: {exc}") from exc
    return target


# ---------------------------------------------------------------------- deleting

def delete_skill(folder: Path, backups_dir: Path, now: datetime | None = None, name: str | None = None) -> Path:
    """Move the skill folder to `<backups>/deleted-skills/<name>-<timestamp>/` (never lost); `name`
    is the folder's own unless given (a folder already moved aside under another name)."""
    folder = Path(folder)
    name = name or folder.name
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    area = Path(backups_dir) / DELETED_SKILLS
    target = area / f"{name}-{stamp}"
    counter = 2
    while os.path.lexists(target):
        target = area / f"{name}-{stamp}-{counter}"
        counter += 1
    try:
        area.mkdir(parents=True, exist_ok=True)
        shutil.move(str(folder), str(target))
    except OSError as exc:
        raise SkillFileError(f"cannot move {name} to the backups: {exc.strerror or exc}") from exc
    return target
