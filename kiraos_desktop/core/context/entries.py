"""The context cache's entries: compact plain blocks, blocks made for messages, and when one is still exact."""
from __future__ import annotations

import itertools
import sys
from datetime import datetime
from typing import NamedTuple

from kiraos_desktop.core.context.format import ContextItem, UserContext
from kiraos_desktop.core.recall.ranking import scoring_window
from kiraos_desktop.core.timeutil import now_iso, to_iso

_ITEM_OVERHEAD = 3 * 64  # the item tuple, its payload tuple and the pair tuples, roughly
_STR_HEADER = 56  # a str object without its characters: 40 bytes (ASCII) to 56 (others), and malloc's rounding
#: Unique stamps of cached blocks (a reply encoded from a block is kept under its stamp).
stamps = itertools.count(1)


class CachedBlock(NamedTuple):
    """A cached block in compact form: its items are plain tuples (kind, label, payload pairs), which the
    garbage collector stops tracking, so a cache of many users adds no long collector pauses. `stamp`
    is unique to the block: data derived from it (an encoded reply) is keyed on the stamp, which does
    not keep the block alive. `size` estimates the bytes it holds."""

    text: str
    budget: int
    kept: int
    items: tuple
    valid_until: str | None
    stamp: int
    profiles: int  # its items before the events' (a block for a message takes their lines)
    size: int

    @property
    def truncated(self) -> bool:
        return self.kept < len(self.items)

    @classmethod
    def of(cls, block: UserContext, valid_until: str | None) -> "CachedBlock":
        """The compact form of `block`."""
        # Payloads go in as tuples of pairs: a tuple holding a dict is never untracked.
        items = tuple((i.kind, i.label, tuple(i.payload.items())) for i in block.kept + block.dropped)
        texts = [label for _, label, _ in items]
        texts.extend([value for _, _, payload in items for _, value in payload])
        # Each text's object header, and its characters at the width of the widest (one join:
        # sys.getsizeof() on every text cost as much as rendering the block).
        size = (256 + sys.getsizeof(block.text) + (8 + _ITEM_OVERHEAD) * len(items) + 64 * (len(texts) - len(items))
                + _STR_HEADER * len(texts) + sys.getsizeof("".join(texts)))
        profiles = len(items)
        while profiles and items[profiles - 1][0] == "events":  # events come last
            profiles -= 1
        return cls(block.text, block.budget, len(block.kept), items, valid_until, next(stamps), profiles, size)

    def block(self, user_id: str) -> UserContext:
        items = tuple(ContextItem(kind, label, dict(payload)) for kind, label, payload in self.items)
        return UserContext(user_id, self.text, self.budget, items[:self.kept], items[self.kept:])


class CachedRecall(NamedTuple):
    """A cached block for a message: what the API replies (a bot asks for the block of its current
    message, sometimes twice). Its items are not kept (the events' would hold several kilobytes per
    block): user_block() makes them again from the cached plain block and RecallWindow."""

    text: str
    budget: int
    truncated: bool
    valid_until: str | None
    stamp: int
    size: int


def recency_step(now: datetime) -> tuple[datetime, str]:
    """(the moment ages are counted from at `now`, when its recency step ends as stored times are
    written): recall.scoring_window(), worked out once a step."""
    start, end, end_text = _CURRENT_STEP
    if not start <= now < end:
        start, end = scoring_window(now)
        end_text = to_iso(end)
        _CURRENT_STEP[:] = [start, end, end_text]
    return start, end_text


_CURRENT_STEP: list = [datetime.max, datetime.min, ""]


def exact(raw: tuple | None, kind: type, budget: int, now: datetime | None = None):
    """The cache entry `raw` as `kind` (CachedBlock or CachedRecall) if it is still exact for `budget` (at
    `now`: the time it was looked up), else None."""
    if raw is None:
        return None
    hit = kind._make(raw)
    until = hit.valid_until
    if hit.budget == budget and (until is None or (now_iso() if now is None else to_iso(now)) < until):
        return hit
    return None
