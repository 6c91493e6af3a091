"""A user's newest events held for recall beside the cached block: their texts searched at once for a message's words.

A block for a message never seen before must not cost a database read: the context cache keeps,
per user, the user's newest WINDOW events in a compact form (a few strings and packed integers, no
object per event, nothing the garbage collector tracks once cached). Finding the events a message
is about is then a few str.find() calls over one string, and the rest is done for the few events
found. Events older than the window (a user with more of them) come from the recall index.
"""
from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from typing import NamedTuple

from kiraos_desktop.core.context.format import event_entry, sanitize
from kiraos_desktop.core.recall.ranking import age_days, micros
from kiraos_desktop.core.storage.recall_index import SCAN_LIMIT
from kiraos_desktop.core.recall.text import MAX_SCORED_CHARS, normalise, terms
from kiraos_desktop.core.memory.records import EventEntry

#: The newest events held per user: those recall searches inside their text (older ones are found
#: through the index, as recall_index.recall_rows() does).
WINDOW = SCAN_LIMIT
_SEP = "\x00"  # between texts: never inside a word (words are letters and digits)
_WORD, _END = "\x01", "\x02"  # before and after each of an event's own words
_OFFSETS = "I"  # packed offsets (unsigned 32 bits)
_IDS = "q"  # packed event ids (signed 64 bits)
_HEADER = 56  # an object's header and malloc's rounding, roughly


