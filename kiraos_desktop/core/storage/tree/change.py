"""One edit of a KiraOS 3.x tree as data: every file's and index row's before and after. The editor makes
and applies it (storage/tree/editor.py), the journal keeps it (storage/tree/journal.py) and the
write-ahead intent holds it while it is applied (storage/tree/write_ahead.py); its record, the JSON
object both write, is defined here once."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TreeChange:
    """One edit: every file (relative to the memory root; its text, None where there is none) and index
    row (its columns, None where there is none) before and after."""

    action: str  # add, edit, archive, restore (a revert: "revert")
    ref: str  # the entity's TYPE:ID label
    memory_id: str
    files: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    rows: list[tuple[dict[str, str], dict[str, Any] | None, dict[str, Any] | None]] = field(default_factory=list)
    indexed: bool = True  # False: the tree has no index yet

    def inverse(self) -> "TreeChange":
        return TreeChange("revert", self.ref, self.memory_id, [(p, a, b) for p, b, a in self.files],
                          [(k, a, b) for k, b, a in self.rows], self.indexed)

    def record(self) -> dict[str, Any]:
        """The change as a JSON object (read back by of_record())."""
        return {"action": self.action, "ref": self.ref, "memory_id": self.memory_id, "files": self.files,
                "rows": self.rows, "indexed": self.indexed}

    @classmethod
    def of_record(cls, data: dict[str, Any]) -> "TreeChange":
        """KeyError, TypeError or ValueError for an object that is no change's record."""
        return cls(str(data["action"]), str(data["ref"]), str(data["memory_id"]),
                   [tuple(f) for f in data["files"]], [tuple(r) for r in data["rows"]],  # type: ignore[misc]
                   bool(data.get("indexed", True)))
