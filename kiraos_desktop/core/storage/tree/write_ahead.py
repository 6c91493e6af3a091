"""Write-ahead intents for the edits of a KiraOS 3.x tree: before the first file of a change is renamed,
the whole change is written (and fsynced) to an intent file in our data dir, beside the tree's journal;
once the change and its history entry are written, the intent goes. A process killed in between leaves
its intent, and the next opening of the tree (command line, window or server: TreeJournal.recover())
settles it: a change whose every file and index row stands as it left them is finished (its history
entry written, once), any other is rolled back to what it found. File, index row and history agree.

A live process holds a lock (flock) on its intent, so that another process opening the tree meanwhile
leaves it alone; where there is no flock (Windows) an intent counts as left behind after STALE_AFTER_S.
"""
from __future__ import annotations

import itertools
import json
import logging
import os
import sqlite3
import time
import uuid
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol

from kiraos_desktop.core.memory.records import NotFoundError, StoreError
from kiraos_desktop.core.storage.tree.change import TreeChange
from kiraos_desktop.core.storage.tree.index_rows import RowKey, TreeIndex
from kiraos_desktop.core.storage.tree.memory_rows import INDEXED_FROM_FILE, RUNTIME_STATE
from kiraos_desktop.core.storage.tree.writes import remove_file, write_file

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

STALE_AFTER_S = 600
SUFFIX = ".json"
_held: ContextVar["Intent | None"] = ContextVar("tree_write_ahead", default=None)
_serial = itertools.count(1)  # next() on it is atomic: threads never share a name


class TreeEditor(Protocol):
    """What settling needs of storage/tree/editor.TreeEditor (which imports this module)."""

    root: str

    def text_or_none(self, relative: str) -> str | None: ...


class Intent:
    """The intent of one kept write: written by announce() when its change is applied, removed by
    close(done=True) once its history entry is written."""

    def __init__(self, folder: Path, actor: str, reverts: int | None) -> None:
        self.path = folder / f"{os.getpid()}-{next(_serial)}{SUFFIX}"
        self.token = uuid.uuid4().hex  # the history entry that finishes it carries this
        self.actor, self.reverts = actor, reverts
        self._fd: int | None = None

    def write(self, change: TreeChange) -> None:
        """Written whole under a temporary name, locked, fsynced, then renamed into place: an intent that
        can be read is complete, and one being written is no intent yet (nothing is applied before)."""
        if self._fd is not None:
            raise RuntimeError("one kept write applies one change")
        record = {"token": self.token, "actor": self.actor, "reverts": self.reverts, "change": change.record()}
        payload = json.dumps(record, ensure_ascii=False).encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.tmp")
        fd = os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
            os.replace(temporary, self.path)
        except BaseException:
            os.close(fd)
            temporary.unlink(missing_ok=True)
            raise
        self._fd = fd

    def close(self, done: bool) -> None:
        """done: the change and its history stand, the intent goes; else it stays for recover()."""
        if self._fd is None:
            return
        try:
            if done:
                self.path.unlink(missing_ok=True)
        finally:
            os.close(self._fd)  # the lock goes with it
            self._fd = None


def announce(change: TreeChange) -> None:
    """TreeEditor.apply() calls this before it writes anything: the held write's intent says `change`."""
    intent = _held.get()
    if intent is not None:
        intent.write(change)


@contextmanager
def held(folder: Path, actor: str, reverts: int | None) -> Iterator[Intent]:
    """The intent of the write made inside; its caller calls close(True) once the history holds it."""
    intent = Intent(folder, actor, reverts)
    token = _held.set(intent)
    try:
        yield intent
    finally:
        _held.reset(token)
        intent.close(done=False)


@contextmanager
def unannounced() -> Iterator[None]:
    """Changes applied inside leave the held intent as it is (a revert of the held change: recovering
    the intent would do the same)."""
    token = _held.set(None)
    try:
        yield
    finally:
        _held.reset(token)


Finish = Callable[[TreeChange, str, "int | None", str], None]


