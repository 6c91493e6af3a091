"""The memory block for a message: the user's events relevant to it first, then the newest, same budget."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Callable

from kiraos_desktop.core.context import UserContext, context_items, fit_items, render_items
from kiraos_desktop.core.recall import Recall, RecalledEvent, pick_events
from kiraos_desktop.core.timeutil import to_iso

if TYPE_CHECKING:
    from kiraos_desktop.core.store import MemoryStore


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


def recall_block(store: "MemoryStore", recall: Recall, user_id: str, query: str, max_events: int, budget: int,
                 plain: Callable[[], UserContext]) -> RecallBlock:
    """The block for `query`; `plain()` (today's block) when no event matches it."""
    now = datetime.now()
    words, relevant = recall.relevant_events(user_id, query, now) if max_events > 0 else ((), [])
    if not relevant:
        return RecallBlock(plain(), words, ())
    profiles, newest = store.context_rows(user_id, max_events, to_iso(now))
    picked = pick_events(relevant, newest, max_events)
    ranks = _newest_first(picked)
    # Items are kept in priority order (every profile entry, then the picked events) up to the
    # budget; the rendered length does not depend on the order, so the kept ones are then shown
    # in the block's usual order.
    items = tuple(context_items(profiles, [r.event for r in picked]))
    fitted = fit_items(user_id, items, budget)
    kept_events = max(0, len(fitted.kept) - len(profiles))
    order = sorted(range(kept_events), key=lambda i: ranks[i])
    first_event = len(items) - len(picked)
    kept = fitted.kept[:len(fitted.kept) - kept_events] + tuple(items[first_event + i] for i in order)
    block = UserContext(user_id, render_items(user_id, kept), budget, kept, fitted.dropped)
    return RecallBlock(block, words, tuple(picked[i] for i in order))
