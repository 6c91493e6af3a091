"""The memory block for a message: the user's events relevant to it first, then the newest, same budget.

Made from what the context cache holds for the user (the plain block's profile lines and the
user's newest events: recall_window.py) without the database, unless the user has events older
than the window, and without the template (context_format.join_items()).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from kiraos_desktop.core.context_format import UserContext, join_items, prefix_lengths, sanitize
from kiraos_desktop.core.recall import RecalledEvent, inside_weights, matches, rank
from kiraos_desktop.core.recall_window import RecallWindow
from kiraos_desktop.core.records import EventEntry


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
    """A block for a message in the context cache's compact form (items: kind, label, payload pairs)."""

    text: str
    kept: int  # items[:kept] are in the block, in the order shown; the rest were dropped (priority order)
    items: tuple
    shown: list  # the events in the block as rank() gives them (score, created_at, id, words, where), newest first

    @property
    def truncated(self) -> bool:
        return self.kept < len(self.items)


def make_block(user_id: str, words: tuple[str, ...], plain, window: RecallWindow, older: list[EventEntry],
               total: int, max_events: int, budget: int, now: datetime) -> MadeBlock | None:
    """The block for a message's `words`, or None when no event matches them (the plain block is the answer).

    `plain`: the user's plain block under some budget (compact: text, kept, items), for its profile
    lines; `window`: the user's newest events (at least `max_events`); `older`: candidates older
    than the window (recall_rows() of the index, when the window does not hold every event) and
    `total` the user's number of events. Events: the relevant ones (rank()), then the newest fill
    up to `max_events`; kept in that order up to `budget` after every profile line, shown newest first.
    """
    inside = inside_weights(words)
    ends = memoryview(window.stamp_ends).cast("I")
    ids = window.event_ids()
    matched = [(window.created_at(n, ends), ids[n], found, n) for n, found in window.matches(words, inside)]
    for event in older:
        found = matches(words, event.summary, inside)
        if found:
            matched.append((event.created_at, event.id, found, event))
    if not matched:
        return None
    picked = rank(matched, total, now)[:max_events]
    if len(picked) < max_events:  # the newest of the rest fill what is left
        chosen = {p[2] for p in picked}
        for n in range(min(max_events, window.count())):
            if ids[n] not in chosen:
                picked.append((0.0, window.created_at(n, ends) or "", ids[n], (), n))
                if len(picked) >= max_events:
                    break
    starts = memoryview(window.starts).cast("I")
    events = []
    for _, created_at, _, _, where in picked:
        summary = window.summary(where, starts) if type(where) is int else where.summary
        date = created_at[:10]
        events.append(("events", f"{date} {summary}", (("date", date), ("summary", sanitize(summary)))))
    items = plain.items
    profiles = len(items)
    while profiles and items[profiles - 1][0] == "events":  # the plain block's events come last
        profiles -= 1
    user = sanitize(user_id)
    count, text = _fit(user, plain, profiles, events, budget)
    kept_profiles = min(count, profiles)
    order = sorted(range(count - kept_profiles), key=lambda k: (picked[k][1], picked[k][2]), reverse=True)
    if order:
        line = f"[{user}:events] " + " | ".join(events[k][2][0][1] + " " + events[k][2][1][1] for k in order)
        text = f"{text}\n{line}" if text else line
    items = items[:kept_profiles] + tuple(events[k] for k in order) + items[kept_profiles:profiles] + tuple(
        events[len(order):])
    return MadeBlock(text, count, items, [picked[k] for k in order])


def _fit(user: str, plain, profiles: int, events: list, budget: int) -> tuple[int, str]:
    """How many items (the plain block's `profiles` profile items, then `events`) fit in `budget`, and the
    text of the profile lines among them (the events' line is added in the order shown)."""
    if plain.kept >= profiles:  # every profile line is in the plain block's text, the events' line after them
        text = plain.text
        if profiles and plain.kept > profiles:
            text = text[:text.rfind("\n")]
        elif not profiles:
            text = ""
        if not budget or len(text) <= budget:
            count = profiles
            length = len(text) + (1 if text else 0) + len(user) + 10  # "\n" "[" user ":events] "
            for event in events:
                date, summary = event[2]
                length += len(date[1]) + len(summary[1]) + 1
                if budget and length > budget:
                    break
                count += 1
                length += 3  # " | " before the next
            return count, text
    lengths = prefix_lengths(user, plain.items[:profiles] + tuple(events), budget)
    count = len(lengths)
    kept = min(count, profiles)
    if kept <= plain.kept:  # the plain block's text starts with these lines
        return count, plain.text[:lengths[kept - 1]] if kept else ""
    return count, join_items(user, plain.items[:kept])


def recalled_events(user_id: str, window: RecallWindow, shown: list) -> tuple[RecalledEvent, ...]:
    """The events of MadeBlock.shown as RecalledEvents (the window's are read out of it)."""
    return tuple(RecalledEvent(where if not isinstance(where, int) else window.entry(user_id, where), score,
                               tuple(word for word, _ in found))
                 for score, _, _, found, where in shown)
