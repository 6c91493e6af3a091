"""Safe reading of skill folders and .zip/.skill archives: no path escapes, no links, bounded size."""
from __future__ import annotations

import os
import re
import shutil
import stat
import zipfile
import zlib
from pathlib import Path, PurePosixPath

ARCHIVE_SUFFIXES = (".zip", ".skill")
#: Limits of one imported skill (a folder or an archive).
MAX_FILES = 2000
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_TOTAL_BYTES = 100 * 1024 * 1024
#: Folder levels below the skill's own folder, and folders in all (50,000 empty folders made every
#: later skills fingerprint of the mcp command 700 times slower; a 1,200-level one crashed the import).
MAX_DEPTH = 16
MAX_FOLDERS = 500
#: A member that inflates more than this many times its compressed size is treated as a zip bomb.
MAX_RATIO = 200
_CHUNK = 64 * 1024
_DRIVE = re.compile(r"^[A-Za-z]:")
_IGNORED = ("__MACOSX", ".DS_Store", "Thumbs.db")


class SkillSourceError(ValueError):
    """A folder or archive that cannot be imported; the message says why and what to do."""


def is_archive(path: Path) -> bool:
    return Path(path).suffix.lower() in ARCHIVE_SUFFIXES


def _safe_member_parts(name: str) -> list[str] | None:
    """The parts of an archive member name, None for entries to skip; SkillSourceError for unsafe ones."""
    if "\x00" in name:
        raise SkillSourceError(f"the archive holds an entry with a NUL character in its name ({name!r})")
    if "\\" in name:
        raise SkillSourceError(f"the archive entry {name!r} uses '\\' in its path; it may point outside "
                               "the skill folder, so the archive is refused")
    if name.startswith("/") or _DRIVE.match(name):
        raise SkillSourceError(f"the archive entry {name!r} has an absolute path (or a drive letter); it is refused")
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise SkillSourceError(f"the archive entry {name!r} points outside the skill folder ('..'); "
                               "the archive is refused")
    if not parts or parts[0] in _IGNORED or parts[-1] in _IGNORED:
        return None
    if len(parts) > MAX_DEPTH + 2:  # the skill's own folder and the file's name besides the levels
        raise SkillSourceError(f"the archive entry {name[:80]!r}... lies {len(parts)} folders deep; a skill may "
                               f"nest folders at most {MAX_DEPTH} deep")
    return parts


def _is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def extract_archive(archive: Path, target: Path) -> None:
    """Unpack a .zip/.skill archive into the empty folder `target`, checking every entry first.

    Refused (SkillSourceError, `target` left for the caller to remove): not a zip, encrypted
    entries, links, absolute paths, `..`, backslashes, duplicate names, more than MAX_FILES
    entries, a file over MAX_FILE_BYTES or MAX_TOTAL_BYTES in all (counted while inflating, not
    taken from the headers), a compression ratio above MAX_RATIO, and corrupt data."""
    archive = Path(archive)
    try:
        handle = zipfile.ZipFile(archive)
    except FileNotFoundError:
        raise SkillSourceError(f"{archive} does not exist") from None
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise SkillSourceError(f"{archive.name} is not a readable zip archive ({exc})") from None
    with handle:
        members = handle.infolist()
        if len(members) > MAX_FILES:
            raise SkillSourceError(f"{archive.name} holds {len(members)} entries, more than the "
                                   f"{MAX_FILES} a skill may have")
        plan: list[tuple[zipfile.ZipInfo, list[str]]] = []
        seen: set[str] = set()
        folders: set[str] = set()
        for info in members:
            parts = _safe_member_parts(info.filename)
            if parts is None:
                continue
            if _is_link(info):
                raise SkillSourceError(f"the archive entry {info.filename!r} is a symbolic link; links "
                                       "are refused (they may point outside the skill folder)")
            if info.flag_bits & 0x1:
                raise SkillSourceError(f"the archive entry {info.filename!r} is encrypted; unpack it "
                                       "and import the folder instead")
            key = "/".join(parts).casefold()
            if key in seen and not info.is_dir():
                raise SkillSourceError(f"the archive holds {info.filename!r} twice")
            seen.add(key)
            for depth in range(1, len(parts) if not info.is_dir() else len(parts) + 1):
                folders.add("/".join(parts[:depth]).casefold())
            if len(folders) > MAX_FOLDERS + 1:
                raise SkillSourceError(f"{archive.name} holds more than {MAX_FOLDERS} folders, more than a skill "
                                       "may have")
            if info.file_size > MAX_FILE_BYTES:
                raise SkillSourceError(f"{info.filename!r} is {info.file_size // (1024 * 1024)} MiB, more "
                                       f"than the {MAX_FILE_BYTES // (1024 * 1024)} MiB a skill file may have")
            plan.append((info, parts))
        total = 0
        for info, parts in plan:
            destination = target.joinpath(*parts)
            try:
                if info.is_dir():
                    destination.mkdir(parents=True, exist_ok=True)
                    continue
                destination.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise SkillSourceError(f"the archive entry {info.filename!r} clashes with another entry "
                                       f"({exc.strerror or exc})") from None
            total = _inflate(handle, info, destination, total, archive.name)


