"""Reading and validating skill folders; scanning a skills directory."""
from __future__ import annotations

import dataclasses
import errno
import logging
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .agent_format import SKILL_FILE, validate_agent_text
from .manifest import manifest_parameters, validate_manifest_text
from .model import Skill
from .problems import (
    AGENT_FORMAT,
    INSTRUCTION_FILE,
    MANIFEST_FILE,
    MAX_FILE_BYTES,
    NAME_RE,
    RESERVED_NAMES,
    TEMPLATES,
    Problem,
    error,
)
from .render import instruction_problems

log = logging.getLogger(__name__)

#: What identifies one version of a file on disk: (mtime_ns, size, inode, ctime_ns).
FileSignature = tuple[int, int, int, int]


@dataclass
class TextFile:
    text: str | None
    signature: FileSignature | None
    problems: list[Problem] = field(default_factory=list)


@dataclass
class LoadedSkill:
    """A skill plus what the router needs to keep its instruction cache honest."""

    skill: Skill
    manifest_problems: list[Problem]
    instruction: TextFile
    instruction_problems: list[Problem] = field(default_factory=list)


def read_text_file(path: Path, field_name: str) -> TextFile:
    """Read a UTF-8 file of at most MAX_FILE_BYTES; every failure is a problem, never an exception."""
    label = path.name
    try:
        # O_NONBLOCK: opening a named pipe must not wait for a writer (it is refused just below).
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as handle:
            st = os.fstat(handle.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(path)
            if not stat.S_ISREG(st.st_mode):
                return TextFile(None, None, [error(field_name, f"{label} is not a regular file (a named pipe or "
                                                               "a device?); replace it with a text file.")])
            if st.st_size > MAX_FILE_BYTES:
                return TextFile(None, None, [error(field_name, f"{label} is {st.st_size // 1024} KiB, more than "
                                                               f"the {MAX_FILE_BYTES // 1024} KiB allowed; "
                                                               "shorten it.")])
            data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        if os.path.islink(path):
            return TextFile(None, None, [error(field_name, f"{label} is a symbolic link to a file that does "
                                                           "not exist; point it at a real file.")])
        return TextFile(None, None, [error(field_name, f"{label} is missing; every skill folder needs "
                                                       f"{MANIFEST_FILE} and {INSTRUCTION_FILE}.")])
    except IsADirectoryError:
        return TextFile(None, None, [error(field_name, f"{label} is a folder, not a file.")])
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return TextFile(None, None, [error(field_name, f"{label} is a symbolic link loop; replace it "
                                                           "with a real file.")])
        return TextFile(None, None, [error(field_name, f"{label} cannot be read: {exc.strerror or exc}.")])
    if len(data) > MAX_FILE_BYTES:
        return TextFile(None, None, [error(field_name, f"{label} is larger than {MAX_FILE_BYTES // 1024} KiB; "
                                                       "shorten it.")])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return TextFile(None, None, [error(field_name, f"{label} is not UTF-8 text (bad byte at line {line}); "
                                                       "save it with UTF-8 encoding.", line)])
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    signature = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
    return TextFile(text, signature)


def file_signature(path: Path) -> FileSignature | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def load_instruction(path: Path, manifest: dict | None) -> tuple[TextFile, list[Problem]]:
    """Read instruction.md (or the body of SKILL.md) and list its problems (read failures or
    content problems)."""
    loaded = read_text_file(path, "instruction")
    if path.name == SKILL_FILE:
        if loaded.text is None:
            return loaded, [dataclasses.replace(p, source=SKILL_FILE) for p in loaded.problems]
        agent = validate_agent_text(loaded.text, path.parent.name)
        if agent.manifest is None:
            return TextFile(None, None, agent.problems), list(agent.problems)
        return TextFile(agent.instruction, loaded.signature), agent.instruction_problems
    if loaded.text is None:
        return loaded, list(loaded.problems)
    return loaded, instruction_problems(loaded.text, manifest)


def is_agent_folder(folder: Path) -> bool:
    """An Agent Skills folder: SKILL.md and no manifest.json (a manifest.json makes it a KiraOS skill)."""
    return not os.path.lexists(Path(folder) / MANIFEST_FILE) and os.path.isfile(Path(folder) / SKILL_FILE)


def load_agent_folder(folder: Path) -> LoadedSkill:
    """Read an Agent Skills folder (SKILL.md, no manifest.json) as a skill."""
    source = read_text_file(folder / SKILL_FILE, "manifest")
    if source.text is None:
        problems = [dataclasses.replace(p, source=SKILL_FILE) for p in source.problems]
        skill = Skill(name=folder.name, folder=folder, problems=problems, format=AGENT_FORMAT)
        return LoadedSkill(skill, problems, TextFile(None, None))
    agent = validate_agent_text(source.text, folder.name)
    skill = skill_from_manifest(agent.manifest, folder, agent.problems + agent.instruction_problems)
    skill.format = AGENT_FORMAT
    instruction = TextFile(agent.instruction if agent.manifest is not None else None, source.signature)
    return LoadedSkill(skill, agent.problems, instruction, agent.instruction_problems)


def load_skill_folder(folder: Path) -> LoadedSkill | None:
    """Read one skill folder; None only when the folder no longer exists at all."""
    folder = Path(folder)
    if os.path.islink(folder):  # DESIGN 13: nothing outside the skill folder, links included
        problem = error("folder", f"The skill folder {folder.name!r} is a symbolic link; a skill must be a real "
                                  "folder inside the skills folder (a link may lead anywhere). Move the skill's "
                                  "folder here instead of linking it.")
        return LoadedSkill(Skill(name=folder.name, folder=folder, problems=[problem]), [problem],
                           TextFile(None, None))
    try:
        st = os.stat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    if is_agent_folder(folder):
        return load_agent_folder(folder)

    manifest_file = read_text_file(folder / MANIFEST_FILE, "manifest")
    manifest_issues = list(manifest_file.problems)
    data: dict | None = None
    if manifest_file.text is not None:
        data, found = validate_manifest_text(manifest_file.text)
        manifest_issues.extend(found)
    instruction, instruction_issues = load_instruction(folder / INSTRUCTION_FILE, data)

    if not folder.is_dir() and manifest_file.text is None and instruction.text is None:
        return None  # the folder vanished while we were reading it
    skill = skill_from_manifest(data, folder, manifest_issues + instruction_issues)
    return LoadedSkill(skill, manifest_issues, instruction, instruction_issues)


def skill_from_manifest(data: dict | None, folder: Path, problems: list[Problem]) -> Skill:
    """Build a Skill from whatever part of the manifest is usable."""
    data = data or {}

    def text(key: str) -> str:
        value = data.get(key)
        return value if isinstance(value, str) else ""

    name = data.get("name")
    if not isinstance(name, str) or not name:
        name = folder.name
    command = data.get("command")
    template = data.get("template", "plain")
    return Skill(
        name=name,
        description=text("description"),
        trigger=text("trigger"),
        exclude=text("exclude"),
        command=command if isinstance(command, str) and command else None,
        parameters=manifest_parameters(data),
        template=template if template in TEMPLATES else "plain",
        folder=folder,
        problems=list(problems),
        manifest=data,
    )


def validate_skill_folder(folder: Path) -> tuple[Skill | None, list[Problem]]:
    """Validate one folder on its own (no duplicate checks). The Skill is None only when the
    folder does not exist (or is not a folder); the problems then say so."""
    loaded = load_skill_folder(Path(folder))
    if loaded is None:
        return None, [error("folder", f"{Path(folder)} is not an existing skill folder.")]
    return loaded.skill, list(loaded.skill.problems)


def validate_skill_texts(manifest_text: str, instruction_text: str) -> tuple[dict | None, list[Problem]]:
    """Problems of an unsaved skill (editor text of both files); no file system access."""
    data, problems = validate_manifest_text(manifest_text)
    return data, problems + instruction_problems(instruction_text, data)


def claims_name(loaded: LoadedSkill) -> bool:
    """A skill takes part in the duplicate check when its manifest name itself is valid."""
    name = loaded.skill.manifest.get("name")
    return isinstance(name, str) and bool(NAME_RE.match(name)) and name not in RESERVED_NAMES


def scan_skills_dir(skills_dir: Path) -> list[LoadedSkill]:
    """Load every skill folder of `skills_dir` in sorted order; never raises."""
    try:
        entries = sorted(os.scandir(skills_dir), key=lambda e: e.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("cannot list skills folder %s: %s", skills_dir, exc)
        return []
    found: list[LoadedSkill] = []
    for entry in entries:
        if entry.name.startswith(("_", ".")):
            continue
        try:
            candidate = entry.is_symlink() or entry.is_dir()
        except OSError:  # e.g. ELOOP; a folder that vanished right now
            candidate = False
        if not candidate:
            continue
        try:
            loaded = load_skill_folder(Path(entry.path))
        except Exception:  # a bug must not stop the other skills from loading
            log.exception("unexpected failure while loading skill folder %s", entry.path)
            problem = error("folder", "Loading this skill failed unexpectedly; see the log.")
            loaded = LoadedSkill(Skill(name=entry.name, folder=Path(entry.path), problems=[problem]),
                                 [problem], TextFile(None, None))
        if loaded is None:
            log.info("skipping %s: not a skill folder (or it vanished during the scan)", entry.path)
            continue
        found.append(loaded)
    return found
