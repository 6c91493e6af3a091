"""Writing a KiraOS plugin 3.x tree as the plugin writes it: a memory file and its index row in one step.

Facts from the plugin (v3.0.1: toml_tree_store `add_memory`, `_generate_fallback_id`,
`_atomic_write_bytes`, `Memory.to_toml_dict`; memory_index `upsert`, `content_hash`,
`_segment_for_fts`), restated:
- A memory file holds `id`, `type`, `text`, `importance` (1-10), `tags` and, when there is one, a
  `[source]` table whose `time` is an ISO text (UTC); it is written by tomli_w into a temporary file
  beside it, fsynced and renamed over it.
- A new memory without a slug of its own is named by its text: its first 20 characters with spaces
  and "/" as "_", only letters, digits, "_" and "-" kept, then "_" and the first 8 hex digits of the
  SHA-256 of the text ("mem_" and those digits when nothing is left). A name taken by another text
  (or by a file that cannot be read) gets "_" and those 8 digits again; the same text keeps it.
- The index row: timestamp and last_accessed now, access_count 0, tags and source as JSON
  (ensure_ascii off), content_hash the first 16 hex digits of the text's SHA-256, file_path the file,
  base_dir "" for an entity ("global", "global/self" for the bot's own memory, with an empty entity
  id and type), raw_text the text; its FTS row holds the text cut by jieba's precise mode joined by
  spaces (rjieba here: jieba's algorithm and dictionary), and the tags joined by spaces, under the
  row's storage key (KiraOS) or its id (the hippocampus plugin's schema).
Nothing outside the tree is written or followed: every folder on the way is a real folder of the tree.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import rjieba
import tomli_w

from kiraos_desktop.core.memory.records import NotFoundError, StoreError, ValidationError
from kiraos_desktop.core.storage.tree.injection import INDEX_HIPPOCAMPUS, INDEX_KIRAOS, index_writer
from kiraos_desktop.core.storage.tree.layout import INDEX_FILE, MEMORY_SUFFIX, EntityRef, scope_dirs

MAX_TEXT_CHARS = 10000
#: Who keeps reflections (the plugin makes reflections/ for users and groups; the bot's self memory has one).
REFLECTING_KINDS = ("user", "group", "self")
INDEX_BUSY_TIMEOUT_S = 10


def content_hash(text: str) -> str:
    """The index's content_hash: the first 16 hex digits of the text's SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def fallback_id(text: str) -> str:
    """The id the plugin gives a memory without a slug of its own (see the module's docstring)."""
    digits = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    cleaned = text.strip()[:20].replace(" ", "_").replace("/", "_")
    safe = "".join(c for c in cleaned if c.isalnum() or c in ("_", "-"))
    return f"{safe}_{digits}" if safe else f"mem_{digits}"


def segment(text: str) -> str:
    """The FTS text: the words of jieba's precise mode, blanks left out, joined by spaces."""
    return " ".join(token for token in rjieba.cut(text) if token.strip()) if text else ""


def memory_toml(memory: dict[str, Any]) -> bytes:
    """A memory file's bytes, its keys in the plugin's order."""
    data = {key: memory[key] for key in ("id", "type", "text", "importance", "tags")}
    if memory.get("source"):
        data["source"] = memory["source"]
    return tomli_w.dumps(data).encode("utf-8")


def atomic_write(path: str, payload: bytes) -> None:
    """Write into a temporary file beside `path` (a name the plugin's scan skips), fsync, rename over it."""
    folder = os.path.dirname(path)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".kd-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    try:  # the rename itself survives a crash once the folder is synced (where folders can be opened)
        directory = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(directory)
    except OSError:
        pass
    finally:
        os.close(directory)


@dataclass(frozen=True)
class Written:
    """A memory as written: where (relative to the memory root) and what."""

    ref: EntityRef
    folder: str
    id: str
    path: str
    memory: dict[str, Any]
    indexed: bool  # False: the tree has no index yet (the plugin builds it at its start)


def check_importance(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10:
        raise ValidationError("importance", "must be a whole number from 1 to 10")
    return value


def check_text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError("text", "must not be empty")
    if len(value) > MAX_TEXT_CHARS:
        raise ValidationError("text", f"is longer than {MAX_TEXT_CHARS} characters")
    return value


def check_tags(values: Any) -> list[str]:
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in values):
        raise ValidationError("tags", "must be a list of non-empty texts")
    return list(dict.fromkeys(v.strip() for v in values))


