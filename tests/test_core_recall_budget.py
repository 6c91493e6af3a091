"""A query's recall work is bounded: at most MAX_SCORED_CHARS of candidate text is segmented and scored,
newest first, whatever the user's history (a word every long event holds must stay cheap)."""
from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from kiraos_desktop.core.tools.memory_tools import MemoryTools
from kiraos_desktop.core.recall import text as recall_text
from kiraos_desktop.core.recall.ranking import build_index, within_scoring_budget
from kiraos_desktop.core.recall.text import MAX_QUERY_CHARS, MAX_SCORED_CHARS
from kiraos_desktop.core.memory.records import EventEntry

HAN = "猫狗鱼鸟山水火木金土日月星云雨风花草树林江河湖海春夏秋冬东西南北书画琴棋茶酒歌舞车船桥路城村田园"
LONG = 1000  # the longest event text the API takes
HISTORY = 600 * LONG  # the characters of long_history's events


def long_texts(count: int, seed: int = 5) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(HAN) for _ in range(LONG)) for _ in range(count)]


@pytest.fixture
def long_history(engine):
    """A user with 600 events of 1,000 Chinese characters, every one holding 猫 (the index built)."""
    now = datetime(2026, 12, 1, 12, 0)
    with engine.store.batch("test") as batch:
        for n, text in enumerate(long_texts(600)):
            batch.add_event("long", "猫" + text[1:], created_at=(now - timedelta(hours=n)).isoformat(timespec="seconds"),
                            trim=False)
    build_index(engine.store)
    return engine


@pytest.fixture
def segmented(monkeypatch):
    """The characters of the (uncached, long) texts segmented while the test runs."""
    seen = []
    original = recall_text._terms

    def counting(text):
        seen.append(len(text))
        return original(text)

    monkeypatch.setattr(recall_text, "_terms", counting)
    return seen


def test_a_context_block_for_a_message_segments_at_most_the_budget(long_history, segmented):
    block = long_history.context.build(["long"], query="我的猫今天怎么样", max_chars=20000)
    assert "猫" in block.text
    # the message and the newest events up to the budget (a small part of the history), nothing else
    assert sum(segmented) <= min(MAX_SCORED_CHARS, HISTORY // 10) + MAX_QUERY_CHARS


def test_memory_query_with_a_query_segments_at_most_the_budget(long_history, segmented):
    tools = MemoryTools(long_history.store, lambda: long_history.settings)
    result = tools.query("long", query="猫")
    assert "猫" in result
    assert sum(segmented) <= min(MAX_SCORED_CHARS, HISTORY // 10) + MAX_QUERY_CHARS


def test_the_scored_candidates_are_the_newest_within_the_budget():
    per_event = MAX_SCORED_CHARS // 4
    events = [EventEntry(n, "u", "x" * per_event, f"2026-01-{n + 1:02d}T00:00:00") for n in range(10)]
    random.Random(1).shuffle(events)
    kept = within_scoring_budget(events)
    assert [event.id for event in kept] == [9, 8, 7, 6]
    short = events[:3]
    assert within_scoring_budget(short) is short  # under the budget: all of them, as given


def test_an_old_match_past_the_budget_is_not_scored_but_a_new_one_is(engine):
    now = datetime(2026, 12, 1, 12, 0)
    texts = long_texts(60, seed=9)
    with engine.store.batch("test") as batch:
        batch.add_event("u", "很久以前学过吉他", created_at=(now - timedelta(days=400)).isoformat(timespec="seconds"),
                        trim=False)
        for n, text in enumerate(texts):
            batch.add_event("u", text, created_at=(now - timedelta(days=60 - n)).isoformat(timespec="seconds"),
                            trim=False)
        batch.add_event("u", "最近又在练吉他", created_at=now.isoformat(timespec="seconds"), trim=False)
    block = engine.context.build(["u"], query="吉他").text
    assert "最近又在练吉他" in block
    assert "很久以前学过吉他" not in block  # 60,000 newer characters lie between it and the message
