"""Relevance recall: which of a user's events a message is about, scored from their words and age."""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from kiraos_desktop.core.recall.text import MAX_SCORED_CHARS, is_han, normalise, query_terms, terms
from kiraos_desktop.core.memory.records import EventEntry, ProfileEntry
from kiraos_desktop.core.timeutil import parse_timestamp



class RecallRows(Protocol):
    """What recall needs of a store (storage/protocol.MemoryStore has it; recall sits below storage)."""

    def recall_rows(self, user_id: str, words: tuple[str, ...], newest: int,
                    scan: bool = True) -> tuple[list[EventEntry], list[EventEntry], int]: ...

    @property
    def recall_build_complete(self) -> bool: ...

    def recall_build_step(self, batch: int = ...) -> tuple[int, int]: ...

#: A Chinese word found only inside the text (not as a word of its own) counts this much of a whole
#: word: one character is often part of an unrelated word, two or more seldom are.
INSIDE_CHAR_WEIGHT = 0.5
INSIDE_WORD_WEIGHT = 0.8
#: Recency: a new event scores up to (1 + RECENCY_BOOST) times its relevance, halving every RECENCY_HALF_LIFE_DAYS.
RECENCY_BOOST = 0.5
RECENCY_HALF_LIFE_DAYS = 30.0
#: Ages are counted from the start of the current hour: the scores (and so a block made for a
#: message) stay the same until the hour ends, which is how long such a block may be cached.
#: An hour moves a 30-day decay by about 0.1 %.
RECENCY_STEP = timedelta(hours=1)


def scoring_window(now: datetime | None = None) -> tuple[datetime, datetime]:
    """(the moment ages are counted from, the moment the next step starts) for the time `now`."""
    moment = (now or datetime.now()).replace(minute=0, second=0, microsecond=0)
    return moment, moment + RECENCY_STEP


@dataclass(frozen=True)
class RecalledEvent:
    """An event chosen for the block: relevant to the query (score > 0, the words it matched) or recent."""

    event: EventEntry
    score: float = 0.0
    matched: tuple[str, ...] = ()

    @property
    def relevant(self) -> bool:
        return self.score > 0


#: What micros() gives for a time that cannot be read (its event is scored without recency).
NO_TIME = -(2 ** 63)
_FIRST = datetime(1, 1, 1)
_MICROSECOND = timedelta(microseconds=1)


def micros(created_at: str | None) -> int:
    """A stored time as microseconds since the year 1 (NO_TIME when it cannot be read): ages are
    differences of these, exactly what subtracting the datetimes gives."""
    if created_at is None:
        return NO_TIME
    try:
        moment = datetime.fromisoformat(created_at)  # the usual stored text, read as parse_timestamp() reads it
        if moment.tzinfo is not None:
            raise ValueError("with an offset")
    except (ValueError, TypeError):
        try:
            moment = parse_timestamp(created_at or "")
        except (ValueError, TypeError):
            return NO_TIME
    return (moment - _FIRST) // _MICROSECOND


def micros_of(moment: datetime) -> int:
    """A datetime as micros() gives a stored time."""
    return (moment - _FIRST) // _MICROSECOND


def age_days(moment: int, now: int) -> float:
    """Days from `moment` to `now` (micros()), at least 0; infinite for NO_TIME."""
    if moment == NO_TIME:
        return math.inf
    return max(0.0, (now - moment) / 1_000_000 / 86400)  # as timedelta.total_seconds() divides


def inside_weights(words: tuple[str, ...]) -> tuple[float | None, ...]:
    """Per word, what finding it only inside a text (not as one of its own words) counts: Chinese
    words count INSIDE_CHAR_WEIGHT or INSIDE_WORD_WEIGHT, other words nothing (None)."""
    return tuple(map(_WEIGHTS.__getitem__, words))


class _Weights(dict):
    """inside_weights() of the (not ASCII) words seen last, as messages repeat them: at most _MAX_WEIGHTS."""

    def __missing__(self, word: str) -> float | None:
        if word.isascii():  # never Chinese (and not kept: numbers in messages are seldom asked twice)
            return None
        weight = (INSIDE_CHAR_WEIGHT if len(word) == 1 else INSIDE_WORD_WEIGHT) if is_han(word) else None
        if len(word) > _MAX_KEPT_CHARS:  # words are short; a long run of letters is a client's, not kept
            return weight
        if len(self) >= _MAX_WEIGHTS:  # a bound on what clients' words can hold
            self.clear()
        self[word] = weight
        return weight


_WEIGHTS = _Weights()
_MAX_WEIGHTS = 8192
_MAX_KEPT_CHARS = 16  # so the words kept take a few hundred kB at most


def matches(words: tuple[str, ...], text: str, inside: tuple | None = None) -> list[tuple[str, float]]:
    """The words `text` holds, with their weights, in the words' order (`inside`: inside_weights(words))."""
    own = set(terms(text))
    folded = None
    found = []
    for word, weight in zip(words, inside or inside_weights(words)):
        if word in own:
            found.append((word, 1.0))
        elif weight is not None:
            if folded is None:
                folded = normalise(text)
            if word in folded:
                found.append((word, weight))
    return found


