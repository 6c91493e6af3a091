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
import os
import stat
import tempfile
import time
from typing import Any

import rjieba
import tomli_w

from kiraos_desktop.core.memory.records import ValidationError
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


def atomic_write(path: str, payload: bytes) -> None:
    """Write into a temporary file beside `path` (a name the plugin's scan skips), fsync, rename over it.
    The file keeps the mode of the one it replaces, and a new one gets what the plugin's own writes
    get (0666 less the umask): mkstemp's 0600 left edited memories unreadable to a plugin running as
    another user."""
    folder = os.path.dirname(path)
    mode = _mode_for(path)
    remove_stale_temporaries(folder)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=_TEMPORARY_PREFIX, suffix=_TEMPORARY_SUFFIX)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
            out.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(out.fileno(), mode)
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


_TEMPORARY_PREFIX, _TEMPORARY_SUFFIX = ".kd-", ".tmp"
#: A temporary file of ours this old was left by a write that was killed (a write takes milliseconds).
STALE_TEMPORARY_S = 600


def remove_stale_temporaries(folder: str) -> int:
    """Remove the temporary files a killed write of ours left in `folder` (the plugin skips them, so
    nothing else would); how many. Links and anything not ours are left alone."""
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    now = time.time()
    for entry in entries:
        if not (entry.name.startswith(_TEMPORARY_PREFIX) and entry.name.endswith(_TEMPORARY_SUFFIX)):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and now - info.st_mtime > STALE_TEMPORARY_S:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue  # gone meanwhile, or not ours to remove
    return removed


def _mode_for(path: str) -> int:
    try:
        return stat.S_IMODE(os.lstat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


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
