"""Scoring of events against a message's words: which words match an event's text, with which weight."""
import math
from datetime import datetime

from kiraos_desktop.core.recall.ranking import INSIDE_CHAR_WEIGHT, INSIDE_WORD_WEIGHT, score_events
from kiraos_desktop.core.memory.records import EventEntry

NOW = datetime(2026, 12, 1, 12)


def _event(n: int, text: str, created_at: str | None = "2026-12-01T12:00:00") -> EventEntry:
    return EventEntry(n, "u", text, created_at)


def _matched(words, text):
    found = score_events(tuple(words), [_event(1, text)], 1, NOW)
    return found[0].matched if found else ()


def test_a_word_matches_as_a_word_of_its_own_or_inside_chinese_text_only():
    assert _matched(["exam"], "Passed the EXAM today") == ("exam",)  # case folded
    assert _matched(["cat"], "a new category") == ()  # English inside another word: no match
    assert _matched(["橘猫"], "我家的橘猫叫咪咪") == ("橘猫",)
    assert _matched(["猫"], "养了一只猫") == ("猫",)
    assert _matched(["exam", "旅行"], "nothing here") == ()
    assert _matched(["exam"], "ｅｘａｍ week") == ("exam",)  # full width folded


def test_weights_of_own_words_and_words_found_inside():
    events = [_event(1, "猫"), _event(2, "猫叫"), _event(3, "养了一只猫咪")]
    own, inside = score_events(("猫",), events[:1], 1, NOW), score_events(("猫",), events[1:2], 1, NOW)
    assert own[0].score > inside[0].score > 0
    # The same rarity and age: the ratio is the weight of a word found only inside the text.
    words = score_events(("猫咪",), [_event(3, "我的猫咪"), _event(4, "小猫咪们")], 2, NOW)
    by_id = {r.event.id: r.score for r in words}
    if by_id[3] != by_id[4]:
        low, high = sorted(by_id.values())
        assert math.isclose(low / high, INSIDE_WORD_WEIGHT)
    single = score_events(("猫",), [_event(5, "猫"), _event(6, "猫叫")], 2, NOW)
    scores = {r.event.id: r.score for r in single}
    assert math.isclose(scores[6] / scores[5], INSIDE_CHAR_WEIGHT)


def test_an_event_with_a_broken_time_is_scored_without_recency():
    found = score_events(("exam",), [_event(1, "exam", "not a date"), _event(2, "exam", None),
                                     _event(3, "exam")], 3, NOW)
    assert [r.event.id for r in found][0] == 3
    assert found[1].score == found[2].score > 0
