"""The memory block for a message: the user's events relevant to it first, then the newest, same budget.

Made from what the context cache holds for the user (the plain block's profile lines and the
user's newest events: recall_window.py) without the database, unless the user has events older
than the window, and without the template (context_format.join_items()).
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from datetime import datetime
from typing import NamedTuple

from kiraos_desktop.core.context.format import (
    SEPARATOR,
    UserContext,
    entry_text,
    event_entry,
    events_line,
    head_length,
    join_items,
    prefix_lengths,
    sanitize,
    section_line,
)
from kiraos_desktop.core.recall.ranking import (
    RecalledEvent,
    age_days,
    inside_weights,
    matches,
    micros,
    micros_of,
    rank,
    within_scoring_budget,
)
from kiraos_desktop.core.recall.text import MAX_SCORED_CHARS
from kiraos_desktop.core.context.recall_window import RecallWindow
from kiraos_desktop.core.memory.records import EventEntry


@dataclass(frozen=True)
class RecallBlock:
    """A block made for a message, with why each of its events is there (for people, not the bot)."""

    block: UserContext
    words: tuple[str, ...]  # the message's words that were looked for
    shown: tuple[RecalledEvent, ...]  # the events in the block, in the order shown; () when nothing matched

    @property
    def matched(self) -> bool:
        return any(r.relevant for r in self.shown)


class MadeBlock(NamedTuple):
    """A block made for a message: its text, and what it holds (its items are made only when asked for:
    made_items())."""

    text: str
    kept: int  # items kept, in priority order (the plain block's profile items, then the events)
    count: int  # items in all
    profiles: tuple  # the plain block's profile items (compact, shared)
    ranked: list  # the relevant events as rank() gives them (score, created_at or "", id, words, where)
    fill: list  # then the window's positions of the newest of the rest
    order: list  # the positions in `events` of those kept, in the order shown (newest first)
    window: RecallWindow

    @property
    def truncated(self) -> bool:
        return self.kept < self.count

    @property
    def events(self) -> list:
        """The events picked, in priority order, as rank() gives them (those filling in with score 0)."""
        return self.ranked + _filling(self.window, self.fill)

    @property
    def shown(self) -> list:
        events = self.events
        return [events[k] for k in self.order]


def make_block(user_id: str, words: tuple[str, ...], plain, window: RecallWindow, older: list[EventEntry],
               total: int, max_events: int, budget: int, now: datetime) -> MadeBlock | None:
    """The block for a message's `words`, or None when no event matches them (the plain block is the answer).

    `plain`: the user's plain block under some budget (CachedBlock), for its profile lines; `window`:
    the user's newest events (at least `max_events`); `older`: candidates older than the window
    (recall_rows() of the index, when the window does not hold every event) and `total` the user's
    number of events. Events: the relevant ones (rank()), then the newest fill up to `max_events`;
    kept in that order up to `budget` after every profile line, shown newest first.
    `now`: the moment ages are counted from (recall.scoring_window()).
    """
    inside = inside_weights(words)
    at = micros_of(now)
    matched = window.found(words, inside, at)
    # The window's events were segmented once, when cached; older ones get what is left of the budget.
    for event in within_scoring_budget(older, MAX_SCORED_CHARS - window.scored_chars()):
        found = matches(words, event.summary, inside)
        if found:
            matched.append((age_days(micros(event.created_at), at), event.created_at, event.id, found, event))
    if not matched:
        return None
    ranked = rank(matched, total)[:max_events]
    fill = window.newest(max_events - len(ranked), {p[4] for p in ranked}) if len(ranked) < max_events else []
    profiles = plain.profiles
    user = sanitize(user_id)
    text = _profile_text(plain, profiles, budget)
    if text is not None:  # every profile line fits: then as many events as fit
        kept = _events_kept(ranked, fill, window, budget, len(text) + (1 if text else 0) + head_length(user, "events"))
        count = profiles + kept
        positions = [p[4] for p in ranked[:kept]] + fill[:max(0, kept - len(ranked))]
        if window.ordered and (not older or all(type(n) is int for n in positions)):  # newest first: by position
            order = sorted(range(kept), key=positions.__getitem__)
            line = events_line(user, *window.dates_and_summaries(sorted(positions)))
        else:
            picked = (ranked + _filling(window, fill))[:kept]
            order = sorted(range(kept), key=lambda k: (picked[k][1], picked[k][2]), reverse=True)
            line = section_line(user, "events", [entry_text("events", _event_item(picked[k], window)[2])
                                                 for k in order])
    else:
        picked = ranked + _filling(window, fill)
        events = [_event_item(p, window) for p in picked]
        lengths = prefix_lengths(user, plain.items[:profiles] + tuple(events), budget)
        count = len(lengths)
        kept_profiles = min(count, profiles)
        text = plain.text[:lengths[kept_profiles - 1]] if kept_profiles <= plain.kept and kept_profiles else \
            join_items(user, plain.items[:kept_profiles])
        picked = picked[:count - kept_profiles]
        order = sorted(range(len(picked)), key=lambda k: (picked[k][1], picked[k][2]), reverse=True)
        line = section_line(user, "events", [entry_text("events", events[k][2]) for k in order])
    if order:
        text = f"{text}\n{line}" if text else line
    return MadeBlock(text, count, profiles + len(ranked) + len(fill), plain.items[:profiles], ranked, fill, order,
                     window)


def _filling(window: RecallWindow, fill: list) -> list:
    """The events at the window's positions `fill` as rank() gives events (score 0)."""
    ids = window.event_ids()
    return [(0.0, window.created_at(n) or "", ids[n], (), n) for n in fill]


