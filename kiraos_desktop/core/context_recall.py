"""The memory block for a message: the user's events relevant to it first, then the newest, same budget.

Made from what the context cache holds for the user (the plain block's profile lines and the
user's newest events: recall_window.py) without the database, unless the user has events older
than the window, and without the template (context_format.join_items()).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from kiraos_desktop.core.context_format import UserContext, entry_text, join_items, prefix_lengths, sanitize
from kiraos_desktop.core.recall import RecalledEvent, age_days, inside_weights, matches, micros, micros_of, rank
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
    """A block made for a message: its text, and what it holds (its items are made only when asked for:
    made_items())."""

    text: str
    kept: int  # items kept, in priority order (the plain block's profile items, then `events`)
    count: int  # items in all
    profiles: tuple  # the plain block's profile items (compact, shared)
    events: list  # the events picked, as rank() gives them (score, created_at or "", id, words, where), in priority order
    order: list  # the positions in `events` of those kept, in the order shown (newest first)

    @property
    def truncated(self) -> bool:
        return self.kept < self.count

    @property
    def shown(self) -> list:
        return [self.events[k] for k in self.order]


def make_block(user_id: str, words: tuple[str, ...], plain, window: RecallWindow, older: list[EventEntry],
               total: int, max_events: int, budget: int, now: datetime) -> MadeBlock | None:
    """The block for a message's `words`, or None when no event matches them (the plain block is the answer).

    `plain`: the user's plain block under some budget (compact: text, kept, items), for its profile
    lines; `window`: the user's newest events (at least `max_events`); `older`: candidates older
    than the window (recall_rows() of the index, when the window does not hold every event) and
    `total` the user's number of events. Events: the relevant ones (rank()), then the newest fill
    up to `max_events`; kept in that order up to `budget` after every profile line, shown newest first.
    `now`: the moment ages are counted from (recall.scoring_window()).
    """
    inside = inside_weights(words)
    created = window.created_at
    ends = memoryview(window.stamp_ends).cast("I")
    ids = window.event_ids()
    moments, at = window.event_moments(), micros_of(now)
    matched = [(age_days(moments[n], at), created(n, ends), ids[n], found, n)
               for n, found in window.matches(words, inside)]
    for event in older:
        found = matches(words, event.summary, inside)
        if found:
            matched.append((age_days(micros(event.created_at), at), event.created_at, event.id, found, event))
    if not matched:
        return None
    picked = rank(matched, total)[:max_events]
    if len(picked) < max_events:  # the newest of the rest fill what is left
        chosen = {p[2] for p in picked}
        for n in range(min(max_events, window.count())):
            event_id = ids[n]
            if event_id not in chosen:
                picked.append((0.0, created(n, ends) or "", event_id, (), n))
                if len(picked) >= max_events:
                    break
    items = plain.items
    profiles = len(items)
    while profiles and items[profiles - 1][0] == "events":  # the plain block's events come last
        profiles -= 1
    profile_items = items[:profiles]
    user = sanitize(user_id)
    starts = memoryview(window.starts).cast("I")
    text = _profile_text(plain, profiles, budget)
    if text is not None:  # every profile line fits: then as many events as fit
        count, lines = profiles, []
        length = len(text) + (1 if text else 0) + len(user) + 10  # "\n" "[" user ":events] "
        texts, last = window.texts, len(starts) - 1
        for _, created_at, _, _, where in picked:
            if type(where) is int:  # window.summary(), inline: this runs for every event of every block
                summary = texts[starts[where]:starts[where + 1] - 1] if where < last else texts[starts[where]:]
            else:
                summary = where.summary
            line = f"{created_at[:10]} {sanitize(summary)}"
            length += len(line)
            if budget and length > budget:
                break
            lines.append(line)
            length += 3  # " | " before the next
        count += len(lines)
    else:
        events = [_event_item(p, window, starts) for p in picked]
        lengths = prefix_lengths(user, profile_items + tuple(events), budget)
        count = len(lengths)
        kept = min(count, profiles)
        text = plain.text[:lengths[kept - 1]] if kept <= plain.kept and kept else join_items(user, items[:kept])
        lines = [entry_text("events", event[2]) for event in events[:count - kept]]
    order = sorted(range(len(lines)), key=lambda k: (picked[k][1], picked[k][2]), reverse=True)
    if order:
        line = f"[{user}:events] " + " | ".join([lines[k] for k in order])
        text = f"{text}\n{line}" if text else line
    return MadeBlock(text, count, profiles + len(picked), profile_items, picked, order)


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
