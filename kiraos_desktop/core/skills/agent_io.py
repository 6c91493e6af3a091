"""Import of Agent Skills folders and archives as KiraOS skills; export of skills as SKILL.md folders.

Both stage everything in a hidden folder next to the destination and rename it into place at the
end, so an error at any step leaves the destination as it was."""
from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from .remove_tree import remove_tree
from .agent_format import (
    SKILL_FILE,
    SKILL_FILE_NAMES,
    AgentFormatError,
    agent_name,
    agent_skill,
    parse_document,
    render_skill_md,
    validate_agent_text,
)
from .archive import SkillSourceError, copy_folder, extract_archive, is_archive
from .discovery import read_text_file, scan_skills_dir
from .file_ops import NAME_OK, SkillFileError, check_name, delete_skill, folder_taken
from .manifest import validate_manifest_text
from .problems import COMMAND_RE, INSTRUCTION_FILE, MANIFEST_FILE
from .render import instruction_problems


STAGING_PREFIX = ".importing-"
#: A staging folder this old was left by an import that was killed: it is removed.
#: A staging folder this old is a killed import's (an import takes seconds): removed at the next
#: start or import.
STALE_STAGING_SECONDS = 600


class SkillTransferError(ValueError):
    """An import or export that cannot be done; nothing was written. The message says what to do."""


class NameClashError(SkillTransferError):
    """A skill of that name exists already (in `folder`)."""

    def __init__(self, name: str, folder: Path):
        super().__init__(f"a skill named {name!r} already exists (folder {folder.name!r}); "
                         "replace it or import under another name")
        self.name = name
        self.folder = folder


class UnusableNameError(SkillTransferError):
    """The skill's name cannot be a tool name here: import it under another name."""

    def __init__(self, name: str):
        shown = name if name else "(none)"
        super().__init__(f"the skill name {shown!r} cannot be a tool name (use 1 to 64 ASCII letters, digits, _ "
                         "or -, not starting with _, not memory_update/query/clear); import it under another name")
        self.name = name


@dataclass(frozen=True)
class ImportResult:
    name: str
    folder: Path
    replaced: bool
    #: True when the source was an export of ours and the exact KiraOS skill came back.
    restored: bool
    #: The skill's slash command was taken by another skill: (old, new) with new "" when dropped.
    command_changed: tuple[str, str] | None = None
    #: Where the replaced skill was moved (as `skills delete` moves one), when one was replaced.
    backup: Path | None = None


def _find_skill_root(folder: Path) -> Path:
    """The folder holding SKILL.md: `folder` itself or its single subfolder."""
    if any((folder / name).is_file() for name in SKILL_FILE_NAMES):
        return folder
    subfolders = [p for p in folder.iterdir() if not p.name.startswith(".")]
    if len(subfolders) == 1 and subfolders[0].is_dir():
        inner = subfolders[0]
        if any((inner / name).is_file() for name in SKILL_FILE_NAMES):
            return inner
    raise SkillTransferError(f"no {SKILL_FILE} found: an Agent Skill is a folder with {SKILL_FILE} at its "
                             "top (an archive may hold that folder or its contents)")


def _skill_file(root: Path) -> Path:
    for name in SKILL_FILE_NAMES:
        if (root / name).is_file():
            return root / name
    raise SkillTransferError(f"no {SKILL_FILE} found in {root.name}")


def _existing(skills_dir: Path) -> tuple[dict[str, Path], dict[str, str]]:
    """(skill name -> folder, command -> skill name) of the skills now in `skills_dir` (first wins)."""
    names: dict[str, Path] = {}
    commands: dict[str, str] = {}
    for loaded in scan_skills_dir(skills_dir):
        names.setdefault(loaded.skill.name, loaded.skill.folder)
        if loaded.skill.command:
            commands.setdefault(loaded.skill.command, loaded.skill.name)
    return names, commands


def _free_command(manifest: dict, commands: dict[str, str], replacing: str | None) -> tuple[str, str] | None:
    """Keep the imported skill from taking another skill's slash command (first in folder order
    would win and break one of them): use /<name> instead, or no command. Returns (old, new)."""
    command = manifest.get("command")
    owner = commands.get(command) if isinstance(command, str) else None
    if owner is None or owner == replacing:
        return None
    candidate = f"/{manifest['name']}"
    new = candidate if COMMAND_RE.match(candidate) and commands.get(candidate, replacing) == replacing else ""
    if new:
        manifest["command"] = new
    else:
        manifest.pop("command", None)
    return command, new


def remove_stale_staging(skills_dir: Path) -> None:
    """Remove what killed imports left in `skills_dir` (STALE_STAGING_SECONDS old: not one that runs now)."""
    cutoff = time.time() - STALE_STAGING_SECONDS
    for entry in skills_dir.glob(STAGING_PREFIX + "*"):
        try:
            if entry.is_dir() and not entry.is_symlink() and entry.stat().st_mtime < cutoff:
                remove_tree(entry)
        except OSError:
            pass


