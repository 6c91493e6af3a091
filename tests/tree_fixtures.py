"""A KiraOS plugin 3.x memory tree written by plain code following the plugin's formats (v3.0.1), not by our reader's code."""
from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path


def toml_string(text: str) -> str:
    # A JSON string is a TOML basic string (the same escapes: \" \\ \n \uXXXX).
    return json.dumps(text, ensure_ascii=False)


def memory_toml(memory_id: str, text: str, importance=5, tags=(), kind="fact", session=None,
                time="2026-05-20T10:00:00+00:00", meta: dict | None = None) -> str:
    lines = [f"id = {toml_string(memory_id)}", f"type = {toml_string(kind)}", f"text = {toml_string(text)}",
             f"importance = {importance}", "tags = [" + ", ".join(toml_string(t) for t in tags) + "]", ""]
    lines.append("[source]")
    if session is not None:
        lines.append(f"session = {toml_string(session)}")
    lines.append(f"time = {toml_string(time)}")
    if meta:
        lines += ["", "[meta]"] + [f"{key} = {json.dumps(value)}" for key, value in meta.items()]
    return "\n".join(lines) + "\n"


def entity_dir(memory: Path, kind: str, entity_id: str) -> Path:
    return memory / "entities" / f"{kind}_{urllib.parse.quote(entity_id, safe='-._~')}"


