"""The memory block's text: sanitising, the items of a block, rendering and fitting them to a budget."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from kiraos_desktop.core.memory.records import CATEGORIES, EventEntry, ProfileEntry
from kiraos_desktop.core.templates import render_hot

# Control characters (C0, DEL, C1) and the Unicode line and paragraph separators become spaces, like
# CR and LF: none of them may end a line of the block or hide in it (NUL, ESC sequences, U+0085).
_CONTROLS = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)]
_SANITIZE = str.maketrans({"<": "＜", ">": "＞", **{c: " " for c in _CONTROLS}})
_NEEDS_SANITIZING = re.compile("[<>\x00-\x1f\x7f-\x9f\u2028\u2029]").search


def sanitize(text: object) -> str:
    """Keep stored text from breaking out of the block: no tags, no line breaks, no control characters."""
    text = str(text)
    # translate() looks every character up in the table: a search first is several times faster
    # on the usual text, which needs nothing replaced.
    return text.translate(_SANITIZE) if _NEEDS_SANITIZING(text) else text


def confidence_mark(confidence: float) -> str:
    if confidence >= 0.8:
        return "✓"
    if confidence >= 0.5:
        return "?"
    return "~"


class ContextItem(NamedTuple):
    """One line's entry of the block. A named tuple: blocks are made of them on every cache miss
    (a frozen dataclass cost several times more to create)."""

    kind: str  # a category name or "events"
    label: str  # what the item says, for people (e.g. "昵称=小明" or "2025-03-01 完成半马")
    payload: dict


@dataclass(frozen=True)
class UserContext:
    user_id: str
    text: str
    budget: int  # 0 = unlimited
    kept: tuple[ContextItem, ...]
    dropped: tuple[ContextItem, ...]

    @property
    def truncated(self) -> bool:
        return bool(self.dropped)


@dataclass(frozen=True)
class ContextResult:
    text: str
    users: list[str]
    per_user: list[UserContext] = field(default_factory=list)

    @property
    def truncated(self) -> bool:
        return any(u.truncated for u in self.per_user)


def context_items(profiles: list[ProfileEntry], events: list[EventEntry]) -> list[ContextItem]:
    """All items in priority order: basic, preference, social, other (then unknown), then events."""
    rank = {name: i for i, name in enumerate(CATEGORIES)}
    ordered = sorted(profiles, key=lambda p: rank.get(p.category, len(rank)))  # stable: keeps in-category order
    items = [
        ContextItem(p.category, f"{p.key}={p.value}",
                    {"key": sanitize(p.key), "value": sanitize(p.value), "mark": confidence_mark(p.confidence)})
        for p in ordered
    ]
    for e in events:
        date = (e.created_at or "")[:10]
        items.append(ContextItem("events", f"{date} {e.summary}", {"date": date, "summary": sanitize(e.summary)}))
    return items


def render_items(user_id: str, items) -> str:
    """The block text of `items` as given (in the order shown), without a budget."""
    # The template reads sections and payloads by subscript (Jinja2 tries getattr before [] for
    # `e.key`), and renders without a copy of the environment's globals (render_hot).
    sections: list[dict] = []
    for item in items:
        if not sections or sections[-1]["label"] != item.kind:
            sections.append({"label": item.kind, "entries": []})
        sections[-1]["entries"].append(item.payload)
    return render_hot("context.j2", user_id=sanitize(user_id), sections=sections)


def render_user_block(user_id: str, profiles: list[ProfileEntry], events: list[EventEntry],
                      max_chars: int) -> UserContext:
    """Keep items in priority order; the first item that does not fit ends the block (never cut)."""
    return fit_items(user_id, tuple(context_items(profiles, events)), max_chars)


def fit_items(user_id: str, items: tuple[ContextItem, ...], max_chars: int,
              known: UserContext | None = None) -> UserContext:
    """The block of `items` within `max_chars` (0: all of them). `known`, the block of the same items
    under another budget, narrows the search: a larger budget keeps at least what it kept, and
    when it dropped an item, a budget smaller than its own keeps no more."""
    count = len(items)
    if not max_chars:
        text = known.text if known is not None and not known.dropped else render_items(user_id, items)
        return UserContext(user_id, text, 0, items, ())
    low, high, best = 0, count - 1, ""  # the answer keeps from `low` to `high + 1` items; `best` keeps `low`
    if known is not None:
        kept = len(known.kept)
        if len(known.text) > max_chars:
            high = kept - 1
        else:
            low, best = kept, known.text
            if kept == count or (known.budget and max_chars < known.budget):
                return UserContext(user_id, best, max_chars, items[:kept], items[kept:])
    elif count:
        # The lengths of the prefixes (prefix_lengths(): the template's arithmetic, which tests hold to
        # it) say how many items fit: the template renders once, and its text confirms the count.
        lengths = prefix_lengths(sanitize(user_id), [(i.kind, i.label, tuple(i.payload.items())) for i in items],
                                 max_chars)
        kept = len(lengths)
        text = render_items(user_id, items[:max(kept, 1)])
        if (len(text) == lengths[-1]) if kept else len(text) > max_chars:
            return UserContext(user_id, text if kept else "", max_chars, items[:kept], items[kept:])
        high = count - 1  # the template says otherwise: find the count by rendering
    # Rendered length grows with every item kept, so the largest fitting prefix is found by bisection.
    while low <= high:
        mid = (low + high) // 2
        text = render_items(user_id, items[:mid + 1])
        if len(text) <= max_chars:
            low, best = mid + 1, text
        else:
            high = mid - 1
    return UserContext(user_id, best, max_chars, items[:low], items[low:])


def unique_ids(user_ids) -> list[str]:
    """The users in the order given, each once: a user named twice still gets one block."""
    return list(dict.fromkeys(user_ids)) if len(user_ids) > 1 else list(user_ids)


def join_texts(texts) -> str:
    """Several users' blocks in one text: one block per user, empty blocks left out."""
    return "\n".join(text for text in texts if text)