def recover(folder: Path, editor: TreeEditor, finish: Finish, finished: Callable[[str], bool]) -> list[str]:
    """Settle every intent in `folder` no live process holds: `finish(change, actor, reverts, token)`
    writes the history entry of a change that stands whole (unless `finished(token)` says it is
    written); the rest is rolled back. Returns what was done, one line each (also logged)."""
    done: list[str] = []
    try:
        paths = sorted(folder.iterdir())
    except OSError:  # none yet (or not readable: nothing of ours can be settled then)
        return done
    now = time.time()
    for path in paths:
        if path.name.endswith(".tmp"):  # an intent never completed: nothing of its change was applied
            if _age(path, now) > STALE_AFTER_S:
                path.unlink(missing_ok=True)
            continue
        if not path.name.endswith(SUFFIX):
            continue
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue  # settled by another process just now
        try:
            if not _left_behind(fd, path, now):
                continue
            line = _settle_file(path, fd, editor, finish, finished)
        except (OSError, sqlite3.Error, StoreError, NotFoundError) as exc:  # left for the next opening
            log.warning("an edit left half done (%s) could not be settled yet: %s", path.name, exc)
            continue
        finally:
            os.close(fd)
        if line:
            log.warning("%s", line)
            done.append(line)
    return done


def _age(path: Path, now: float) -> float:
    try:
        return now - path.stat().st_mtime
    except OSError:
        return 0.0


def _left_behind(fd: int, path: Path, now: float) -> bool:
    if fcntl is None:
        return _age(path, now) > STALE_AFTER_S
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False  # its process is still writing
    return path.exists()  # not settled and removed by another process before the lock was ours


def _settle_file(path: Path, fd: int, editor: TreeEditor, finish: Finish, finished: Callable[[str], bool]) -> str:
    try:
        data = json.loads(os.read(fd, os.fstat(fd).st_size + 1).decode("utf-8"))
        change = TreeChange.of_record(data["change"])
        token, actor, reverts = str(data["token"]), str(data["actor"]), data.get("reverts")
    except (ValueError, KeyError, TypeError):
        path.unlink(missing_ok=True)  # written only in part: nothing was applied before it was whole
        return ""
    if settle(editor, change):
        if not finished(token):
            finish(change, actor, reverts, token)
        line = f"finished {change.action} of {change.ref} {change.memory_id}, left half done by a stopped process"
    else:
        line = f"rolled back {change.action} of {change.ref} {change.memory_id}, left half done by a stopped process"
    path.unlink(missing_ok=True)
    return line


def _matches(now: Any, wanted: Any, rows: bool) -> bool:
    if not rows or now is None or wanted is None:
        return now == wanted
    return all(now.get(k) == wanted.get(k) for k in INDEXED_FROM_FILE)


def settle(editor: TreeEditor, change: TreeChange) -> bool:
    """True when every file and row of `change` stands as it left them; otherwise each one that does is
    put back as it was (one changed by someone else since is left alone) and False."""
    files = []
    for relative, before, after in change.files:
        try:
            now = editor.text_or_none(relative)
        except (StoreError, NotFoundError):
            now = object()  # unreadable now: neither side, left alone
        files.append((relative, before, _matches(now, before, False), _matches(now, after, False)))
    index = TreeIndex.of(editor.root) if change.rows else None
    rows = []
    if index is not None:
        with index.read() as reader:
            for key, before, after in change.rows:
                now = reader.row(RowKey(**key))
                rows.append((key, before, now, _matches(now, before, True), _matches(now, after, True)))
    if all(is_after for *_, is_after in files) and all(is_after for *_, is_after in rows):
        return True
    undo_rows = [(key, before, now) for key, before, now, is_before, is_after in rows if is_after and not is_before]
    if undo_rows and index is not None:
        with index.transaction() as writer:
            for key, before, now in undo_rows:
                if before is None:
                    writer.remove(RowKey(**key))
                else:
                    writer.put({**before, **({k: now[k] for k in RUNTIME_STATE} if now else {})})
    for relative, before, is_before, is_after in files:
        if is_after and not is_before:
            if before is None:
                remove_file(editor.root, relative)
            else:
                write_file(editor.root, relative, before.encode("utf-8"))
    return False
