"""The history of our edits to a KiraOS 3.x tree: one JSON line per change (storage/tree/editor.TreeChange)
in our data dir, never in the tree, so that the History can show them and revert any of them."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from kiraos_desktop.core.memory.records import NotFoundError
from kiraos_desktop.core.storage.tree.editor import TreeChange

JOURNAL_DIR = "tree-journals"


@dataclass(frozen=True)
class JournalEntry:
    id: int
    at: str
    actor: str
    change: TreeChange
    reverts: int | None = None  # the entry this one reverted


def journal_path(data_dir: str | Path, memory_root: str) -> Path:
    """One journal per tree (by its real path), under our data dir."""
    digest = hashlib.sha256(os.path.realpath(memory_root).encode("utf-8")).hexdigest()[:16]
    return Path(data_dir) / JOURNAL_DIR / f"{digest}.jsonl"


class TreeJournal:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def entries(self) -> list[JournalEntry]:
        """Every entry, oldest first (a line that cannot be read is skipped: it is never rewritten)."""
        if not self.path.is_file():
            return []
        found = []
        with open(self.path, encoding="utf-8") as lines:
            for line in lines:
                try:
                    data = json.loads(line)
                    change = TreeChange(data["action"], data["ref"], data["memory_id"],
                                        [tuple(f) for f in data["files"]], [tuple(r) for r in data["rows"]],
                                        data.get("indexed", True))
                    found.append(JournalEntry(int(data["id"]), data["at"], data["actor"], change, data.get("reverts")))
                except (ValueError, KeyError, TypeError):
                    continue
        return found

    def get(self, entry_id: int) -> JournalEntry:
        for entry in self.entries():
            if entry.id == entry_id:
                return entry
        raise NotFoundError(f"the history holds no change {entry_id}")

    def append(self, change: TreeChange, actor: str, reverts: int | None = None) -> JournalEntry:
        entries = self.entries()
        entry = JournalEntry((entries[-1].id if entries else 0) + 1, datetime.now().isoformat(timespec="seconds"),
                             actor, change, reverts)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        record = {"id": entry.id, "at": entry.at, "actor": actor, "action": change.action, "ref": change.ref,
                  "memory_id": change.memory_id, "files": change.files, "rows": change.rows,
                  "indexed": change.indexed, "reverts": reverts}
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())
        return entry
