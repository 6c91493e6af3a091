"""The window's shortcuts for blocks made for new messages give what the general way gives: events shown
by position when that is their order, words' weights remembered, the fast path's reply encoded by hand."""
from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from kiraos_desktop.api.errors import dump_json
from kiraos_desktop.api.fastpath.context import _encode
from kiraos_desktop.core.context.entries import CachedBlock
from kiraos_desktop.core.context.format import join_texts, render_user_block
from kiraos_desktop.core.context.recall import make_block
from kiraos_desktop.core.recall.ranking import _WEIGHTS, inside_weights, is_han, scoring_window
from kiraos_desktop.core.recall.text import query_terms
from kiraos_desktop.core.context.recall_window import RecallWindow
from kiraos_desktop.core.memory.records import EventEntry
from test_core_recall_assembly import NOW, VOCABULARY, memories, piece


def _block(user_id, profiles, events, words, window, max_events, budget):
    plain = CachedBlock.of(render_user_block(user_id, profiles, events[:max_events], 500), None)
    return make_block(user_id, words, plain, window, [], len(events), max_events, budget, scoring_window(NOW)[0])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(memory=memories(), query=st.lists(piece, min_size=1, max_size=5).map(" ".join),
       max_events=st.integers(1, 12), budget=st.sampled_from([0, 60, 200, 500]) | st.integers(0, 400))
def test_events_shown_by_position_are_those_shown_by_time(memory, query, max_events, budget):
    profiles, events = memory
    words = query_terms(query)
    assume(words)
    rows = [(e.id, e.user_id, e.summary, e.created_at) for e in events]
    window = RecallWindow.of(rows, max(40, max_events))
    assert window.ordered  # the rows come newest first, as blocks show them
    by_position = _block("u", profiles, events, words, window, max_events, budget)
    by_time = _block("u", profiles, events, words, window._replace(ordered=False), max_events, budget)
    assert (by_position and by_position.text) == (by_time and by_time.text)
    if by_position is not None:
        assert by_position.order == by_time.order and by_position.shown == by_time.shown


def test_a_window_whose_order_is_not_the_blocks_shows_events_by_time():
    # SQLite puts an empty created_at before a NULL one whatever their ids; a block orders both as ""
    # and then by id: the newer id first.
    rows = [(1, "u", "养了一只猫", ""), (2, "u", "猫生病了", None)]
    window = RecallWindow.of(rows, 10)
    assert not window.ordered
    events = [EventEntry(*row) for row in rows]
    made = _block("u", [], events, ("猫",), window, 5, 0)
    assert made.text == "[u:events]  猫生病了 |  养了一只猫"


@given(words=st.lists(st.sampled_from(VOCABULARY) | st.text(min_size=1, max_size=3), min_size=1, max_size=6))
def test_remembered_weights_are_the_words_weights(words):
    words = tuple(words)
    want = tuple((0.5 if len(w) == 1 else 0.8) if is_han(w) else None for w in words)
    assert inside_weights(words) == want
    assert inside_weights(words) == want  # remembered
    _WEIGHTS.clear()
    assert inside_weights(words) == want


class _Block:
    def __init__(self, text, truncated):
        self.text, self.truncated = text, truncated


@given(blocks=st.lists(st.tuples(st.text(), st.booleans()), min_size=1, max_size=3),
       users=st.lists(st.from_regex(r"[A-Za-z0-9_]{1,12}", fullmatch=True), min_size=3, max_size=3))
def test_the_fast_paths_reply_is_the_encoders(blocks, users):
    made = [_Block(text, truncated) for text, truncated in blocks]
    user_ids = tuple(users[:len(made)])
    try:
        want = dump_json({"context": join_texts(b.text for b in made), "users": list(user_ids),
                          "truncated": any(b.truncated for b in made)})
    except UnicodeEncodeError:  # a lone surrogate: neither can encode it
        assume(False)
    assert _encode(user_ids, made) == want


def test_remembered_weights_stay_small_whatever_the_words():
    _WEIGHTS.clear()
    long_word = "猫" * 2000  # a message's letters without a break: one segment
    assert inside_weights((long_word, "橘猫")) == inside_weights((long_word, "橘猫"))
    assert list(_WEIGHTS) == ["橘猫"]