class TreeWriter:
    """Writes into the tree under a plugin's `memory/` folder (the one EntityTree reads)."""

    def __init__(self, memory_root: str) -> None:
        self.root = os.path.realpath(memory_root)

    def _real_folder(self, relative: str, create: bool = False) -> str:
        """The absolute folder of `relative` under the root, each step a real folder (never a link),
        missing steps made when `create`; NotFoundError when it is not there."""
        path = self.root
        for part in relative.split("/"):
            path = os.path.join(path, part)
            if os.path.islink(path):
                raise NotFoundError(f"{relative} is a link: nothing outside the tree is written")
            if not os.path.isdir(path):
                if not create or os.path.lexists(path):
                    raise NotFoundError(f"the tree has no {relative}/")
                os.mkdir(path)
        return path

    def add(self, ref: EntityRef, text: str, importance: int = 5, tags: tuple[str, ...] | list[str] = (),
            reflection: bool = False, session: str | None = None) -> Written:
        """A new fact (or reflection) of the entity, and its index row; NotFoundError when the tree has
        no such entity, ValidationError for a bad value (nothing written then)."""
        text, importance, tag_list = check_text(text), check_importance(importance), check_tags(list(tags))
        base, folders = scope_dirs(ref)
        folder = "reflections" if reflection else "facts"
        if folder not in folders or (reflection and ref.kind not in REFLECTING_KINDS):
            raise ValidationError("folder", f"{ref.label()} keeps no {folder}")
        if not ref.is_global:
            self._real_folder(base)  # an entity the tree holds (the bot's own memory is made when missing)
        target = self._real_folder(f"{base}/{folder}", create=True)
        source: dict[str, Any] = {"time": datetime.now(timezone.utc).isoformat()}
        if session:
            source["session"] = session
        memory_id = self._free_id(target, fallback_id(text), text)
        memory = {"id": memory_id, "type": "reflection" if reflection else "fact", "text": text,
                  "importance": importance, "tags": tag_list, "source": source}
        path = os.path.join(target, memory_id + MEMORY_SUFFIX)
        atomic_write(path, memory_toml(memory))
        try:
            indexed = self._index(ref, folder, base, memory, path)
        except BaseException:
            os.unlink(path)  # the file and its row go together, or neither
            raise
        return Written(ref, folder, memory_id, f"{base}/{folder}/{memory_id}{MEMORY_SUFFIX}", memory, indexed)

    @staticmethod
    def _free_id(folder: str, memory_id: str, text: str) -> str:
        """`memory_id`, or it with "_" and the text's hash when another text (or a file that cannot be
        read) has the name: never overwrite what is there."""
        path = os.path.join(folder, memory_id + MEMORY_SUFFIX)
        if not os.path.lexists(path):
            return memory_id
        try:
            import tomllib

            with open(path, "rb") as existing:
                same = content_hash(str(tomllib.load(existing).get("text", ""))) == content_hash(text)
        except (OSError, ValueError):
            same = False
        return memory_id if same and not os.path.islink(path) else f"{memory_id}_{content_hash(text)[:8]}"

    def _index(self, ref: EntityRef, folder: str, base: str, memory: dict[str, Any], path: str) -> bool:
        """The memory's index row and FTS row, as the plugin's upsert writes them; False without an index."""
        index = os.path.join(self.root, INDEX_FILE)
        if not os.path.isfile(index) or os.path.islink(index):
            return False
        now = time.time()
        entity_id, entity_type, base_dir = ("", "", base) if ref.is_global else (ref.id, ref.kind, "")
        text = memory["text"]
        row = (memory["id"], entity_id, entity_type, folder, memory["type"], memory["importance"], now, now, 0,
               json.dumps(memory["tags"], ensure_ascii=False), json.dumps(memory["source"], ensure_ascii=False),
               content_hash(text), path, base_dir, text)
        conn = sqlite3.connect(index, timeout=INDEX_BUSY_TIMEOUT_S, isolation_level=None)
        try:
            schema = index_writer(conn)
            if schema not in (INDEX_KIRAOS, INDEX_HIPPOCAMPUS):
                raise StoreError(f"{INDEX_FILE} has neither plugin's schema: nothing was written "
                                 "(the plugin rebuilds it at its start)")
            conflict = ("(entity_type, entity_id, folder, base_dir, id)" if schema == INDEX_KIRAOS else "(id)")
            key = ("\x01".join((entity_type, entity_id, folder, base_dir, memory["id"]))
                   if schema == INDEX_KIRAOS else memory["id"])
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(
                    "INSERT INTO memories (id, entity_id, entity_type, folder, memory_type, importance, timestamp, "
                    "last_accessed, access_count, tags, source, content_hash, file_path, base_dir, raw_text) "
                    f"VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT{conflict} DO UPDATE SET "
                    "memory_type = excluded.memory_type, timestamp = excluded.timestamp, "
                    "importance = excluded.importance, last_accessed = excluded.last_accessed, "
                    "access_count = excluded.access_count, tags = excluded.tags, source = excluded.source, "
                    "content_hash = excluded.content_hash, file_path = excluded.file_path, "
                    "raw_text = excluded.raw_text", row)
                conn.execute("DELETE FROM memories_fts WHERE memory_id = ?", (key,))
                conn.execute("INSERT INTO memories_fts (memory_id, raw_text, tags_text) VALUES (?, ?, ?)",
                             (key, segment(text), " ".join(memory["tags"])))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        finally:
            conn.close()
        return True
