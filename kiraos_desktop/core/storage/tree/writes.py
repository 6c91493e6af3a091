"""How the KiraOS plugin 3.x writes its tree's files: ids, TOML, atomic writes, the FTS text; the checks of
what an operator writes. storage/tree/editor.py makes the changes, storage/tree/index_rows.py the rows.

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
from typing import Any

import rjieba
import tomli_w

from kiraos_desktop.core.memory.records import ValidationError
from kiraos_desktop.core.storage.tree.folders import opened_folder
from kiraos_desktop.core.storage.tree.refusals import refusal

MAX_TEXT_CHARS = 10000
#: The keys of a memory file, in the plugin's order (Memory.to_toml_dict); `source` only when there is one.
MEMORY_KEYS = ("id", "type", "text", "importance", "tags", "source")
#: The runtime state an archived file keeps in its [meta] table (from the index row).
META_KEYS = ("importance", "timestamp", "access_count", "last_accessed", "tags", "source")


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


def memory_toml(memory: dict[str, Any], meta: dict[str, Any] | None = None) -> str:
    """A memory file's text, its keys in the plugin's order; with `meta`, an archived file's [meta] table."""
    data = {key: memory[key] for key in MEMORY_KEYS[:5]}
    if memory.get("source"):
        data["source"] = memory["source"]
    if meta is not None:
        data["meta"] = {key: value for key, value in meta.items() if value is not None}
    return tomli_w.dumps(data)


def write_file(root: str, relative: str, payload: bytes) -> None:
    """The file `relative` (under the tree's `root`) written whole, as the plugin writes one: a
    temporary file fsynced and renamed over it, inside the folder as opened step by step without
    following a link (tree/folders.py)."""
    folder, _, name = relative.rpartition("/")
    with opened_folder(root, folder) as opened:
        opened.write(name, payload)


def remove_file(root: str, relative: str) -> None:
    """The file `relative` removed, inside its folder as opened (tree/folders.py)."""
    folder, _, name = relative.rpartition("/")
    with opened_folder(root, folder) as opened:
        opened.remove(name)


def check_importance(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10:
        raise refusal(ValidationError, "importance", "importance")
    return value


def check_text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise refusal(ValidationError, "empty_text", "text")
    if len(value) > MAX_TEXT_CHARS:
        raise refusal(ValidationError, "long_text", "text", limit=MAX_TEXT_CHARS)
    return value


def check_tags(values: Any) -> list[str]:
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in values):
        raise refusal(ValidationError, "bad_tags", "tags")
    return list(dict.fromkeys(v.strip() for v in values))
