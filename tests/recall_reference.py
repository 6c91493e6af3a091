"""The block for a message made the long way (no cache, no window, the template rendered to fit): what the
context cache's fast assembly must equal."""
from __future__ import annotations

from kiraos_desktop.core.context.format import UserContext, context_items, render_items, render_user_block
from kiraos_desktop.core.recall.ranking import pick_events, scoring_window, score_events


def reference(user_id, profiles, events, words, max_events, budget, now) -> tuple[UserContext, list[int]]:
    """The block for `words` at the time `now` the long way: every event (newest first) scored, the
    items fitted by rendering context.j2; and the ids of the events it shows, in the order shown."""
    relevant = score_events(words, events, len(events), scoring_window(now)[0])
    if not relevant or max_events <= 0:
        return render_user_block(user_id, profiles, events[:max(0, max_events)], budget), []
    picked = pick_events(relevant, events[:max_events], max_events)
    shown_order = sorted(range(len(picked)), key=lambda i: (picked[i].event.created_at or "", picked[i].event.id),
                         reverse=True)
    items = context_items(profiles, [r.event for r in picked])
    first_event = len(items) - len(picked)

    def shown(prefix):
        kept_events = [i for i in shown_order if i < len(prefix) - first_event]
        return list(prefix[:min(len(prefix), first_event)]) + [items[first_event + i] for i in kept_events]

    low, high = 0, len(items)
    while low < high:  # the largest prefix whose rendered text fits
        mid = (low + high + 1) // 2
        if not budget or len(render_items(user_id, shown(items[:mid]))) <= budget:
            low = mid
        else:
            high = mid - 1
    kept = shown(items[:low])
    shown_ids = [picked[i].event.id for i in shown_order if i < low - first_event]
    return UserContext(user_id, render_items(user_id, kept), budget, tuple(kept), tuple(items[low:])), shown_ids
