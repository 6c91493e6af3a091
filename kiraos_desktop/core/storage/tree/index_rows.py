"""A tree's memory_index.db rows, written as the plugin's index writes them (memory_index `upsert`, `delete`).

A row is keyed by (entity_type, entity_id, folder, base_dir, id); its FTS row holds the text cut by
jieba's precise mode (storage/tree/writes.segment) and the tags joined by spaces, under the row's
storage key (KiraOS 3.x) or its id (the hippocampus plugin, whose `memories.id` is the primary key).
The plugin keeps its runtime state in the row (timestamp, last_accessed, access_count): an edit keeps
them, as the plugin's update does.
"""
from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any, Iterator

from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.storage.tree.injection import INDEX_HIPPOCAMPUS, INDEX_KIRAOS, index_writer
from kiraos_desktop.core.storage.tree.layout import INDEX_FILE, EntityRef, scope_dirs
from kiraos_desktop.core.storage.tree.writes import segment

COLUMNS = ("id", "entity_id", "entity_type", "folder", "memory_type", "importance", "timestamp", "last_accessed",
           "access_count", "tags", "source", "content_hash", "file_path", "base_dir", "raw_text")
_KEY_COLUMNS = ("entity_type", "entity_id", "folder", "base_dir", "id")
_UPDATED = [name for name in COLUMNS if name not in _KEY_COLUMNS]
BUSY_TIMEOUT_S = 10


@dataclass(frozen=True)
class RowKey:
    entity_type: str
    entity_id: str
    folder: str
    base_dir: str
    id: str

    @classmethod
    def of(cls, ref: EntityRef, folder: str, memory_id: str) -> "RowKey":
        if ref.is_global:
            return cls("", "", folder, scope_dirs(ref)[0], memory_id)
        return cls(ref.kind, ref.id, folder, "", memory_id)

    def storage_key(self) -> str:
        return "\x01".join((self.entity_type, self.entity_id, self.folder, self.base_dir, self.id))

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


class IndexRows:
    """The rows of the index on one connection (TreeIndex.read() or transaction())."""

    def __init__(self, conn: sqlite3.Connection, schema: str) -> None:
        self._conn = conn
        self._schema = schema

    def _fts_key(self, key: RowKey) -> str:
        return key.storage_key() if self._schema == INDEX_KIRAOS else key.id

    def row(self, key: RowKey) -> dict[str, Any] | None:
        """The row as stored (tags and source as their JSON texts), or None."""
        found = self._conn.execute(
            f"SELECT {', '.join(COLUMNS)} FROM memories WHERE entity_type = ? AND entity_id = ? AND folder = ? "
            "AND base_dir = ? AND id = ?", (key.entity_type, key.entity_id, key.folder, key.base_dir, key.id)).fetchone()
        return dict(zip(COLUMNS, found)) if found else None

    def put(self, row: dict[str, Any]) -> None:
        """Insert or update the row and its FTS row."""
        conflict = ", ".join(_KEY_COLUMNS) if self._schema == INDEX_KIRAOS else "id"
        updates = ", ".join(f"{name} = excluded.{name}" for name in _UPDATED)
        self._conn.execute(f"INSERT INTO memories ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))}) "
                           f"ON CONFLICT({conflict}) DO UPDATE SET {updates}", tuple(row[name] for name in COLUMNS))
        key = RowKey(*(row[name] for name in _KEY_COLUMNS))
        tags = json.loads(row["tags"]) if isinstance(row["tags"], str) else row["tags"]
        self._conn.execute("DELETE FROM memories_fts WHERE memory_id = ?", (self._fts_key(key),))
        self._conn.execute("INSERT INTO memories_fts (memory_id, raw_text, tags_text) VALUES (?, ?, ?)",
                           (self._fts_key(key), segment(row["raw_text"]), " ".join(str(t) for t in tags or [])))

    def remove(self, key: RowKey) -> None:
        self._conn.execute("DELETE FROM memories WHERE entity_type = ? AND entity_id = ? AND folder = ? AND "
                           "base_dir = ? AND id = ?", (key.entity_type, key.entity_id, key.folder, key.base_dir, key.id))
        self._conn.execute("DELETE FROM memories_fts WHERE memory_id = ?", (self._fts_key(key),))


class TreeIndex:
    """memory_index.db of a tree (see the module's docstring)."""

    def __init__(self, path: str) -> None:
        self.path = path

    @classmethod
    def of(cls, memory_root: str) -> "TreeIndex | None":
        """The tree's index; None when it has none yet (the plugin builds it at its start). A link is
        refused (StoreError): the plugin uses the file it names, so an edit that left it out would
        say the tree has no index while the bot recalls the old text; nothing outside the tree is
        written."""
        path = os.path.join(memory_root, INDEX_FILE)
        if os.path.islink(path):
            raise StoreError(f"{INDEX_FILE} is a link: nothing outside the tree is written, and an edit without "
                             "its index row would not reach the bot; nothing was written")
        return cls(path) if os.path.isfile(path) else None

    def _connect(self) -> tuple[sqlite3.Connection, str]:
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        schema = index_writer(conn)
        if schema not in (INDEX_KIRAOS, INDEX_HIPPOCAMPUS):
            conn.close()
            raise StoreError(f"{INDEX_FILE} has neither plugin's schema: nothing was written "
                             "(the plugin rebuilds it at its start)")
        return conn, schema

    @contextmanager
    def read(self) -> Iterator[IndexRows]:
        """Reading rows without a write transaction (the running plugin's writes never wait for it)."""
        conn, schema = self._connect()
        try:
            yield IndexRows(conn, schema)
        finally:
            conn.close()

    @contextmanager
    def transaction(self) -> Iterator[IndexRows]:
        """One write transaction (it waits for the running plugin's up to BUSY_TIMEOUT_S); rolled back on error."""
        conn, schema = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield IndexRows(conn, schema)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        finally:
            conn.close()
