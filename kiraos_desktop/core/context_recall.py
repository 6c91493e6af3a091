"""The memory block for a message: the user's events relevant to it first, then the newest, same budget."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from kiraos_desktop.core.context_format import ContextItem, UserContext, context_items, render_items
from kiraos_desktop.core.recall import Recall, RecalledEvent, pick_events


@dataclass(frozen=True)
class RecallBlock:
    """A block made for a message, with why each of its events is there (for people, not the bot)."""

    block: UserContext
    words: tuple[str, ...]  # the message's words that were looked for
    shown: tuple[RecalledEvent, ...]  # the events in the block, in the order shown; () when nothing matched

    @property
    def matched(self) -> bool:
        return any(r.relevant for r in self.shown)


def _newest_first(picked: list[RecalledEvent]) -> list[int]:
    """The rank each event is shown at: newest first, as the plain block orders them."""
    order = sorted(range(len(picked)), key=lambda i: (picked[i].event.created_at or "", picked[i].event.id),
                   reverse=True)
    ranks = [0] * len(picked)
    for rank, index in enumerate(order):
        ranks[index] = rank
    return ranks


def recall_block(recall: Recall, user_id: str, query: str, max_events: int, budget: int,
                 plain: Callable[[], UserContext], now: datetime | None = None) -> RecallBlock:
    """The block for `query` at the time `now`; `plain()` (today's block) when no event matches it."""
    now = now or datetime.now()
    found = recall.recall(user_id, query, now, newest=max_events) if max_events > 0 else None
    if found is None or not found.relevant:
        return RecallBlock(plain(), found.words if found else (), ())
    # The profile lines are those of today's block (cached: no database read), events replaced.
    usual = plain()
    profile_items = [item for item in usual.kept + usual.dropped if "key" in item.payload]
    picked = pick_events(found.relevant, found.newest, max_events)
    ranks = _newest_first(picked)
    items = profile_items + context_items([], [r.event for r in picked])
    first_event = len(items) - len(picked)
    rank_of = {id(item): ranks[i] for i, item in enumerate(items[first_event:])}

    def shown(chosen: list[ContextItem]) -> list[ContextItem]:
        events = sorted((item for item in chosen if id(item) in rank_of), key=lambda item: rank_of[id(item)])
        return [item for item in chosen if id(item) not in rank_of] + events

    # Items are kept in priority order (every profile entry, then the picked events) up to the
    # budget, and shown in the block's usual order (newest event first). Today's block under the
    # same budget starts with the same profile items: what it kept of them, this one keeps too.
    known = len(usual.kept) if usual.budget == budget and budget else None
    if known is not None and known < first_event:  # not even every profile entry fitted: nor here
        count, text = known, usual.text
    elif known is not None:
        count, text = _fit(user_id, items, budget, shown, first_event, usual.text if known == first_event else None)
    else:
        count, text = _fit(user_id, items, budget, shown)
    kept = tuple(shown(items[:count]))
    block = UserContext(user_id, text, budget, kept, tuple(items[count:]))
    order = sorted(range(max(0, count - first_event)), key=lambda i: ranks[i])
    return RecallBlock(block, found.words, tuple(picked[i] for i in order))


def _fit(user_id: str, items: list[ContextItem], budget: int, shown, fits: int = 0,
         fits_text: str | None = "") -> tuple[int, str]:
    """How many items (in priority order) fit in `budget` (0: all), and their text as shown.
    The first `fits` items are known to fit; `fits_text` is their text when known (else None)."""
    full = render_items(user_id, shown(items))
    if not budget or len(full) <= budget:
        return len(items), full
    # Rendered length grows with every item kept, so the largest fitting prefix is found by bisection.
    low, high, best = fits, len(items) - 2, fits_text
    while low <= high:
        mid = (low + high) // 2
        text = render_items(user_id, shown(items[:mid + 1]))
        if len(text) <= budget:
            low, best = mid + 1, text
        else:
            high = mid - 1
    return low, best if best is not None else render_items(user_id, shown(items[:low]))