def _free_folder(skills_dir: Path, name: str) -> Path:
    candidate = name
    number = 2
    while folder_taken(skills_dir, candidate):
        candidate = f"{name}_{number}"
        number += 1
    return skills_dir / candidate


def _meaning(root: Path, rename: str | None) -> tuple[dict, str, str, bool]:
    """(manifest, manifest.json text, instruction, restored) of the SKILL.md in `root`."""
    source = _skill_file(root)
    loaded = read_text_file(source, "manifest")
    if loaded.text is None:
        raise SkillTransferError(loaded.problems[0].message.replace("manifest.json", SKILL_FILE))
    try:
        doc = parse_document(loaded.text)
    except AgentFormatError as exc:
        where = f" (line {exc.line})" if exc.line else ""
        raise SkillTransferError(f"{exc.message}{where}") from None
    agent = agent_skill(doc, None)
    manifest = dict(agent.manifest or {})
    restored = agent.manifest_text is not None
    if restored:
        data, problems = validate_manifest_text(agent.manifest_text)
        errors = [p for p in problems if p.is_error]
        if data is None or errors:
            first = (errors or problems)[0]
            raise SkillTransferError(f"the KiraOS manifest kept in {SKILL_FILE} is broken: {first.message}")
        manifest_text = agent.manifest_text
    else:
        manifest_text = ""
    if rename is not None:
        manifest["name"] = rename
    name = manifest.get("name")
    if not isinstance(name, str) or check_name(name) != NAME_OK:
        raise UnusableNameError(name if isinstance(name, str) else "")
    if rename is not None or not restored:
        manifest_text = json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"
    errors = [p for p in instruction_problems(agent.instruction, manifest) if p.is_error]
    if errors:
        raise SkillTransferError(f"the body of {SKILL_FILE} cannot be used: {errors[0].message}")
    return manifest, manifest_text, agent.instruction, restored