def _joined(user_ids: list[str], blocks: list[UserContext]) -> ContextResult:
    return ContextResult(join_texts(b.text for b in blocks), list(user_ids), blocks)


# ---- the block's text without the template, for blocks made on every request ------------------
# A block for a new message is made on each request (a bot's messages are seldom asked twice), and
# rendering context.j2 cost more than everything else that takes. These give the text render_items()
# gives, byte for byte (tests compare them over varied data), from compact items: (kind, label,
# payload pairs) in the order of the payload dicts (date, summary) or (key, value, mark).

#: Between the entries of a line.
SEPARATOR = " | "
#: An event's entry: its date and summary (a bound method: map() calls it without a Python frame).
event_entry = "{} {}".format


def section_line(user_id: str, kind: str, entries) -> str:
    """One line of the block: a section's entries (texts)."""
    return f"[{user_id}:{kind}] " + SEPARATOR.join(entries)


def head_length(user_id: str, kind: str) -> int:
    """The length of a line's start, before its first entry (section_line())."""
    return len(user_id) + len(kind) + 4


def events_line(user_id: str, dates, summaries) -> str:
    """The events' line of the block, of their dates and (sanitised) summaries in the order shown."""
    return section_line(user_id, "events", map(event_entry, dates, summaries))


def entry_text(kind: str, pairs: tuple) -> str:
    """One entry of a line of the block, as context.j2 writes it."""
    if kind == "events":
        return event_entry(pairs[0][1], pairs[1][1])
    return f"{pairs[0][1]}={pairs[1][1]}({pairs[2][1]})"


def entry_length(kind: str, pairs: tuple) -> int:
    if kind == "events":
        return len(pairs[0][1]) + len(pairs[1][1]) + 1
    return len(pairs[0][1]) + len(pairs[1][1]) + len(pairs[2][1]) + 3


def join_items(user_id: str, items) -> str:
    """render_items() of compact items, in the order given; `user_id` sanitised."""
    lines = []
    kind = None
    entries: list[str] = []
    for item_kind, _, pairs in items:
        if item_kind != kind:
            if entries:
                lines.append(section_line(user_id, kind, entries))
            kind, entries = item_kind, []
        entries.append(entry_text(kind, pairs))
    if entries:
        lines.append(section_line(user_id, kind, entries))
    return "\n".join(lines)


def prefix_lengths(user_id: str, items, budget: int) -> list[int]:
    """The text's length with the first 1, 2, ... of `items` (priority order; a section per run of one
    kind), as long as it stays within `budget` (0: all): the block keeps that many. The lengths do not
    depend on the order the events are shown in (one line holds them all)."""
    lengths = []
    length, kind = 0, None
    for item_kind, _, pairs in items:
        if item_kind == kind:
            length += len(SEPARATOR) + entry_length(kind, pairs)
        else:
            length += (1 if kind is not None else 0) + head_length(user_id, item_kind) + entry_length(item_kind, pairs)
            kind = item_kind
        if budget and length > budget:
            break
        lengths.append(length)
    return lengths