def rank(matched: list[tuple], total: int) -> list[tuple]:
    """Scores of matched events, most relevant first (newest first among equals).

    `matched`: (age in days, created_at, id, [(word, weight), ...], anything) per event; returns (score,
    created_at or "", id, found, anything) tuples. Relevance sums the matched words' weights times their rarity
    among the user's `total` events (log(1 + total / events with the word)); recency multiplies it by
    up to 1 + RECENCY_BOOST, halving every RECENCY_HALF_LIFE_DAYS.
    """
    having: dict[str, int] = {}
    for _, _, _, found, _ in matched:
        for word, _ in found:
            having[word] = having.get(word, 0) + 1
    total = max(total, len(matched))
    rarity = {word: math.log(1 + total / count) for word, count in having.items()}
    scored = []
    for age, created_at, event_id, found, item in matched:
        relevance = 0.0
        for word, weight in found:
            relevance += weight * rarity[word]
        recency = 1 + RECENCY_BOOST * 0.5 ** (age / RECENCY_HALF_LIFE_DAYS)
        scored.append((relevance * recency, created_at or "", event_id, found, item))
    # Highest score first, then newest (created_at, then id: unique, so `found` is never compared).
    scored.sort(reverse=True)
    return scored


def score_events(words: tuple[str, ...], events: list[EventEntry], total: int, now: datetime) -> list[RecalledEvent]:
    """The events that match a word, most relevant first (newest first among equals): rank()."""
    matched = []
    inside = inside_weights(words)
    at = micros_of(now)
    for event in within_scoring_budget(events):
        folded = normalise(event.summary)
        if any(word in folded for word in words):  # a word matches only text that holds it
            found = matches(words, event.summary, inside)
            if found:
                matched.append((age_days(micros(event.created_at), at), event.created_at, event.id, found, event))
    return [RecalledEvent(event, score, tuple(word for word, _ in found))
            for score, _, _, found, event in rank(matched, total)]


def within_scoring_budget(events: list[EventEntry], budget: int = MAX_SCORED_CHARS) -> list[EventEntry]:
    """The candidates a query scores: `events` newest first (time, then id, as the store orders them;
    unreadable times last) while their texts add up to at most `budget` characters."""
    if sum(len(event.summary) for event in events) <= budget:
        return events
    kept = []
    for event in sorted(events, key=lambda event: (micros(event.created_at), event.id), reverse=True):
        budget -= len(event.summary)
        if budget < 0:
            break
        kept.append(event)
    return kept


def pick_events(relevant: list[RecalledEvent], newest: list[EventEntry], limit: int) -> list[RecalledEvent]:
    """Up to `limit` events in priority order: the relevant ones, then the newest of the rest."""
    picked = relevant[:limit]
    chosen = {r.event.id for r in picked}
    for event in newest:
        if len(picked) >= limit:
            break
        if event.id not in chosen:
            picked.append(RecalledEvent(event))
            chosen.add(event.id)
    return picked


def matching_profiles(words: tuple[str, ...], profiles: list[ProfileEntry]) -> list[ProfileEntry]:
    """The entries whose key or value holds one of the words, most matched words first."""
    counted = []
    inside = inside_weights(words)
    for entry in profiles:
        found = matches(words, f"{entry.key} {entry.value}", inside)
        if found:
            counted.append((sum(weight for _, weight in found), entry))
    counted.sort(key=lambda pair: pair[0], reverse=True)  # stable: the given order among equals
    return [entry for _, entry in counted]


@dataclass(frozen=True)
class Recalled:
    """What a message recalls of a user: its words, the matching events (most relevant first) and
    the user's newest events (newest first, at least those a block shows)."""

    words: tuple[str, ...]
    relevant: list[RecalledEvent]
    newest: list[EventEntry]


class Recall:
    """Finds a user's events relevant to a message, through the store's recall index."""

    def __init__(self, store: RecallRows) -> None:
        self._store = store

    def recall(self, user_id: str, query: str, now: datetime | None = None, newest: int = 0) -> Recalled:
        """The events `query` recalls, and the user's `newest` newest events; ages are counted
        from the start of the hour of `now` (scoring_window())."""
        words = query_terms(query) if query else ()
        if not words:
            return Recalled(words, [], [])
        latest, found, total = self._store.recall_rows(user_id, words, newest)
        return Recalled(words, score_events(words, found, total, scoring_window(now)[0]), latest)

    def relevant_events(self, user_id: str, query: str,
                        now: datetime | None = None) -> tuple[tuple[str, ...], list[RecalledEvent]]:
        """(the query's words, the user's events that match them, most relevant first)."""
        found = self.recall(user_id, query, now)
        return found.words, found.relevant


def build_index(store: RecallRows, progress=None, is_cancelled=None, batch: int | None = None) -> bool:
    """Index an existing database's events to the end, a batch per transaction (resumable: what
    was indexed stays when it is stopped); `progress(done, total)` after each batch. False when
    `is_cancelled()` stopped it."""
    while not store.recall_build_complete:
        if is_cancelled is not None and is_cancelled():
            return False
        done, total = store.recall_build_step() if batch is None else store.recall_build_step(batch)
        if progress is not None:
            progress(done, total)
    return True