class RecallWindow(NamedTuple):
    """A user's newest events, newest first (created_at, then id, both descending: the block's order).

    Cached as a plain tuple (the context cache's entries end with their size)."""

    limit: int  # the events asked for (the window holds all of the user's if it holds fewer)
    complete: bool  # it holds every event of the user
    ordered: bool  # newest first is also (created_at or "", id) descending, as blocks show events
    dirty: bool  # some summary needs sanitising in the block
    ids: bytes  # packed event ids
    stamps: str  # created_at texts one after the other ("" for NULL)
    stamp_starts: bytes  # packed: where each created_at starts in `stamps`, then where the last ends
    date_ends: bytes  # packed: where each created_at's date (its first 10 characters) ends in `stamps`
    nulls: tuple  # the positions whose created_at is NULL
    texts: str  # the summaries joined by _SEP
    starts: bytes  # packed: where each summary starts in `texts`, then len(texts) + 1
    folded: str  # normalise()d summaries joined by _SEP (`texts` itself when equal)
    fold_starts: bytes  # packed: where each starts in `folded`, then len(folded) + 1 (`starts` itself when equal)
    moments: bytes  # packed: each created_at as recall.micros() reads it
    words: str  # each event's own words (recall_text.terms()), each between _WORD and _END, one event after the other
    word_starts: bytes  # packed: where each event's words start in `words`, then len(words)
    entry_lengths: bytes  # packed: the length of each event's entry in a block (context_format.event_entry())
    size: int  # estimated bytes held

    @classmethod
    def of(cls, rows, limit: int) -> "RecallWindow":
        """The window of event rows (id, user_id, summary, created_at), newest first; `limit` rows were
        asked for with one more: more rows than `limit` mean the user has older events."""
        complete = len(rows) <= limit
        rows = rows[:limit]
        ids = [row[0] for row in rows]
        texts = [row[2] for row in rows]
        stamps = [row[3] for row in rows]
        nulls = tuple(n for n, stamp in enumerate(stamps) if stamp is None)
        if nulls:
            stamps = [stamp or "" for stamp in stamps]
        keys = list(zip(stamps, ids))
        ordered = all(newer > older for newer, older in zip(keys, keys[1:]))
        joined = _SEP.join(texts)
        starts = _starts(texts)
        folded_texts = [normalise(text) for text in texts]
        if folded_texts == texts:
            folded, fold_starts = joined, starts
        else:
            folded, fold_starts = _SEP.join(folded_texts), _starts(folded_texts)
        stamp_starts, date_ends, at = [], [], 0
        for stamp in stamps:
            stamp_starts.append(at)
            date_ends.append(at + len(stamp[:10]))
            at += len(stamp)
        stamp_starts.append(at)
        own, word_starts, at = [], [], 0
        searched = bisect_right(_unpacked(fold_starts), MAX_SCORED_CHARS + 1) - 1  # as matches() searches
        for n, text in enumerate(texts):
            word_starts.append(at)
            found = terms(text) if n < searched else ()  # a query never looks past them: not segmented
            if found:
                own.append(_WORD + (_END + _WORD).join(found) + _END)
                at += len(own[-1])
        word_starts.append(at)
        words = "".join(own)
        shown = [sanitize(text) for text in texts]
        dirty = shown != texts
        entry_lengths = _pack(_OFFSETS, [len(event_entry(stamp[:10], text)) for stamp, text in zip(stamps, shown)])
        word_starts = _pack(_OFFSETS, word_starts)
        moments = _pack(_IDS, [micros(stamp) for stamp in stamps])
        packed_ids = _pack(_IDS, ids)
        stamp_text = "".join(stamps)
        stamp_starts, date_ends = _pack(_OFFSETS, stamp_starts), _pack(_OFFSETS, date_ends)
        size = (_HEADER * 10 + 8 * len(nulls) + _str_bytes(stamp_text) + _str_bytes(joined) + len(packed_ids)
                + len(stamp_starts) + len(date_ends) + len(starts) + len(entry_lengths)
                + (0 if folded is joined else _str_bytes(folded) + len(fold_starts))
                + _str_bytes(words) + len(word_starts) + len(moments))
        return cls(limit, complete, ordered, dirty, packed_ids, stamp_text, stamp_starts, date_ends, nulls, joined,
                   starts, folded, fold_starts, moments, words, word_starts, entry_lengths, size)

    def count(self) -> int:
        return len(self.ids) // 8

    def event_ids(self):
        return memoryview(self.ids).cast(_IDS)

    def event_moments(self):
        return memoryview(self.moments).cast(_IDS)

    def created_at(self, n: int, starts=None) -> str | None:
        """The created_at of the `n`th event (None for NULL); `starts`: the unpacked stamp_starts, when at hand."""
        if n in self.nulls:
            return None
        starts = starts if starts is not None else memoryview(self.stamp_starts).cast(_OFFSETS)
        return self.stamps[starts[n]:starts[n + 1]]

    def summary(self, n: int, starts=None) -> str:
        starts = starts if starts is not None else memoryview(self.starts).cast(_OFFSETS)
        return self.texts[starts[n]:starts[n + 1] - 1]

    def entry(self, user_id: str, n: int) -> EventEntry:
        return EventEntry(self.event_ids()[n], user_id, self.summary(n), self.created_at(n))

    def found(self, words: tuple[str, ...], inside: tuple, now: int) -> list[tuple]:
        """rank()'s input for the events that hold a word: (age in days at `now` (micros()), created_at,
        id, [(word, weight), ...], position) per event, newest first (matches())."""
        ids, moments, stamps, nulls = self.event_ids(), self.event_moments(), self.stamps, self.nulls
        starts = memoryview(self.stamp_starts).cast(_OFFSETS)
        found = self.matches(words, inside)
        return [(age_days(moments[n], now), None if n in nulls else stamps[starts[n]:starts[n + 1]], ids[n],
                 found[n], n) for n in sorted(found)]

    def newest(self, count: int, taken) -> list[int]:
        """The positions of the newest `count` events whose positions are not in `taken`."""
        if not taken:
            return list(range(min(count, self.count())))
        return [n for n in range(min(count + len(taken), self.count())) if n not in taken][:count]

    def dates_and_summaries(self, positions) -> tuple[list[str], list[str]]:
        """The block's date and (sanitised) summary of the events at `positions`."""
        stamps, texts = self.stamps, self.texts
        at, ends = memoryview(self.stamp_starts).cast(_OFFSETS), memoryview(self.date_ends).cast(_OFFSETS)
        dates = [stamps[at[n]:ends[n]] for n in positions]
        at = memoryview(self.starts).cast(_OFFSETS)
        summaries = [texts[at[n]:at[n + 1] - 1] for n in positions]
        return dates, ([sanitize(text) for text in summaries] if self.dirty else summaries)

    def scored_chars(self) -> int:
        """How much of the window's text a query searches: its newest events up to MAX_SCORED_CHARS."""
        return min(len(self.folded), MAX_SCORED_CHARS)

    def needs_older(self) -> bool:
        """Whether a query also scores the user's events older than the window: the window does not hold
        them all and its own text leaves some of the budget (recall/text.MAX_SCORED_CHARS)."""
        return not self.complete and self.scored_chars() < MAX_SCORED_CHARS

    def matches(self, words: tuple[str, ...], inside: tuple) -> dict[int, list[tuple[str, float]]]:
        """The events that hold a word: position -> [(word, weight), ...] in the words' order; only the
        newest events whose texts fit in scored_chars() are searched (a bound on a query's work).

        A word counts with weight 1 when it is one of the event's own words (recall_text.terms());
        a word with an `inside` weight (Chinese) also counts, with that weight, when found anywhere
        inside the text; any other word found only inside another word does not count."""
        folded, own_words = self.folded, self.words
        find, find_own = folded.find, own_words.find
        starts = memoryview(self.fold_starts).cast(_OFFSETS)
        own_starts = memoryview(self.word_starts).cast(_OFFSETS)
        searched = bisect_right(starts, self.scored_chars() + 1) - 1  # events wholly inside it
        end, own_end = starts[searched], own_starts[searched]
        found: dict[int, list] = {}
        for word, weight in zip(words, inside):
            marked = _WORD + word + _END
            if weight is None:  # only the events holding it as a word of their own
                at = find_own(marked, 0, own_end)
                while at >= 0:
                    n = bisect_right(own_starts, at) - 1
                    pairs = found.get(n)
                    if pairs is None:
                        found[n] = [(word, 1.0)]
                    else:
                        pairs.append((word, 1.0))
                    at = find_own(marked, own_starts[n + 1], own_end)
                continue
            at = find(word, 0, end)
            while at >= 0:
                n = bisect_right(starts, at) - 1
                at = find(word, starts[n + 1], end)
                own = find_own(marked, own_starts[n], own_starts[n + 1]) >= 0
                pairs = found.get(n)
                if pairs is None:
                    found[n] = [(word, 1.0 if own else weight)]
                else:
                    pairs.append((word, 1.0 if own else weight))
        return found


def _starts(texts: list[str]) -> bytes:
    """Where each text starts when joined by _SEP, then where one after the last would."""
    starts, at = [], 0
    for text in texts:
        starts.append(at)
        at += len(text) + 1
    starts.append(at)
    return _pack(_OFFSETS, starts)


def _unpacked(packed: bytes):
    return memoryview(packed).cast(_OFFSETS)


def _pack(code: str, values: list[int]) -> bytes:
    return array(code, values).tobytes()


def _str_bytes(text: str) -> int:
    return sys.getsizeof(text)
