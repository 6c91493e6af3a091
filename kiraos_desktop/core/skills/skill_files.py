"""Level three of progressive disclosure: one text file of a skill's folder, never anything outside it."""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from urllib.parse import unquote

from .problems import MAX_FILE_BYTES

#: Largest file a skill tool returns through its `file` argument.
MAX_SKILL_FILE_BYTES = MAX_FILE_BYTES
MAX_PATH_CHARS = 1024
_DRIVE = re.compile(r"^[A-Za-z]:")


class SkillFileReadError(ValueError):
    """The file cannot be given: the message says why and what to ask for instead."""


def _check_relative(path: str) -> list[str]:
    """The parts of a safe relative path, or SkillFileReadError."""
    if "\x00" in path:
        raise SkillFileReadError("the path contains a NUL character")
    if "\\" in path:
        raise SkillFileReadError("use '/' between folders (backslashes are not accepted)")
    if path.startswith("/") or _DRIVE.match(path) or path.startswith("~"):
        raise SkillFileReadError("give a path relative to the skill's folder, such as references/guide.md")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise SkillFileReadError("'..' is not allowed: only files inside the skill's folder can be read")
    if any(p.startswith(".") for p in parts):
        raise SkillFileReadError("hidden files and folders (names starting with '.') are not given out")
    if not parts:
        raise SkillFileReadError("name a file of the skill's folder, such as references/guide.md")
    return parts


def resolve_skill_file(folder: Path, path: str) -> Path:
    """The real path of `path` inside `folder`; SkillFileReadError for anything that is or leads outside."""
    if not isinstance(path, str) or not path.strip():
        raise SkillFileReadError("name a file of the skill's folder, such as references/guide.md")
    if len(path) > MAX_PATH_CHARS:
        raise SkillFileReadError(f"the path is longer than {MAX_PATH_CHARS} characters")
    parts = _check_relative(path.strip())
    decoded = path.strip()
    for _ in range(3):  # %2e%2e%2f, and the same encoded twice or thrice
        once = unquote(decoded)
        if once == decoded:
            break
        decoded = once
        _check_relative(decoded)
    root = Path(os.path.realpath(folder))
    target = Path(os.path.realpath(root.joinpath(*parts)))
    if target != root and root not in target.parents:
        raise SkillFileReadError("the path leads outside the skill's folder (through a link); it cannot be read")
    return target


def read_skill_file(folder: Path, path: str) -> str:
    """The text of file `path` of the skill `folder` (UTF-8, at most MAX_SKILL_FILE_BYTES).

    Raises SkillFileReadError for a path outside the folder (`..`, absolute, drive letters, backslashes,
    percent-encoded traversal, links pointing out), a missing file, a folder, a binary or an
    oversized file."""
    target = resolve_skill_file(folder, path)
    # O_NONBLOCK: a named pipe is refused below instead of waiting for a writer.
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(target, flags)
    except FileNotFoundError:
        raise SkillFileReadError(f"there is no file {path!r} in the skill's folder") from None
    except IsADirectoryError:
        raise SkillFileReadError(f"{path!r} is a folder; name a file inside it") from None
    except OSError as exc:
        raise SkillFileReadError(f"{path!r} cannot be read: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise SkillFileReadError(f"{path!r} is a folder; name a file inside it")
        if not stat.S_ISREG(st.st_mode):
            raise SkillFileReadError(f"{path!r} is not a regular file")
        if st.st_size > MAX_SKILL_FILE_BYTES:
            raise SkillFileReadError(f"{path!r} is {st.st_size // 1024} KiB, more than the "
                                 f"{MAX_SKILL_FILE_BYTES // 1024} KiB a skill file may have")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_SKILL_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_SKILL_FILE_BYTES:
        raise SkillFileReadError(f"{path!r} is more than the {MAX_SKILL_FILE_BYTES // 1024} KiB a skill file may have")
    if b"\x00" in data:
        raise SkillFileReadError(f"{path!r} is a binary file; only text files can be read")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SkillFileReadError(f"{path!r} is not UTF-8 text (a binary file?); only text files can be read") from None
    return text.replace("\r\n", "\n")
