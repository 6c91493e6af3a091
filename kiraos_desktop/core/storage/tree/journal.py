"""The history of our edits to a KiraOS 3.x tree: one JSON line per change (storage/tree/editor.TreeChange)
in our data dir, never in the tree, so that the History can show them and revert any of them."""
from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable

try:
    import fcntl
except ImportError:  # Windows: one process writes a tree's history at a time
    fcntl = None  # type: ignore[assignment]

from kiraos_desktop.core.memory.records import NotFoundError
from kiraos_desktop.core.storage.tree.change import TreeChange
from kiraos_desktop.core.storage.tree.editor import TreeEditor
from kiraos_desktop.core.storage.tree.files import FileRefused, parse_toml
from kiraos_desktop.core.storage.tree.write_ahead import held, recover, unannounced

JOURNAL_DIR = "tree-journals"


@dataclass(frozen=True)
class JournalEntry:
    id: int
    at: str
    actor: str
    change: TreeChange
    reverts: int | None = None  # the entry this one reverted
    intent: str | None = None  # the write-ahead intent's token (storage/tree/write_ahead.py)


def journal_path(data_dir: str | Path, memory_root: str) -> Path:
    """One journal per tree (by its real path), under our data dir."""
    digest = hashlib.sha256(os.path.realpath(memory_root).encode("utf-8")).hexdigest()[:16]
    return Path(data_dir) / JOURNAL_DIR / f"{digest}.jsonl"


class TreeJournal:
    """The journal file; entries are read once and then only what was appended since (by this or another
    process: a bot host's memory_update through the API appends while the window shows the history)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._entries: list[JournalEntry] = []
        self._read_to = 0  # bytes of the file read into _entries
        self._file_id: tuple[int, int] | None = None  # (device, inode) of the file read
        self._lock = threading.RLock()  # one reader or appender of this object at a time

    def entries(self) -> list[JournalEntry]:
        """Every entry, oldest first (a line that cannot be read is skipped: it is never rewritten)."""
        with self._lock:
            return self._read_entries()

    def _read_entries(self) -> list[JournalEntry]:
        try:
            status = self.path.stat()
        except OSError:
            return []
        file_id = (status.st_dev, status.st_ino)
        if file_id != self._file_id or status.st_size < self._read_to:  # another file: read it all
            self._entries, self._read_to, self._file_id = [], 0, file_id
        if status.st_size > self._read_to:
            with open(self.path, "rb") as source:
                source.seek(self._read_to)
                data = source.read()
            complete = data[:data.rfind(b"\n") + 1]  # a line still being written is read next time
            self._read_to += len(complete)
            self._entries.extend(entry for line in complete.decode("utf-8", "replace").splitlines()
                                 if (entry := _entry(line)) is not None)
        return list(self._entries)

    @property
    def intents(self) -> Path:
        """The write-ahead intents of edits being made to this tree (storage/tree/write_ahead.py)."""
        return self.path.with_suffix(".pending")

    def keep(self, editor: TreeEditor, write: Callable[[], TreeChange], actor: str,
             reverts: int | None = None) -> tuple[TreeChange, JournalEntry]:
        """Make a change with `write()` and keep it here, a write-ahead intent held meanwhile; when it
        cannot be kept (a full disk), it is reverted and the error raised: no edit stands without its
        history. An intent a failed write leaves is settled at once when it can be."""
        try:
            with held(self.intents, actor, reverts) as intent:
                change = write()
                try:
                    entry = self.append(change, actor, reverts, intent.token)
                except OSError:
                    with unannounced():  # settling the intent would do the same
                        editor.revert(change)
                    raise
                intent.close(done=True)
                return change, entry
        except BaseException:
            self.recover(editor)
            raise

    def recover(self, editor: TreeEditor) -> list[str]:
        """Finish or roll back every edit a stopped process left half done (one line each of what was
        done): run at each opening of the tree, by the command line, the window and the server."""
        def finished(token: str) -> bool:
            return any(entry.intent == token for entry in self.entries())

        def finish(change: TreeChange, actor: str, reverts: int | None, token: str) -> None:
            self.append(change, actor, reverts, token)

        return recover(self.intents, editor, finish, finished)

    def get(self, entry_id: int) -> JournalEntry:
        for entry in self.entries():
            if entry.id == entry_id:
                return entry
        raise NotFoundError(f"the history holds no change {entry_id}")

    def append(self, change: TreeChange, actor: str, reverts: int | None = None,
               intent: str | None = None) -> JournalEntry:
        """The change as the next entry: its number taken and its line written under one lock on the
        file (flock: other processes too; a lock of ours: this process's threads), so that the
        window, the server and the command line writing at once never share a number."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                entries = self.entries()
                entry = JournalEntry((entries[-1].id if entries else 0) + 1,
                                     datetime.now().isoformat(timespec="seconds"), actor, change, reverts, intent)
                record = {"id": entry.id, "at": entry.at, "actor": actor, **change.record(), "reverts": reverts,
                          "intent": intent}
                _append_line(fd, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
            finally:
                os.close(fd)  # the flock goes with it
        return entry


def _append_line(fd: int, line: bytes) -> None:
    """Append one whole line or nothing: a write that fails (a full disk) is cut off again, and a
    line a killed process left unfinished is ended first, so that it stays a line of its own (read
    as nothing) instead of swallowing the next entry."""
    start = os.fstat(fd).st_size
    if start and os.pread(fd, 1, start - 1) != b"\n":
        line = b"\n" + line
    try:
        view = memoryview(line)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except OSError:
        os.ftruncate(fd, start)
        raise


def _entry(line: str) -> JournalEntry | None:
    try:
        data = json.loads(line)
        return JournalEntry(int(data["id"]), data["at"], data["actor"], TreeChange.of_record(data),
                            data.get("reverts"), data.get("intent"))
    except (ValueError, KeyError, TypeError):
        return None


def change_text(change: TreeChange) -> str:
    """What the change is about, as an operator reads it: the text of the memory it wrote or removed
    (its file after the change, else before), the profile for a profile change, "" when no file holds
    a text (a history shows this rather than the memory's file name, a hash-suffixed id)."""
    texts = []
    for relative, before, after in change.files:
        if not relative.endswith(".toml"):
            continue
        for content in (after, before):
            try:
                text = parse_toml(content).get("text") if content else None
            except FileRefused:
                text = None
            if isinstance(text, str) and text.strip():
                text = " ".join(text.split())
                if text not in texts:  # an archive or a move: the same memory in two files
                    texts.append(text)
                break
    if len(texts) > 1:
        return f"{texts[0]} (+{len(texts) - 1})"
    return texts[0] if texts else ""
