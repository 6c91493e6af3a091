"""What a KiraOS plugin 3.x bot injects for a message: the user's profile text and the memories it recalls.

Restated from the plugin (v3.0.1: main.py `inject_context`, memory_manager `recall`, toml_tree_store
`search`/`search_across_folders`, memory_index `fts_search`/`_build_fts_query`, entity_profile
`to_prompt`), so that an operator sees what the bot sees, and a second bot host can be given it:
- `[用户 {id} 画像]` and the profile's prompt text, unless it is empty ("暂无画像信息");
- `[相关记忆]` and one line `- [{type}] [{tags}] {text}` per recalled memory: the top k (5) of the
  user's facts and reflections for the message. Per folder, the index's FTS5 table is matched with
  the message's words (segmented in jieba's precise mode, one-character Chinese words left out, joined
  by OR), 6k candidates by BM25, each scored BM25 x (1 + importance/10 x 0.3 + recency x 0.2), recency
  halving every 30 days since the memory was last used; the best 2k of the folder are kept, k of them
  given; both folders' are merged by that score (importance x 0.6 + e^(-days/30) x 0.4 breaking ties)
  and the best k shown, each with the text, tags and importance of its file when the file is readable.
Where we differ: words are cut by rjieba (jieba's algorithm and dictionary in Rust); the memory file is
the one in this tree (the index's absolute `file_path` is never followed); the plugin's own dynamic
state (a custom jieba dictionary, vectors) is not seen.
"""
from __future__ import annotations

import json
import math
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rjieba

from kiraos_desktop.core.storage.plugin_layout import read_only_uri
from kiraos_desktop.core.storage.tree.files import FileRefused, TreeMemory
from kiraos_desktop.core.storage.tree.layout import MEMORY_SUFFIX, EntityRef, scope_dirs

TOP_K = 5  # the plugin's recall_top_k default
RECALL_FOLDERS = ("facts", "reflections")
EMPTY_PROFILE = "暂无画像信息"
_FTS_SPECIALS = '"\'()*+-:^{}~[]@<>/\\|!?#&=;,.'
_SECONDS_PER_DAY = 86400


@dataclass(frozen=True)
class Recalled:
    """A memory the bot recalls for a message, with the scores that put it there."""

    id: str
    folder: str
    type: str
    text: str
    tags: tuple[str, ...]
    importance: int
    bm25: float  # |bm25()| of the FTS5 match
    score: float  # bm25 x (1 + importance/10 x 0.3 + recency x 0.2)


@dataclass(frozen=True)
class Injection:
    text: str  # what the plugin adds to the system prompt's memory part for this message ("" for nothing)
    profile_prompt: str
    recalled: list[Recalled] = field(default_factory=list)
    fts_query: str = ""


def profile_prompt(profile: dict[str, Any]) -> str:
    """The plugin's EntityProfile.to_prompt() of a profile as profile.json holds it."""
    get = profile.get
    parts = []
    name, nickname = get("name", ""), get("nickname", "")
    if name:
        parts.append(f"名字: {name}")
    if nickname and nickname != name:
        parts.append(f"昵称: {nickname}")
    if get("aliases"):
        parts.append(f"曾用名: {', '.join(map(str, get('aliases')))}")
    if get("platform"):
        parts.append(f"平台: {get('platform')}")
    if get("description"):
        parts.append(f"描述: {get('description')}")
    if get("traits"):
        parts.append(f"特征: {', '.join(map(str, get('traits')))}")
    if get("preferences"):
        parts.append("偏好: " + ", ".join(f"{k}: {v}" for k, v in get("preferences").items()))
    if get("relationships"):
        parts.append("关系: " + ", ".join(f"{k}: {v}" for k, v in get("relationships").items()))
    if get("facts"):
        parts.append("已知事实:\n  " + "\n  ".join(f"- {fact}" for fact in get("facts")))
    if get("interaction_count"):
        parts.append(f"互动次数: {get('interaction_count')}")
    return "\n".join(parts) if parts else EMPTY_PROFILE


def fts_query(message: str) -> str:
    """The FTS5 query the plugin makes of a message ("" when it makes none)."""
    cleaned = message.strip()
    for ch in _FTS_SPECIALS:
        cleaned = cleaned.replace(ch, " ")
    cleaned = cleaned.strip()
    if not cleaned:
        return ""
    tokens = [t.strip() for t in rjieba.cut(cleaned) if t.strip()]
    tokens = [t for t in tokens if len(t) > 1 or t.isascii()]
    if not tokens:
        return cleaned
    return tokens[0] if len(tokens) == 1 else " OR ".join(tokens)


INDEX_KIRAOS, INDEX_HIPPOCAMPUS = "KiraOS plugin 3.x", "kira_plugin_hippocampus_memory"