def _events_kept(ranked: list, fill: list, window: RecallWindow, budget: int, length: int) -> int:
    """How many of the events (`ranked`, then `fill`) fit in `budget` on a line starting after `length`
    characters (0: all of them)."""
    if not budget:
        return len(ranked) + len(fill)
    lengths = memoryview(window.entry_lengths).cast("I")
    entries = [lengths[p[4]] if type(p[4]) is int else len(event_entry(p[1][:10], p[4].summary)) for p in ranked]
    entries += map(lengths.__getitem__, fill)
    # The line's length after k entries: `length` and each entry with the separator before it but the first.
    return bisect_right(list(accumulate(map(_SEPARATED.__add__, entries))), budget - length + len(SEPARATOR))


_SEPARATED = len(SEPARATOR)


def _profile_text(plain, profiles: int, budget: int) -> str | None:
    """The text of every profile line (the plain block's first `profiles` items) when they fit in `budget`
    and the plain block's text holds them all, else None."""
    if plain.kept < profiles:
        return None
    text = plain.text
    if not profiles:
        text = ""
    elif plain.kept > profiles:  # its events' line after them
        text = text[:text.rfind("\n")]
    return text if not budget or len(text) <= budget else None


def _event_item(picked: tuple, window: RecallWindow, starts=None) -> tuple:
    """The compact item (kind, label, payload pairs) of a picked event, as context_items() makes it."""
    created_at, where = picked[1], picked[4]
    summary = window.summary(where, starts) if type(where) is int else where.summary
    date = created_at[:10]
    return "events", f"{date} {summary}", (("date", date), ("summary", sanitize(summary)))


def made_items(made: MadeBlock, window: RecallWindow) -> tuple:
    """The compact items of a made block: those kept in the order shown, then those dropped (priority order)."""
    events = [_event_item(p, window) for p in made.events]
    kept_profiles = min(made.kept, len(made.profiles))
    return (made.profiles[:kept_profiles] + tuple(events[k] for k in made.order) + made.profiles[kept_profiles:]
            + tuple(events[len(made.order):]))


def recalled_events(user_id: str, window: RecallWindow, shown: list) -> tuple[RecalledEvent, ...]:
    """The events of MadeBlock.shown as RecalledEvents (the window's are read out of it)."""
    return tuple(RecalledEvent(where if not isinstance(where, int) else window.entry(user_id, where), score,
                               tuple(word for word, _ in found))
                 for score, _, _, found, where in shown)
