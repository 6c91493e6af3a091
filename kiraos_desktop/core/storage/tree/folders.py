"""Writing inside a KiraOS 3.x tree through folder descriptors.

The editor checked that no step of a path was a link, then wrote by the path: two lookups, and a
process that swapped `facts/` for a link between them had a file written outside the tree (one in
868 adds). Here each step from the memory root is opened without following a link (O_NOFOLLOW,
O_DIRECTORY), and the file is created, renamed and removed relative to the folder so opened: what
is written is inside the folder that was checked, whatever the path names by then.

Where the system has no such calls (Windows), the paths are used, after the editor's own checks.
"""
from __future__ import annotations

import os
import stat
import time
import uuid
from contextlib import contextmanager
from typing import Iterator

# os.replace takes dir_fd where os.rename does (supports_dir_fd lists rename only).
_BY_DESCRIPTOR = (hasattr(os, "O_DIRECTORY") and hasattr(os, "O_NOFOLLOW")
                  and {os.open, os.rename, os.unlink, os.stat} <= os.supports_dir_fd)
TEMPORARY_PREFIX, TEMPORARY_SUFFIX = ".kd-", ".tmp"
#: A temporary file of ours this old was left by a write that was killed (a write takes milliseconds).
STALE_TEMPORARY_S = 600


class Folder:
    """One folder of the tree, opened: `write()` a file whole, `remove()` one, by name."""

    def __init__(self, path: str, fd: int | None) -> None:
        self.path, self._fd = path, fd

    def _where(self, name: str) -> dict:
        return {"dir_fd": self._fd} if self._fd is not None else {}

    def _name(self, name: str) -> str:
        return name if self._fd is not None else os.path.join(self.path, name)

    def write(self, name: str, payload: bytes) -> None:
        """Into a temporary file (a name the plugin's scan skips), fsynced, renamed over `name`; the
        file keeps the mode of the one it replaces, a new one 0666 less the umask (what the plugin's
        own writes get)."""
        self.remove_stale_temporaries()
        mode = self._mode_of(name)
        temporary = f"{TEMPORARY_PREFIX}{uuid.uuid4().hex[:12]}{TEMPORARY_SUFFIX}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(self._name(temporary), flags, 0o600, **self._where(temporary))
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(payload)
                out.flush()
                if hasattr(os, "fchmod"):
                    os.fchmod(out.fileno(), mode)
                os.fsync(out.fileno())
            if self._fd is not None:
                os.replace(temporary, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)
            else:
                os.replace(self._name(temporary), self._name(name))
        except BaseException:
            try:
                os.unlink(self._name(temporary), **self._where(temporary))
            except OSError:
                pass
            raise
        self._sync()

    def remove(self, name: str) -> None:
        """Remove `name` (nothing when it is gone already)."""
        try:
            os.unlink(self._name(name), **self._where(name))
        except FileNotFoundError:
            return
        self._sync()

    def remove_stale_temporaries(self) -> int:
        """Remove the temporary files a killed write of ours left here (the plugin skips them, so
        nothing else would); how many. Links and names not ours are left alone."""
        removed, now = 0, time.time()
        try:
            names = os.listdir(self._fd if self._fd is not None else self.path)
        except OSError:
            return 0
        for name in names:
            if not (name.startswith(TEMPORARY_PREFIX) and name.endswith(TEMPORARY_SUFFIX)):
                continue
            try:
                info = os.stat(self._name(name), follow_symlinks=False, **self._where(name))
                if stat.S_ISREG(info.st_mode) and now - info.st_mtime > STALE_TEMPORARY_S:
                    os.unlink(self._name(name), **self._where(name))
                    removed += 1
            except OSError:
                continue  # gone meanwhile, or not ours to remove
        return removed

    def _mode_of(self, name: str) -> int:
        try:
            return stat.S_IMODE(os.stat(self._name(name), follow_symlinks=False, **self._where(name)).st_mode)
        except OSError:
            return 0o666 & ~_umask()

    def _sync(self) -> None:
        """The rename or removal itself survives a crash once the folder is synced (where it can be)."""
        fd = self._fd
        opened = None
        if fd is None:
            try:
                fd = opened = os.open(self.path, os.O_RDONLY)
            except OSError:
                return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            if opened is not None:
                os.close(opened)


@contextmanager
def opened_folder(root: str, relative: str) -> Iterator[Folder]:
    """The folder `relative` (parts split by "/") under the tree's `root`, each step opened without
    following a link: OSError (ELOOP, ENOTDIR) when one is a link or no folder."""
    path = os.path.join(root, *[part for part in relative.split("/") if part])
    if not _BY_DESCRIPTOR:
        yield Folder(path, None)
        return
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in [part for part in relative.split("/") if part]:
            child = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = child
        yield Folder(path, fd)
    finally:
        os.close(fd)


def _umask() -> int:
    """The process's umask: Linux says it in /proc (setting it to read it would race other threads'
    file creations); elsewhere it is set and put back at once."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask
