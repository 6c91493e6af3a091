"""A tree memory as the plugin reads its file, and the index row the plugin's upsert makes of it."""
from __future__ import annotations

import json
import time
from typing import Any

from kiraos_desktop.core.storage.tree.files import importance_of
from kiraos_desktop.core.storage.tree.index_rows import RowKey
from kiraos_desktop.core.storage.tree.layout import EntityRef
from kiraos_desktop.core.storage.tree.writes import META_KEYS, content_hash

#: What recall reads of a row that comes from its memory's file (the rest, source and file_path
#: included, is written but not compared: it does not change what the bot recalls).
INDEXED_FROM_FILE = ("memory_type", "importance", "tags", "content_hash", "raw_text")
#: What the running plugin keeps changing in a row as it recalls the memory: an edit carries it over.
RUNTIME_STATE = ("timestamp", "last_accessed", "access_count")


def memory_of(data: dict[str, Any], memory_id: str) -> dict[str, Any]:
    """A memory as the plugin reads a file (Memory.from_toml_dict): the file name is its id; an
    importance that is no number 5, clamped to 1-10; tags not a list and source not a table dropped."""
    importance = importance_of(data.get("importance", 5))
    tags = data.get("tags", [])
    source = data.get("source", {})
    return {"id": memory_id, "type": str(data.get("type", "fact")), "text": str(data.get("text", "")),
            "importance": importance, "tags": tags if isinstance(tags, list) else [],
            "source": source if isinstance(source, dict) else {}}


def archived_meta(row: dict[str, Any]) -> dict[str, Any]:
    """An archived file's [meta] table from the row (tags and source as data, not JSON text)."""
    meta = {key: row[key] for key in META_KEYS}
    for key, empty in (("tags", []), ("source", {})):
        try:
            meta[key] = json.loads(meta[key]) if isinstance(meta[key], str) else meta[key]
        except ValueError:
            meta[key] = empty
    return meta


def index_row(ref: EntityRef, folder: str, memory: dict[str, Any], path: str, before: dict[str, Any] | None,
         meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The memory's row: its runtime state kept from `before` (an edit) or `meta` (a restore), else now."""
    now = time.time()
    kept = before or {}
    state = meta or {}
    key = RowKey.of(ref, folder, memory["id"])
    return {
        "id": memory["id"], "entity_id": key.entity_id, "entity_type": key.entity_type, "folder": folder,
        "memory_type": memory["type"], "importance": memory["importance"],
        "timestamp": kept.get("timestamp", state.get("timestamp", now)),
        "last_accessed": kept.get("last_accessed", state.get("last_accessed", now)),
        "access_count": kept.get("access_count", state.get("access_count", 0)),
        "tags": json.dumps(memory["tags"], ensure_ascii=False),
        "source": json.dumps(memory["source"], ensure_ascii=False, default=str),
        "content_hash": content_hash(memory["text"]), "file_path": kept.get("file_path") or path, "base_dir": key.base_dir,
        "raw_text": memory["text"],
    }
