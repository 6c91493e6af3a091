"""Deterministic generator of a large plugin-schema database for the GUI benchmark.

python bench/gui_data.py OUT.db [--users 100000] [--profiles 1000000] [--events 5000000] [--seed 7]

Writes the KiraOS plugin's own tables (user_profiles, event_logs, the plugin's exact DDL)
with plain sqlite3 executemany in big transactions, journal off; no desktop tables, so the first
Engine.open migrates it (builds user_summary) exactly as it would a real plugin database.
Same arguments, same bytes of data: every value comes from one seeded random generator.
"""
from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

# The KiraOS plugin's own DDL (its documentation's schema), so the file is what the plugin writes.
PLUGIN_DDL = (
    """CREATE TABLE IF NOT EXISTS user_profiles (
        user_id TEXT NOT NULL,
        memory_key TEXT NOT NULL,
        memory_value TEXT NOT NULL,
        updated_at DATETIME DEFAULT CURRENT_TIMESTAMP,
        confidence REAL DEFAULT 0.5,
        category TEXT DEFAULT 'basic',
        expires_at DATETIME DEFAULT NULL,
        PRIMARY KEY (user_id, memory_key)
    )""",
    """CREATE TABLE IF NOT EXISTS event_logs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        event_summary TEXT NOT NULL,
        created_at DATETIME DEFAULT CURRENT_TIMESTAMP
    )""",
    "CREATE INDEX IF NOT EXISTS idx_event_logs_user ON event_logs (user_id, created_at DESC)",
)

BATCH = 50_000
START = datetime(2025, 1, 1, 8, 0, 0)
SPAN_S = 365 * 24 * 3600
KEYS = {
    "basic": ["昵称", "城市", "年龄", "职业", "生日", "学校", "家乡", "公司", "专业", "身高"],
    "preference": ["喜欢的食物", "喜欢的音乐", "喜欢猫", "偏好甜食", "喜欢的游戏", "喜欢的电影", "作息",
                   "运动", "喜欢的颜色", "讨厌的东西", "饮料", "阅读"],
    "social": ["好友", "室友", "同事", "对象", "宠物", "家人", "导师"],
    "other": ["备注", "口头禅", "最近在忙", "目标", "签名", "设备"],
}
VALUES = ["小明", "北京", "上海", "杭州", "深圳", "程序员", "设计师", "学生", "是", "否", "火锅", "周杰伦",
          "原神", "星际穿越", "夜猫子", "跑步", "蓝色", "香菜", "奶茶", "科幻小说", "阿黄", "妈妈", "张老师",
          "考研", "准备搬家", "iPhone", "每天都要开心", "减肥中", "Python 和 Rust", "想去冰岛旅行"]
EVENTS = ["完成半马", "通过面试", "搬到新家", "考试没考好", "生日聚会", "养了一只猫", "开始学吉他",
          "换了工作", "和朋友吵架了", "去海边旅行", "感冒发烧", "拿到驾照", "项目上线", "读完一本书",
          "第一次做饭", "看了演唱会", "加班到深夜", "参加婚礼", "跑了 10 公里", "升职加薪"]
CONFIDENCES = (0.3, 0.5, 0.6, 0.8, 0.9, 1.0)


def spread(rng: random.Random, count: int, total: int, low: int, high: int) -> list[int]:
    """`count` random integers in [low, high] that sum to exactly `total`."""
    if not low * count <= total <= high * count:
        raise ValueError(f"cannot split {total} into {count} parts of {low}..{high}")
    values = [rng.randint(low, high) for _ in range(count)]
    diff = total - sum(values)
    step = 1 if diff > 0 else -1
    i = 0
    while diff:
        j = i % count
        if low <= values[j] + step <= high:
            values[j] += step
            diff -= step
        i += 1
    return values


def user_ids(rng: random.Random, count: int) -> list[str]:
    numbers = rng.sample(range(100_000_000, 1_000_000_000), count)
    return [(f"tg_{n}" if n % 10 == 0 else f"qq_{n}") for n in numbers]


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def generate(path: Path, users: int, profiles: int, events: int, seed: int = 7, verbose: bool = True) -> dict:
    """Create `path` (must not exist); returns the counts written."""
    rng = random.Random(seed)
    all_keys = [(cat, key) for cat, keys in KEYS.items() for key in keys]
    ids = user_ids(rng, users)
    per_user_profiles = spread(rng, users, profiles, 1, min(19, len(all_keys)))
    per_user_events = spread(rng, users, events, 0, 100)
    db = sqlite3.connect(str(path), isolation_level=None)
    for pragma in ("journal_mode=OFF", "synchronous=OFF", "cache_size=-400000", "locking_mode=EXCLUSIVE",
                   "temp_store=MEMORY"):
        db.execute(f"PRAGMA {pragma}")
    db.execute(PLUGIN_DDL[0])
    db.execute(PLUGIN_DDL[1])
    started = time.monotonic()

    def flush(sql: str, rows: list) -> None:
        db.execute("BEGIN")
        db.executemany(sql, rows)
        db.execute("COMMIT")
        rows.clear()

    rows: list[tuple] = []
    profile_sql = ("INSERT INTO user_profiles (user_id, memory_key, memory_value, updated_at, confidence, "
                   "category, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    for uid, count in zip(ids, per_user_profiles):
        for category, key in rng.sample(all_keys, count):
            updated = START + timedelta(seconds=rng.randrange(SPAN_S))
            roll = rng.random()
            expires = None
            if roll < 0.03:
                expires = iso(datetime(2024, 6, 1) + timedelta(days=rng.randrange(180)))  # long expired
            elif roll < 0.08:
                expires = iso(datetime(2099, 1, 1) + timedelta(days=rng.randrange(365)))
            rows.append((uid, key, rng.choice(VALUES), iso(updated), rng.choice(CONFIDENCES), category, expires))
            if len(rows) >= BATCH:
                flush(profile_sql, rows)
    if rows:
        flush(profile_sql, rows)
    if verbose:
        print(f"  {profiles:,} profile rows in {time.monotonic() - started:.1f}s", flush=True)

    # Events in rounds over the users, so ids interleave across users as a live bot writes them.
    event_sql = "INSERT INTO event_logs (user_id, event_summary, created_at) VALUES (?, ?, ?)"
    slots = [SPAN_S // max(1, c) for c in per_user_events]
    for round_no in range(max(per_user_events, default=0)):
        for uid, count, slot in zip(ids, per_user_events, slots):
            if round_no < count:
                moment = START + timedelta(seconds=round_no * slot + rng.randrange(max(1, slot)))
                rows.append((uid, rng.choice(EVENTS), iso(moment)))
                if len(rows) >= BATCH:
                    flush(event_sql, rows)
    if rows:
        flush(event_sql, rows)
    if verbose:
        print(f"  {events:,} events in {time.monotonic() - started:.1f}s", flush=True)
    db.execute(PLUGIN_DDL[2])
    db.execute("PRAGMA journal_mode=DELETE")
    db.close()
    if verbose:
        print(f"  index built, {time.monotonic() - started:.1f}s in all", flush=True)
    return {"users": users, "profiles": profiles, "events": events, "seed": seed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--profiles", type=int, default=1_000_000)
    parser.add_argument("--events", type=int, default=5_000_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.out.exists():
        print(f"{args.out} exists; remove it first", file=sys.stderr)
        return 2
    generate(args.out, args.users, args.profiles, args.events, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