def index_writer(conn: sqlite3.Connection) -> str | None:
    """Which plugin's schema a memory_index.db has: KiraOS 3.0 keys `memories` on (entity_type, entity_id,
    folder, base_dir, id) with a generated `storage_key` its FTS rows name; the hippocampus plugin keys
    it on `id` alone, which its FTS rows name. None for neither."""
    columns = {row[1]: row[5] for row in conn.execute("PRAGMA table_xinfo(memories)")}
    if "storage_key" in columns:
        return INDEX_KIRAOS
    if columns.get("id") == 1 and sum(1 for pk in columns.values() if pk) == 1:
        return INDEX_HIPPOCAMPUS
    return None


def _folder_hits(conn: sqlite3.Connection, query: str, ref: EntityRef, folder: str, k: int,
                 now: float, key_column: str) -> list[dict[str, Any]]:
    """One folder's best 2k for the query, scored (the plugin's hybrid_search without vectors)."""
    wanted = 2 * k
    try:
        rows = conn.execute(
            "SELECT m.id, m.memory_type, m.importance, m.last_accessed, m.tags, m.raw_text, "
            f"bm25(memories_fts) AS fts_score FROM memories_fts fts JOIN memories m ON fts.memory_id = m.{key_column} "
            "WHERE memories_fts MATCH ? AND m.entity_id = ? AND m.entity_type = ? AND m.folder = ? "
            "AND m.base_dir = '' ORDER BY fts_score LIMIT ?",
            (query, ref.id, ref.kind, folder, wanted * 3)).fetchall()
    except sqlite3.OperationalError:  # the plugin logs it and recalls nothing from the folder
        return []
    hits = []
    for memory_id, kind, importance, last_accessed, tags, raw_text, fts_score in rows:
        bm25 = abs(fts_score)
        days = max(0.0, (now - last_accessed) / _SECONDS_PER_DAY)
        score = bm25 * (1.0 + importance / 10.0 * 0.3 + 0.5 ** (days / 30.0) * 0.2)
        hits.append({"id": memory_id, "type": kind, "importance": importance, "last_accessed": last_accessed,
                     "tags": _tags(tags), "text": raw_text, "bm25": bm25, "score": score, "folder": folder})
    hits.sort(key=lambda hit: hit["score"], reverse=True)
    return hits[:k]  # fts_search keeps the best 2k, hybrid_search gives k of them


def _tags(raw: Any) -> list:
    try:
        tags = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return []
    return tags if isinstance(tags, list) else []


def recall(index_path: str | Path, ref: EntityRef, message: str, read_file, k: int = TOP_K,
           now: float | None = None) -> tuple[str, list[Recalled]]:
    """(the FTS5 query, the memories recalled for `message`, best first). `read_file(relative, id, folder)`
    reads a memory file of the tree (TreeMemory, or FileRefused)."""
    query = fts_query(message)
    if not query or not Path(index_path).is_file():
        return query, []
    now = time.time() if now is None else now
    conn = sqlite3.connect(read_only_uri(index_path), uri=True, timeout=5)
    try:
        writer = index_writer(conn)
        if writer is None:
            return query, []
        key_column = "storage_key" if writer == INDEX_KIRAOS else "id"
        hits = [hit for folder in RECALL_FOLDERS for hit in _folder_hits(conn, query, ref, folder, k, now, key_column)]
    except sqlite3.DatabaseError:
        return query, []
    finally:
        conn.close()
    base = scope_dirs(ref)[0]
    for hit in hits:  # the file's text, tags and importance, as the plugin takes them after the index's
        try:
            memory: TreeMemory = read_file(f"{base}/{hit['folder']}/{hit['id']}{MEMORY_SUFFIX}", hit["id"], hit["folder"])
        except FileRefused:
            continue
        if memory.text:
            hit["text"] = memory.text
        if memory.tags:
            hit["tags"] = list(memory.tags)
        hit["importance"] = memory.importance
    hits.sort(key=lambda hit: (hit["score"], hit["importance"] * 0.6
                               + math.exp(-(now - hit["last_accessed"]) / _SECONDS_PER_DAY / 30.0) * 0.4),
              reverse=True)
    return query, [Recalled(hit["id"], hit["folder"], str(hit["type"]), str(hit["text"]),
                            tuple(str(tag) for tag in hit["tags"]), int(hit["importance"]), hit["bm25"], hit["score"])
                   for hit in hits[:k]]


def injection_text(ref: EntityRef, prompt: str, recalled: list[Recalled]) -> str:
    """The blocks the plugin joins into the system prompt's memory part."""
    blocks = []
    if prompt.strip() and prompt.strip() != EMPTY_PROFILE:
        blocks.append(f"[用户 {ref.id} 画像]\n{prompt}")
    lines = [f"- [{memory.type}]{' [' + ', '.join(memory.tags) + ']' if memory.tags else ''} {memory.text}"
             for memory in recalled]
    if lines:
        blocks.append("[相关记忆]\n" + "\n".join(lines))
    return "\n\n".join(blocks)

