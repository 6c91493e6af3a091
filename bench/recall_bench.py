"""Recall benchmark: does an old fact reach the block when the message is about it?

python bench/recall_bench.py [--users 300] [--seed 11]

Generates users with a few profile entries and a history of everyday events in Chinese and
English (newer than the planted fact, more than the block shows), plants one old fact per user
(Chinese, English or mixed) and asks for the block with a message about it, at the default
settings (max_events_per_user 10, max_context_chars 500). Recall = the share of users whose
planted fact is in the block; measured with the message as query and without a query. Also
prints the median time of a block with a query, and writes bench/out/recall_bench.json.
Target (DESIGN §8): recall with a query at least 90 %.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kiraos_desktop.core.engine import Engine  # noqa: E402

OUT = REPO / "bench" / "out"
TARGET = 0.90

# (planted fact, messages about it): the message shares a word or two with the fact, not all.
FACTS = [
    ("养了一只橘猫叫咪咪", ["咪咪最近怎么样？", "你还记得我家的猫吗", "橘猫好养吗"]),
    ("去年在青岛学会了冲浪", ["今年夏天还想去冲浪", "青岛好玩吗", "冲浪难不难"]),
    ("对花生过敏", ["这个蛋糕里有花生吗", "我能吃花生酱吗"]),
    ("女儿叫小雨，今年上小学", ["小雨今天考试了", "孩子上学的事好烦"]),
    ("在准备雅思考试，目标7分", ["雅思口语怎么练", "我的考试快到了，好紧张"]),
    ("膝盖受过伤，不能跑步", ["推荐一些运动吧，跑步可以吗", "我的膝盖又疼了"]),
    ("最喜欢的歌手是周杰伦", ["周杰伦出新歌了吗", "推荐点我喜欢的歌手的歌"]),
    ("Adopted a golden retriever named Max", ["Max chewed my shoes again", "how do I train a golden retriever?"]),
    ("Allergic to penicillin", ["the doctor wants to give me penicillin", "any allergy advice?"]),
    ("Working on a PhD in marine biology", ["my marine biology thesis is due", "how is the PhD going"]),
    ("Moved to Berlin for a new job at Siemens", ["Berlin winters are so grey", "my Siemens manager is strict"]),
    ("Plays the violin in a community orchestra", ["orchestra rehearsal tonight", "should I buy a new violin?"]),
    ("买了一辆特斯拉Model 3", ["我的Model 3该保养了", "特斯拉充电方便吗"]),
    ("在学Python，想转行做数据分析", ["Python的pandas怎么用", "数据分析的工作好找吗"]),
]
NOISE = ["今天加班到很晚", "和同事吃了火锅", "看了一部电影", "周末去爬山了", "买了新衣服", "早上睡过头了",
         "下雨了没带伞", "去超市买菜", "打了一下午游戏", "读完了一本小说", "感冒了在家休息", "和朋友喝咖啡",
         "Had a long meeting at work", "Went grocery shopping", "Watched a football match", "Cleaned the flat",
         "Cooked pasta for dinner", "Took the train to work", "Called mom", "Fixed the kitchen sink"]
PROFILE = [("昵称", ["小明", "阿杰", "Tom", "Lily"], "basic"), ("城市", ["北京", "上海", "杭州", "深圳"], "basic"),
           ("职业", ["程序员", "设计师", "教师", "学生"], "basic"), ("喜欢的食物", ["火锅", "寿司", "面条"], "preference"),
           ("作息", ["夜猫子", "早起"], "preference")]


def build(engine: Engine, users: int, rnd: random.Random) -> list[tuple[str, str, str]]:
    """Users with profiles, a planted old fact and newer noise; returns (user, fact, message) cases."""
    now = datetime.now()
    cases = []
    with engine.store.batch("bench") as batch:
        for n in range(users):
            uid = f"bench_{n:05d}"
            for key, values, category in rnd.sample(PROFILE, rnd.randint(3, 5)):
                batch.set_profile(uid, key, rnd.choice(values), confidence=round(rnd.uniform(0.4, 1.0), 2),
                                  category=category)
            fact, messages = rnd.choice(FACTS)
            planted_at = now - timedelta(days=rnd.randint(60, 400))
            batch.add_event(uid, fact, created_at=planted_at.isoformat(timespec="seconds"), trim=False)
            for _ in range(rnd.randint(15, 60)):  # newer everyday events: far more than the block shows
                when = now - timedelta(days=rnd.uniform(0, 59))
                batch.add_event(uid, rnd.choice(NOISE), created_at=when.isoformat(timespec="seconds"), trim=False)
            cases.append((uid, fact, rnd.choice(messages)))
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rnd = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="kiraos-recall-bench-") as tmp:
        engine = Engine.open(data_dir=Path(tmp), install_examples=False)
        try:
            cases = build(engine, args.users, rnd)
            hit_query = hit_plain = 0
            timings = []
            examples = []
            for uid, fact, message in cases:
                plain = engine.context.build([uid]).text
                started = time.perf_counter()
                recalled = engine.context.build([uid], query=message).text
                timings.append((time.perf_counter() - started) * 1000)
                hit_plain += fact in plain
                hit_query += fact in recalled
                if len(examples) < 3 and fact in recalled:
                    examples.append({"message": message, "plain": plain, "with_query": recalled})
            settings = engine.settings
        finally:
            engine.close()
    users = len(cases)
    result = {"users": users, "recall_with_query": hit_query / users, "recall_without_query": hit_plain / users,
              "median_ms_with_query": statistics.median(timings), "max_events_per_user": settings.max_events_per_user,
              "max_context_chars": settings.max_context_chars, "target": TARGET, "examples": examples}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "recall_bench.json").write_text(json.dumps(result, ensure_ascii=False, indent=2), encoding="utf-8")
    print(f"recall of a planted old fact, {users} users (max_events_per_user {settings.max_events_per_user}, "
          f"max_context_chars {settings.max_context_chars}):")
    print(f"  with the message as query: {hit_query / users:6.1%}   (target >= {TARGET:.0%})")
    print(f"  without a query:           {hit_plain / users:6.1%}")
    print(f"  block with a query: median {statistics.median(timings):.2f} ms (in process)")
    for example in examples[:2]:
        print(f"\nmessage: {example['message']}\n-- without query --\n{example['plain']}\n-- with query --\n"
              f"{example['with_query']}")
    ok = hit_query / users >= TARGET
    print("\nrecall target " + ("met" if ok else "MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