def write_profile(memory: Path, kind: str, entity_id: str, **fields) -> Path:
    folder = entity_dir(memory, kind, entity_id)
    for sub in ("facts", "reflections") if kind in ("user", "group") else ("facts",):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    profile = {"entity_id": entity_id, "entity_type": kind, "name": "", "nickname": "", "description": "",
               "platform": "", "traits": [], "preferences": {}, "relationships": {}, "facts": [], "aliases": [],
               "interaction_count": 0, "last_interaction": 0.0, "metadata": {}}
    profile.update(fields)
    path = folder / "profile.json"
    path.write_text(json.dumps(profile, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def write_memory(folder: Path, memory_id: str, text: str, **fields) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{memory_id}.toml"
    path.write_text(memory_toml(memory_id, text, **fields), encoding="utf-8")
    return path


def build_tree(root: Path) -> Path:
    """A plugin data folder with a 3.x tree: three users (one with a hostile id), a group, a channel,
    the bot's global and self memory, an archive, and a few broken files. Returns the data folder."""
    memory = root / "memory"
    memory.mkdir(parents=True)
    (memory / ".migrated_v3").write_text("", encoding="utf-8")
    user = entity_dir(memory, "user", "qq:10001")
    write_profile(memory, "user", "qq:10001", name="小明", nickname="明明", platform="qq", traits=["爱猫"],
                  preferences={"饮料": "奶茶"}, relationships={"qq:10002": "同事"}, interaction_count=12)
    write_memory(user / "facts", "learning_guitar", "小明最近在学吉他", importance=7, tags=["hobby"],
                 session="qq:pm:10001")
    write_memory(user / "facts", "hates_css", "User hates writing CSS", importance=3)
    write_memory(user / "reflections", "often_late", "他经常深夜聊天，作息不规律", kind="reflection", importance=4)
    broken = entity_dir(memory, "user", "qq:10002")
    write_profile(memory, "user", "qq:10002", name="小红", traits="not a list")
    (broken / "facts" / "bad_toml.toml").write_text('id = "bad_toml"\ntext = \n', encoding="utf-8")
    (broken / "facts" / "latin1.toml").write_bytes('text = "caf\xe9"\n'.encode("latin-1"))
    write_memory(broken / "facts", "likes_tea", "小红喜欢喝茶", importance=15)
    odd = entity_dir(memory, "user", "😀:a%b/中文")
    write_profile(memory, "user", "😀:a%b/中文", name="表情")
    write_memory(odd / "facts", "emoji_fact", "表情用户的事实", importance=5)
    group = entity_dir(memory, "group", "qq:g1")
    write_profile(memory, "group", "qq:g1", name="吉他交流群", description="一起练吉他")
    write_memory(group / "facts", "weekly_meetup", "群里每周六晚上一起弹吉他", importance=6)
    channel = entity_dir(memory, "channel", "discord:c1")
    write_profile(memory, "channel", "discord:c1", name="general")
    (memory / "entities" / "user_qq%3A10003").mkdir()  # an entity folder without profile.json yet
    bad_profile = entity_dir(memory, "user", "qq:10004")
    bad_profile.mkdir()
    (bad_profile / "profile.json").write_text("{not json", encoding="utf-8")
    write_memory(memory / "global" / "facts", "bot_birthday", "机器人的生日是五月十三日", importance=8)
    write_memory(memory / "global" / "skills", "greeting", "用户打招呼时热情回应", importance=5)
    write_memory(memory / "global" / "self" / "reflections", "be_brief", "我的回答应该更简短", kind="reflection")
    archive = memory / "archive"
    archive.mkdir()
    (archive / "user__qq%3A10001__facts__old_city.toml").write_text(
        memory_toml("old_city", "小明以前住在北京", importance=4,
                    meta={"timestamp": 1747000000.0, "access_count": 3}), encoding="utf-8")
    (archive / "global_self__facts__old_name.toml").write_text(
        memory_toml("old_name", "我以前叫小K"), encoding="utf-8")
    (archive / "not_an_archive_name.toml").write_text(memory_toml("x", "?"), encoding="utf-8")
    (memory / "kiraos.db.bak_1747000000").write_bytes(b"")
    return root


def link_outside(root: Path, outside: Path) -> None:
    """A linked entity folder and a linked memory file, both pointing outside the tree."""
    secret_dir = outside / "secret_entity"
    (secret_dir / "facts").mkdir(parents=True)
    (secret_dir / "profile.json").write_text(json.dumps({"name": "OUTSIDE-NAME"}), encoding="utf-8")
    secret = outside / "secret.toml"
    secret.write_text('id = "s"\ntext = "OUTSIDE-TEXT"\n', encoding="utf-8")
    memory = root / "memory"
    os.symlink(secret_dir, memory / "entities" / "user_linked")
    os.symlink(secret, entity_dir(memory, "user", "qq:10001") / "facts" / "linked.toml")


INDEX_DDL = """
CREATE TABLE memories (
    id TEXT NOT NULL, entity_id TEXT NOT NULL DEFAULT '', entity_type TEXT NOT NULL DEFAULT '',
    folder TEXT NOT NULL DEFAULT 'facts', memory_type TEXT NOT NULL DEFAULT 'fact',
    importance INTEGER NOT NULL DEFAULT 5, timestamp REAL NOT NULL, last_accessed REAL NOT NULL,
    access_count INTEGER NOT NULL DEFAULT 0, tags TEXT NOT NULL DEFAULT '[]', source TEXT NOT NULL DEFAULT '{}',
    content_hash TEXT NOT NULL DEFAULT '', file_path TEXT NOT NULL DEFAULT '', base_dir TEXT NOT NULL DEFAULT '',
    raw_text TEXT NOT NULL DEFAULT '',
    storage_key TEXT GENERATED ALWAYS AS (
        entity_type || char(1) || entity_id || char(1) || folder || char(1) || base_dir || char(1) || id) STORED,
    PRIMARY KEY (entity_type, entity_id, folder, base_dir, id));
CREATE VIRTUAL TABLE memories_fts USING fts5(memory_id UNINDEXED, raw_text, tags_text, tokenize='unicode61');
"""


HIPPOCAMPUS_INDEX_DDL = """
CREATE TABLE memories (
    id TEXT PRIMARY KEY, entity_id TEXT NOT NULL DEFAULT '', entity_type TEXT NOT NULL DEFAULT '',
    folder TEXT NOT NULL DEFAULT 'facts', memory_type TEXT NOT NULL DEFAULT 'fact',
    importance INTEGER NOT NULL DEFAULT 5, timestamp REAL NOT NULL, last_accessed REAL NOT NULL,
    access_count INTEGER NOT NULL DEFAULT 0, tags TEXT NOT NULL DEFAULT '[]', source TEXT NOT NULL DEFAULT '{}',
    content_hash TEXT NOT NULL DEFAULT '', file_path TEXT NOT NULL DEFAULT '', base_dir TEXT NOT NULL DEFAULT '',
    raw_text TEXT NOT NULL DEFAULT '');
CREATE VIRTUAL TABLE memories_fts USING fts5(memory_id UNINDEXED, raw_text, tags_text, tokenize='unicode61');
"""


def write_index(memory: Path, rows: list[dict], hippocampus: bool = False) -> Path:
    """memory_index.db as the plugin 3.0 makes it (or, `hippocampus`, as kira_plugin_hippocampus_memory
    makes it: keyed on id alone): one row per memory, its text segmented (jieba's precise mode: rjieba
    here) and joined by spaces in memories_fts."""
    import hashlib
    import sqlite3

    import rjieba

    path = memory / "memory_index.db"
    conn = sqlite3.connect(path)
    conn.executescript(HIPPOCAMPUS_INDEX_DDL if hippocampus else INDEX_DDL)
    for row in rows:
        text = row["text"]
        conn.execute(
            "INSERT INTO memories (id, entity_id, entity_type, folder, memory_type, importance, timestamp, "
            "last_accessed, tags, content_hash, file_path, base_dir, raw_text) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (row["id"], row["entity_id"], row.get("entity_type", "user"), row.get("folder", "facts"),
             row.get("type", "fact"), row.get("importance", 5), row.get("timestamp", 1.7e9),
             row["last_accessed"], json.dumps(row.get("tags", []), ensure_ascii=False),
             hashlib.sha256(text.encode("utf-8")).hexdigest()[:16], "/elsewhere/not/followed.toml", "", text))
        key = row["id"] if hippocampus else "\x01".join(
            [row.get("entity_type", "user"), row["entity_id"], row.get("folder", "facts"), "", row["id"]])
        segmented = " ".join(t for t in rjieba.cut(text) if t.strip())
        conn.execute("INSERT INTO memories_fts (memory_id, raw_text, tags_text) VALUES (?, ?, ?)",
                     (key, segmented, " ".join(row.get("tags", []))))
    conn.commit()
    conn.close()
    return path


def indexed_tree(root: Path) -> Path:
    """build_tree() with an index holding 小明's guitar fact (what recall finds for a message about it)."""
    build_tree(root)
    write_index(root / "memory", [{"id": "learning_guitar", "entity_id": "qq:10001", "text": "小明最近在学吉他",
                                   "importance": 7, "tags": ["hobby"], "last_accessed": 1.7e9}])
    return root


def lock_the_index(monkeypatch) -> None:
    """Every write transaction on a tree's memory_index.db fails as one the plugin holds locked past
    the wait does (sqlite3's "database is locked")."""
    import sqlite3
    from contextlib import contextmanager

    from kiraos_desktop.core.storage.tree.index_rows import TreeIndex

    @contextmanager
    def locked(self):
        raise sqlite3.OperationalError("database is locked")
        yield

    monkeypatch.setattr(TreeIndex, "transaction", locked)
