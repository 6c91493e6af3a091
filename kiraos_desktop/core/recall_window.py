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

from kiraos_desktop.core.recall import micros
from kiraos_desktop.core.recall_index import SCAN_LIMIT
from kiraos_desktop.core.recall_text import normalise, terms
from kiraos_desktop.core.records import EventEntry

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
    ids: bytes  # packed event ids
    stamps: str  # created_at texts one after the other ("" for NULL)
    stamp_ends: bytes  # packed: where each created_at ends in `stamps`
    nulls: tuple  # the positions whose created_at is NULL
    texts: str  # the summaries joined by _SEP
    starts: bytes  # packed: where each summary starts in `texts`
    folded: str  # normalise()d summaries joined by _SEP (`texts` itself when equal)
    fold_starts: bytes  # packed: where each starts in `folded` (`starts` itself when equal)
    moments: bytes  # packed: each created_at as recall.micros() reads it
    words: str  # each event's own words (recall_text.terms()), each between _WORD and _END, one event after the other
    word_starts: bytes  # packed: where each event's words start in `words`
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
        joined = _SEP.join(texts)
        starts = _starts(texts)
        folded_texts = [normalise(text) for text in texts]
        if folded_texts == texts:
            folded, fold_starts = joined, starts
        else:
            folded, fold_starts = _SEP.join(folded_texts), _starts(folded_texts)
        ends, end = [], 0
        for stamp in stamps:
            end += len(stamp)
            ends.append(end)
        own, word_starts, at = [], [], 0
        for text in texts:
            word_starts.append(at)
            found = terms(text)
            if found:
                own.append(_WORD + (_END + _WORD).join(found) + _END)
                at += len(own[-1])
        words = "".join(own)
        word_starts = _pack(_OFFSETS, word_starts)
        moments = _pack(_IDS, [micros(stamp) for stamp in stamps])
        packed_ids = _pack(_IDS, ids)
        stamp_text = "".join(stamps)
        stamp_ends = _pack(_OFFSETS, ends)
        size = (_HEADER * 8 + 8 * len(nulls) + _str_bytes(stamp_text) + _str_bytes(joined) + len(packed_ids)
                + len(stamp_ends) + len(starts) + (0 if folded is joined else _str_bytes(folded) + len(fold_starts))
                + _str_bytes(words) + len(word_starts) + len(moments))
        return cls(limit, complete, packed_ids, stamp_text, stamp_ends, nulls, joined, starts, folded,
                   fold_starts, moments, words, word_starts, size)

    def count(self) -> int:
        return len(self.ids) // 8

    def event_ids(self):
        return memoryview(self.ids).cast(_IDS)

    def event_moments(self):
        return memoryview(self.moments).cast(_IDS)

    def created_at(self, n: int, ends=None) -> str | None:
        """The created_at of the `n`th event (None for NULL); `ends`: the unpacked stamp_ends, when at hand."""
        if n in self.nulls:
            return None
        ends = ends if ends is not None else memoryview(self.stamp_ends).cast(_OFFSETS)
        return self.stamps[ends[n - 1] if n else 0:ends[n]]

    def summary(self, n: int, starts=None) -> str:
        starts = starts if starts is not None else memoryview(self.starts).cast(_OFFSETS)
        return self.texts[starts[n]:starts[n + 1] - 1] if n + 1 < len(starts) else self.texts[starts[n]:]

    def entry(self, user_id: str, n: int) -> EventEntry:
        return EventEntry(self.event_ids()[n], user_id, self.summary(n), self.created_at(n))

    def matches(self, words: tuple[str, ...], inside: tuple) -> list[tuple[int, list[tuple[str, float]]]]:
        """The events that hold a word, as (position, [(word, weight), ...] in the words' order), newest first.

        A word counts with weight 1 when it is one of the event's own words (recall_text.terms());
        a word with an `inside` weight (Chinese) also counts, with that weight, when found anywhere
        inside the text; any other word found only inside another word does not count."""
        folded, own_words = self.folded, self.words
        find, find_own = folded.find, own_words.find
        starts = memoryview(self.fold_starts).cast(_OFFSETS)
        own_starts = memoryview(self.word_starts).cast(_OFFSETS)
        last = len(starts) - 1
        found: dict[int, list] = {}
        for word, weight in zip(words, inside):
            at = find(word)
            if at < 0:
                continue
            marked = _WORD + word + _END
            while at >= 0:
                n = bisect_right(starts, at) - 1
                if n < last:
                    at = find(word, starts[n + 1])
                    own = find_own(marked, own_starts[n], own_starts[n + 1]) >= 0
                else:
                    at = -1
                    own = find_own(marked, own_starts[n]) >= 0
                if own or weight is not None:
                    pairs = found.get(n)
                    if pairs is None:
                        found[n] = [(word, 1.0 if own else weight)]
                    else:
                        pairs.append((word, 1.0 if own else weight))
        return sorted(found.items())


def _starts(texts: list[str]) -> bytes:
    starts, at = [], 0
    for text in texts:
        starts.append(at)
        at += len(text) + 1
    return _pack(_OFFSETS, starts)


def _pack(code: str, values: list[int]) -> bytes:
    return array(code, values).tobytes()


def _str_bytes(text: str) -> int:
    return sys.getsizeof(text)
