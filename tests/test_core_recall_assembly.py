"""The block for a message made from the cache (window, plain block, no template) equals the one made the
long way: every event scored from its text, the items fitted by rendering context.j2 (bisection)."""
from __future__ import annotations

from datetime import datetime

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from kiraos_desktop.core.context.builder import CachedBlock
from kiraos_desktop.core.context.format import ContextItem, entry_text, join_items, render_items, render_user_block
from kiraos_desktop.core.context.recall import made_items, make_block
from recall_reference import reference
from kiraos_desktop.core.recall.ranking import scoring_window, score_events
from kiraos_desktop.core.recall.text import query_terms
from kiraos_desktop.core.context.recall_window import RecallWindow
from kiraos_desktop.core.memory.records import EventEntry, ProfileEntry
from kiraos_desktop.core.storage.rows import sort_profiles

NOW = datetime(2026, 12, 1, 12, 30)

# Words that segment in different ways, particles, mixed scripts, text that sanitising changes.
VOCABULARY = ["橘猫", "猫", "咪咪", "旅行", "面试", "马拉松", "半马", "北京", "上海", "吉他", "演唱会", "的", "了", "吗",
              "Exam", "exam", "EXAM", "driving", "test", "the", "ｅｘａｍ", "iPhone", "15", "café", "Straße", "strasse",
              "<b>", "a\nb", "x\x00y", "\u2028", " | ", "=", "(✓)", "[u:events]", "，", "！", "?", " ", "ß", "İ"]
piece = st.sampled_from(VOCABULARY) | st.text(min_size=1, max_size=4)
phrase = st.lists(piece, min_size=1, max_size=6).map("".join)
stamp = st.one_of(st.none(), st.sampled_from(["2024-03-01T10:00:00", "2026-11-30 08:15:00", "2026-12-01T12:00:00",
                                              "2025-01-01", "not a date", "2026-12-01T11:59:59.5"]),
                  st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2026, 12, 1)).map(
                      lambda d: d.isoformat(timespec="seconds")))
category = st.sampled_from(["basic", "preference", "social", "other", "custom"])


@st.composite
def memories(draw):
    profiles = []
    for n, key in enumerate(draw(st.lists(phrase, max_size=8, unique=True))):
        profiles.append(ProfileEntry("u", key, draw(phrase), f"2026-11-{1 + n:02d}T00:00:00",
                                     draw(st.sampled_from([0.3, 0.5, 0.9])), draw(category), None))
    events = [EventEntry(n + 1, "u", draw(phrase), draw(stamp)) for n in range(draw(st.integers(0, 30)))]
    # As the store reads them: created_at, then id, newest first (NULL last).
    events.sort(key=lambda e: (e.created_at or "", e.id), reverse=True)
    return sort_profiles(profiles), events


def fast(user_id, profiles, events, words, max_events, budget, plain_budget, window_size):
    plain = CachedBlock.of(render_user_block(user_id, profiles, events[:max_events], plain_budget), None)
    rows = [(e.id, e.user_id, e.summary, e.created_at) for e in events[:window_size + 1]]
    window = RecallWindow.of(rows, window_size)
    older = events[window_size:]  # what the index gives is a superset of the older events that match
    made = make_block(user_id, words, plain, window, older, len(events), max_events, budget, scoring_window(NOW)[0])
    return window, made


def as_items(made, window) -> tuple[tuple, tuple]:
    items = tuple(ContextItem(kind, label, dict(payload)) for kind, label, payload in made_items(made, window))
    return items[:made.kept], items[made.kept:]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(memory=memories(), query=st.lists(piece, min_size=1, max_size=5).map(" ".join),
       max_events=st.integers(1, 12), budget=st.sampled_from([0, 1, 30, 60, 120, 200, 500, 2000]) | st.integers(0, 400),
       plain_budget=st.sampled_from([0, 80, 500]) | st.integers(0, 400), window_size=st.integers(12, 40),
       user_id=st.sampled_from(["u", "qq_123456", "a<b>"]), at_an_edge=st.booleans(), data=st.data())
def test_the_block_made_from_the_cache_is_the_long_ways_block(memory, query, max_events, budget, plain_budget,
                                                              window_size, user_id, at_an_edge, data):
    profiles, events = memory
    words = query_terms(query)
    assume(words)
    window_size = max(window_size, max_events)
    if at_an_edge:  # a budget just around the length of the block with some of its items
        whole = reference(user_id, profiles, events, words, max_events, 0, NOW)[0]
        lengths = [len(render_items(user_id, whole.kept[:n])) for n in range(1, len(whole.kept) + 1)]
        if lengths:
            budget = max(1, data.draw(st.sampled_from(lengths)) + data.draw(st.integers(-1, 1)))
    want, want_shown = reference(user_id, profiles, events, words, max_events, budget, NOW)
    window, made = fast(user_id, profiles, events, words, max_events, budget, plain_budget, window_size)
    if made is None:  # nothing relevant: the plain block is the answer
        assert not want_shown and not any(
            r for r in score_events(words, events, len(events), scoring_window(NOW)[0]))
        return
    assert made.text == want.text
    assert as_items(made, window) == (want.kept, want.dropped)
    assert made.truncated == bool(want.dropped)
    assert [shown[2] for shown in made.shown] == want_shown
    assert (not budget) or len(made.text) <= budget


@settings(max_examples=300, deadline=None)
@given(items=st.lists(st.tuples(category | st.just("events"), phrase, phrase), max_size=12),
       user_id=st.sampled_from(["u", "qq_1"]))
def test_joined_items_are_the_templates_text(items, user_id):
    compact = []
    for kind, first, second in sorted(items, key=lambda item: item[0] == "events"):  # events last, as in a block
        pairs = (("date", first[:10]), ("summary", second)) if kind == "events" else (
            ("key", first), ("value", second), ("mark", "✓"))
        compact.append((kind, "label", pairs))
    rendered = render_items(user_id, [ContextItem(kind, label, dict(pairs)) for kind, label, pairs in compact])
    assert join_items(user_id, compact) == rendered
    if compact:
        assert entry_text(compact[0][0], compact[0][2]) in rendered