def import_skill(source: Path, skills_dir: Path, name: str | None = None, replace: bool = False,
                 backups_dir: Path | None = None) -> ImportResult:
    """Make a KiraOS skill in `skills_dir` from an Agent Skills folder or .zip/.skill archive.

    `name` imports under another name; `replace` replaces the skill that has the name, whose folder
    goes to `<backups_dir>/deleted-skills/` as a deleted skill's does (a replace needs `backups_dir`).
    Raises NameClashError when the name is taken (and `replace` is false), SkillTransferError for
    anything else that is wrong; in every error case `skills_dir` is left unchanged."""
    if replace and backups_dir is None:
        raise ValueError("replacing a skill needs the backups folder its old version goes to")
    source = Path(source)
    skills_dir = Path(skills_dir)
    if not os.path.exists(source):
        raise SkillTransferError(f"{source} does not exist")
    if not source.is_dir() and not is_archive(source):
        raise SkillTransferError(f"{source.name} is neither a folder nor a .zip/.skill archive")
    skills_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(skills_dir)
    staging = skills_dir / f"{STAGING_PREFIX}{uuid.uuid4().hex[:12]}"
    staging.mkdir()
    try:
        raw = staging / "source"
        raw.mkdir()
        try:
            if source.is_dir():
                copy_folder(source, raw)
            else:
                extract_archive(source, raw)
        except SkillSourceError as exc:
            raise SkillTransferError(str(exc)) from None
        root = _find_skill_root(raw)
        manifest, manifest_text, instruction, restored = _meaning(root, name)
        for reserved in (MANIFEST_FILE, INSTRUCTION_FILE):
            if os.path.lexists(root / reserved):
                raise SkillTransferError(f"the skill holds its own {reserved} next to {SKILL_FILE}; "
                                         "rename or remove that file and import again")
        built = staging / "skill"
        built.mkdir()
        for entry in root.iterdir():
            if entry.name not in SKILL_FILE_NAMES:
                os.rename(entry, built / entry.name)
        _write(built / MANIFEST_FILE, manifest_text)
        _write(built / INSTRUCTION_FILE, instruction)
        names, commands = _existing(skills_dir)
        existing = names.get(manifest["name"])
        if existing is not None and not replace:
            raise NameClashError(manifest["name"], existing)
        changed = _free_command(manifest, commands, manifest["name"] if existing is not None else None)
        if changed is not None:
            _write(built / MANIFEST_FILE, json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
        return _place(built, skills_dir, staging, manifest["name"], existing, restored, changed, backups_dir)
    except OSError as exc:
        raise SkillTransferError(f"the skill cannot be written into {skills_dir}: {exc.strerror or exc}") from None
    finally:
        remove_tree(staging)


def _place(built: Path, skills_dir: Path, staging: Path, name: str, existing: Path | None, restored: bool,
           changed: tuple[str, str] | None, backups_dir: Path | None) -> ImportResult:
    if existing is None:
        target = _free_folder(skills_dir, name)
        os.rename(built, target)
        return ImportResult(name, target, False, restored, changed)
    backup = _swap_in(built, existing, staging, backups_dir)
    return ImportResult(name, existing, True, restored, changed, backup)


def _swap_in(built: Path, target: Path, staging: Path, backups_dir: Path | None = None) -> Path | None:
    """Put `built` where `target` is. The old folder is first renamed aside into `staging` (a rename,
    which cannot half happen), then moved to the backups (its path returned) or, without
    `backups_dir` (an export's destination), removed with `staging`. When the new one cannot take its
    place, or the old one cannot reach the backups, everything goes back as it was and the error is raised."""
    old = staging / "replaced"
    os.rename(target, old)
    try:
        os.rename(built, target)
    except OSError:
        os.rename(old, target)
        raise
    if backups_dir is None:
        return None
    try:
        return delete_skill(old, backups_dir, name=target.name)
    except SkillFileError as exc:
        os.rename(target, built)
        os.rename(old, target)
        raise SkillTransferError(f"{exc}; nothing was replaced") from None


def _write(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


# ----------------------------------------------------------------------------- export

def export_skill(folder: Path, dest_dir: Path, overwrite: bool = False) -> Path:
    """Write the skill of `folder` as `dest_dir/<agent-name>/SKILL.md` with its other files beside it.

    A KiraOS skill keeps its manifest under metadata (so importing the export gives it back); a
    SKILL.md skill is copied as it is. Raises SkillTransferError (nothing written) for a skill with
    errors, for `dest_dir` being the skill's own skills folder, or when the destination folder exists
    and `overwrite` is false."""
    folder = Path(folder)
    dest_dir = Path(dest_dir)
    if (folder / MANIFEST_FILE).exists() or not (folder / SKILL_FILE).exists():
        text, name, skip = _kiraos_skill_md(folder), None, (MANIFEST_FILE, INSTRUCTION_FILE)
    else:
        text, name, skip = _agent_skill_md(folder), folder.name, (SKILL_FILE,)
    try:
        doc = parse_document(text)
    except AgentFormatError as exc:  # cannot happen for what render_skill_md writes
        raise SkillTransferError(exc.message) from None
    name = name or str(doc.front["name"])
    check = agent_skill(doc, name)
    errors = [p for p in check.problems + check.instruction_problems if p.is_error]
    if errors:
        raise SkillTransferError(f"the export would not be a valid Agent Skill: {errors[0].message}")
    if os.path.lexists(dest_dir) and not dest_dir.is_dir():
        raise SkillTransferError(f"{dest_dir} is a file, not a folder")
    if dest_dir.is_dir() and os.path.samefile(dest_dir, folder.parent):
        raise SkillTransferError(f"{dest_dir} is the skills folder of this skill: the export would be a second "
                                 "copy of the skill there, taking its name; choose another folder")
    target = dest_dir / name
    if os.path.lexists(target) and not overwrite:
        raise SkillTransferError(f"{target} exists already; choose another folder or remove it")
    created = not dest_dir.exists()
    staging = dest_dir / f".exporting-{uuid.uuid4().hex[:12]}"
    try:
        dest_dir.mkdir(parents=True, exist_ok=True)
        staging.mkdir()
        built = staging / name
        try:
            copy_folder(folder, built, skip_top=skip)
        except SkillSourceError as exc:
            raise SkillTransferError(str(exc)) from None
        _write(built / SKILL_FILE, text)
        if not os.path.lexists(target):
            os.rename(built, target)
        else:
            _swap_in(built, target, staging)
    except (OSError, SkillTransferError) as exc:
        remove_tree(staging)
        if created:
            remove_tree(dest_dir)
        if isinstance(exc, SkillTransferError):
            raise
        raise SkillTransferError(f"cannot write into {dest_dir}: {exc.strerror or exc}") from None
    remove_tree(staging)
    return target


def _read(path: Path, field: str) -> str:
    loaded = read_text_file(path, field)
    if loaded.text is None:
        raise SkillTransferError(loaded.problems[0].message)
    return loaded.text


def _kiraos_skill_md(folder: Path) -> str:
    manifest_text = _read(folder / MANIFEST_FILE, "manifest")
    data, problems = validate_manifest_text(manifest_text)
    errors = [p for p in problems if p.is_error]
    if data is None or errors:
        raise SkillTransferError(f"the skill has errors and cannot be exported: {(errors or problems)[0].message} "
                                 "(see `skills lint`)")
    instruction = _read(folder / INSTRUCTION_FILE, "instruction")
    return render_skill_md(data, manifest_text, instruction)


def _agent_skill_md(folder: Path) -> str:
    text = _read(folder / SKILL_FILE, "manifest")
    errors = [p for p in validate_agent_text(text, folder.name).problems if p.is_error]
    if errors:
        raise SkillTransferError(f"{SKILL_FILE} has errors and cannot be exported: {errors[0].message} "
                                 "(see `skills lint`)")
    return text


def export_name(folder: Path) -> str:
    """The folder name an export of the skill in `folder` gets."""
    if (folder / MANIFEST_FILE).exists() or not (folder / SKILL_FILE).exists():
        data, _ = validate_manifest_text(_read(folder / MANIFEST_FILE, "manifest"))
        return agent_name(str((data or {}).get("name") or folder.name))
    return folder.name