def _inflate(handle: zipfile.ZipFile, info: zipfile.ZipInfo, destination: Path, total: int,
             label: str) -> int:
    written = 0
    limit = min(MAX_FILE_BYTES, max(info.compress_size, 1) * MAX_RATIO + _CHUNK)
    try:
        with handle.open(info) as source, open(destination, "xb") as out:
            while True:
                chunk = source.read(_CHUNK)
                if not chunk:
                    break
                written += len(chunk)
                total += len(chunk)
                if written > limit:
                    if written > MAX_FILE_BYTES:
                        raise SkillSourceError(f"{info.filename!r} inflates to more than "
                                               f"{MAX_FILE_BYTES // (1024 * 1024)} MiB; the archive is refused")
                    raise SkillSourceError(f"{info.filename!r} inflates more than {MAX_RATIO} times its "
                                           "packed size (a zip bomb?); the archive is refused")
                if total > MAX_TOTAL_BYTES:
                    raise SkillSourceError(f"{label} inflates to more than "
                                           f"{MAX_TOTAL_BYTES // (1024 * 1024)} MiB; the archive is refused")
                out.write(chunk)
    except (zipfile.BadZipFile, EOFError, zlib.error) as exc:
        raise SkillSourceError(f"{label} is damaged: {info.filename!r} cannot be unpacked ({exc})") from None
    except NotImplementedError as exc:
        raise SkillSourceError(f"{info.filename!r} uses a compression this program cannot read ({exc})") from None
    except FileExistsError:
        raise SkillSourceError(f"the archive holds {info.filename!r} twice") from None
    except OSError as exc:
        raise SkillSourceError(f"{info.filename!r} cannot be unpacked: {exc.strerror or exc}") from None
    return total


def copy_folder(source: Path, target: Path, skip_top: tuple[str, ...] = ()) -> None:
    """Copy a skill folder into `target` with the archive's limits; links are refused, and so are
    hidden entries and the files named in `skip_top` at the top."""
    source = Path(source)
    count = 0
    total = 0
    folders = 0
    target.mkdir(parents=True, exist_ok=True)
    for root, dirs, files in os.walk(source, followlinks=False):
        here = Path(root)
        relative = here.relative_to(source)
        dirs[:] = sorted(d for d in dirs if d not in _IGNORED and d != "__pycache__" and not d.startswith("."))
        # Checked before the walk goes down: os.walk recurses, and thousands of levels overflow it.
        if dirs and len(relative.parts) >= MAX_DEPTH:
            raise SkillSourceError(f"{source.name} nests folders more than {MAX_DEPTH} deep ({relative.parts[0]}/...); "
                                   "a skill may not")
        folders += len(dirs)
        if folders > MAX_FOLDERS:
            raise SkillSourceError(f"{source.name} holds more than {MAX_FOLDERS} folders, more than a skill may have")
        for name in dirs:
            if (here / name).is_symlink():
                raise SkillSourceError(f"{relative / name} is a symbolic link; replace it with a real "
                                       "folder (links may point outside the skill)")
            (target / relative / name).mkdir()
        for name in sorted(files):
            if name in _IGNORED or name.startswith(".") or (relative == Path(".") and name in skip_top):
                continue
            path = here / name
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                raise SkillSourceError(f"{relative / name} is a symbolic link; replace it with a real file "
                                       "(links may point outside the skill)")
            if not stat.S_ISREG(st.st_mode):
                raise SkillSourceError(f"{relative / name} is not a regular file")
            count += 1
            total += st.st_size
            if count > MAX_FILES:
                raise SkillSourceError(f"{source.name} holds more than {MAX_FILES} files")
            if st.st_size > MAX_FILE_BYTES:
                raise SkillSourceError(f"{relative / name} is {st.st_size // (1024 * 1024)} MiB, more than "
                                       f"the {MAX_FILE_BYTES // (1024 * 1024)} MiB a skill file may have")
            if total > MAX_TOTAL_BYTES:
                raise SkillSourceError(f"{source.name} holds more than {MAX_TOTAL_BYTES // (1024 * 1024)} MiB")
            shutil.copy2(path, target / relative / name, follow_symlinks=False)
