"""fit_items(): the largest prefix of whole items within the budget, found by the template's arithmetic
(prefix_lengths()) and confirmed by one render; by rendering when the two disagree."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kiraos_desktop.core.context import format as fmt
from kiraos_desktop.core.context.format import context_items, fit_items, render_items
from kiraos_desktop.core.memory.records import EventEntry, ProfileEntry

_TEXT = st.text(alphabet=st.sampled_from(list("ab城市<>|\n =()✓") + ["\u2028", "\x00", "😀"]), min_size=1, max_size=12)
_PROFILES = st.lists(st.builds(lambda k, v, c, cat: ProfileEntry("u", k, v, "2025-01-01T00:00:00", c, cat, None),
                               _TEXT, _TEXT, st.sampled_from([0.2, 0.6, 0.9]),
                               st.sampled_from(["basic", "preference", "social", "other", "自定义"])), max_size=6)
_EVENTS = st.lists(st.builds(lambda n, s: EventEntry(n, "u", s, "2025-03-01T10:00:00"), st.integers(1, 99), _TEXT),
                   max_size=5)


def by_rendering(user_id, items, budget):
    """The reference: the most items whose rendered block fits, stopping at the first that does not."""
    kept = 0
    while kept < len(items) and len(render_items(user_id, items[:kept + 1])) <= budget:
        kept += 1
    return kept


@settings(max_examples=200, deadline=None)
@given(profiles=_PROFILES, events=_EVENTS, user_id=st.sampled_from(["u", "用户<1>", "a\nb"]),
       budget=st.integers(1, 160))
def test_the_fit_is_the_largest_rendered_prefix_within_the_budget(profiles, events, user_id, budget):
    items = tuple(context_items(profiles, events))
    block = fit_items(user_id, items, budget)
    kept = by_rendering(user_id, items, budget)
    assert len(block.kept) == kept and block.dropped == items[kept:]
    assert block.text == (render_items(user_id, items[:kept]) if kept else "")


def test_the_template_renders_once_for_a_block_over_its_budget(monkeypatch):
    profiles = [ProfileEntry("u", f"键{n}", "值" * 10, "2025-01-01T00:00:00", 0.9, "basic", None) for n in range(12)]
    events = [EventEntry(n, "u", f"事件 {n} " * 4, "2025-03-01T10:00:00") for n in range(10)]
    items = tuple(context_items(profiles, events))
    renders = []
    real = fmt.render_items
    monkeypatch.setattr(fmt, "render_items", lambda *args: renders.append(args) or real(*args))
    block = fit_items("u", items, 200)
    assert 0 < len(block.kept) < len(items) and len(renders) == 1  # bisection rendered ~5 times


def test_when_the_arithmetic_disagrees_with_the_template_the_template_decides(monkeypatch):
    profiles = [ProfileEntry("u", f"k{n}", "v" * 8, "2025-01-01T00:00:00", 0.9, "basic", None) for n in range(8)]
    items = tuple(context_items(profiles, []))
    expected = by_rendering("u", items, 60)
    monkeypatch.setattr(fmt, "prefix_lengths", lambda user_id, compact, budget: [1, 2, 3])  # wrong
    block = fit_items("u", items, 60)
    assert len(block.kept) == expected and block.text == render_items("u", items[:expected])
