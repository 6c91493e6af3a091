"""Builds the memory block injected into the system prompt (context_format.py has its text), with a cache."""
from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from datetime import datetime
from typing import TYPE_CHECKING, Callable

from kiraos_desktop.core.memory.changes import ChangeEvent
from kiraos_desktop.core.context.format import (  # noqa: F401 (the block's format, re-exported for callers)
    ContextItem,
    ContextResult,
    UserContext,
    _joined,
    confidence_mark,
    context_items,
    fit_items,
    join_texts,
    render_items,
    render_user_block,
    sanitize,
    unique_ids,
)
from kiraos_desktop.core.context.entries import CachedBlock, CachedRecall, exact, recency_step, stamps
from kiraos_desktop.core.context.recall import MadeBlock, RecallBlock, make_block, made_items, recalled_events
from kiraos_desktop.core.recall.ranking import scoring_window
from kiraos_desktop.core.context.recall_window import WINDOW, RecallWindow
from kiraos_desktop.core.recall.text import query_terms
from kiraos_desktop.core.storage.rows import EVENT_ROW_SUMMARY
from kiraos_desktop.core.timeutil import now_iso, parse_timestamp

if TYPE_CHECKING:
    from kiraos_desktop.core.storage.protocol import MemoryReader

#: The context cache's bound, in (estimated) bytes: some 20,000 users of a dozen profiles and ten events.
CACHE_BYTES = 256 * 1024 * 1024
#: Users whose change counter is kept; past it the counters start over (see ContextBuilder).
_MAX_COUNTED_USERS = 20_000
#: Blocks made for messages kept per user (the newest): a bot asks for the block of its current
#: message, sometimes twice (context, then inject), seldom for older ones.
MAX_RECALLS_PER_USER = 4


#: The context cache's entries are plain tuples whose last field is their size (CachedBlock, CachedRecall,
#: RecallWindow).
_SIZE = -1
#: Where a user's RecallWindow is kept among the user's blocks.
_WINDOW_KEY = "recall window"
_RECALL_OVERHEAD = 256  # a CachedRecall's tuple, stamp and valid_until, roughly
_ASKED_OVERHEAD = 128  # the asked-once entry's tuples, roughly
_ASKED_HASH_BYTES = 40  # and each hash in it (an int and its slot)
#: Where a user's messages asked for once are kept among the user's blocks: a block made for a message
#: is cached from the second time it is asked for. A bot sends a new message nearly every turn, and
#: caching each block at first sight held ~1.5 KB per user that was mostly never read (60 MB at
#: 10,000 users), pushing users' plain blocks and windows out of the cache. Kept per user (the newest
#: MAX_RECALLS_PER_USER, as hashes of the number of events and the words: a collision only caches a
#: block early), so a message asked again after every other user's is still known, and they go with
#: the user's blocks.
_ASKED_KEY = "asked once"


#: A block for a message whose user's plain block or recall window is not cached is made on the event
#: loop (cached_recall_block(read_small=True)) when the window's texts come to at most this many
#: characters (segmenting that much Chinese takes some 4 ms): handing a user's first block for a
#: message to a thread cost the API about four times the work itself (bench/api_bench.py's query part).
LOOP_WINDOW_CHARS = 20_000
_READ_ALL, _READ_SMALL, _READ_NONE = "all", "small", "none"  # what _recall_entry() may read

#: What a user's cached block is kept under: the number of events (the plain block), or that and
#: a message's words (the block for a message: recall_block()); the user's RecallWindow under _WINDOW_KEY.
BlockKey = int | tuple[int, tuple[str, ...]] | str


class ContextBuilder:
    """Memory blocks for one or more users, cached per user until a change event drops them.

    Only blocks under the configured budget (max_context_chars) are cached: per user, one per
    number of events (a setting, or a constant of the caller, never a client's choice), and the
    blocks made for the user's last MAX_RECALLS_PER_USER messages asked for more than once (keyed on
    the message's words, exact until the recency step of their scores ends). A block under another
    budget is made from the cached items on each request, without the database. The cache holds at
    most `cache_bytes` (estimated); past it the users cached first go first.
    """

    def __init__(self, store: "MemoryReader", settings_getter: Callable[[], object], cache_bytes: int = CACHE_BYTES):
        self._store = store
        self._settings = settings_getter
        self._lock = threading.Lock()
        # user id -> {BlockKey: CachedBlock as a plain tuple}, oldest user first: a change drops one
        # user in O(1). Plain tuples (and then the dicts holding them) stop being tracked by the
        # garbage collector after a few collections (one nesting level each); a named tuple never
        # does, and 10,000 of them made every full collection (a stall of every request in flight)
        # take tens of milliseconds longer.
        self._cache: OrderedDict[str, dict[BlockKey, tuple]] = OrderedDict()
        self._bytes = 0
        self._max_bytes = cache_bytes
        # A block read from the database is cached only if nothing changed for its user meanwhile:
        # `_epoch` moves on changes of all users, `_changes[user]` on changes of that user. Past
        # _MAX_COUNTED_USERS counters they start over and the epoch moves (reads then in flight
        # are not cached: harmless), so the counters of users written once do not pile up.
        self._epoch = 0
        self._changes: dict[str, int] = {}
        store.changes.subscribe(self._on_store_changed)

    def _on_store_changed(self, event: ChangeEvent) -> None:
        with self._lock:
            if event.user_id is None:
                self._epoch += 1
                self._cache.clear()
                self._bytes = 0
                self._changes.clear()
            else:
                if len(self._changes) >= _MAX_COUNTED_USERS and event.user_id not in self._changes:
                    self._epoch += 1
                    self._changes.clear()
                self._changes[event.user_id] = self._changes.get(event.user_id, 0) + 1
                self._drop(event.user_id)

    def _drop(self, user_id: str) -> None:
        blocks = self._cache.pop(user_id, None)
        if blocks:
            self._bytes -= sum(b[_SIZE] for b in blocks.values())

    def _store_block(self, user_id: str, key: BlockKey, cached: tuple) -> None:
        """Keep `cached` (a CachedBlock or RecallWindow, kept as a plain tuple) for the user under `key`."""
        blocks = self._cache.get(user_id)
        if blocks is None:
            blocks = self._cache[user_id] = {}
        old = blocks.pop(key, None)  # popped: a stored block becomes the user's newest
        blocks[key] = cached = tuple(cached)
        self._bytes += cached[_SIZE] - (old[_SIZE] if old is not None else 0)
        if type(key) is tuple:
            recalls = [k for k in blocks if type(k) is tuple]
            for gone in recalls[:-MAX_RECALLS_PER_USER]:
                self._bytes -= blocks.pop(gone)[_SIZE]
        while self._bytes > self._max_bytes and self._cache:
            _, evicted = self._cache.popitem(last=False)
            self._bytes -= sum(b[_SIZE] for b in evicted.values())

    def cache_bytes(self) -> int:
        """The estimated bytes the cache holds now."""
        with self._lock:
            return self._bytes

    def invalidate(self) -> None:
        self._on_store_changed(ChangeEvent(None, "settings", "gui"))

    def events_limit(self) -> int:
        """How many of a user's newest events a block carries (max_events_per_user)."""
        return self._settings().max_events_per_user

    def _variant(self, max_events: int | None, max_chars: int | None) -> tuple[int, int, int]:
        settings = self._settings()
        events = settings.max_events_per_user if max_events is None else max_events
        default = settings.max_context_chars
        return events, default, default if max_chars is None else max_chars

    def _hit(self, user_id: str, key: BlockKey, budget: int):
        """The CachedBlock (plain) or CachedRecall (for a message: `key` a tuple) under `key`, if still exact."""
        with self._lock:
            blocks = self._cache.get(user_id)
            raw = blocks.get(key) if blocks else None
        return exact(raw, CachedRecall if type(key) is tuple else CachedBlock, budget)

    def peek_cached(self, user_id: str, max_events: int | None = None, max_chars: int | None = None,
                    query: str | None = None) -> CachedBlock | CachedRecall | None:
        """The cached block (compact; for `query` when given) when it is still exact, else None; never
        touches the database. Only the configured budget is cached: for another `max_chars` this is None."""
        events, default, budget = self._variant(max_events, max_chars)
        if budget != default:
            return None
        return self._hit(user_id, _block_key(events, query), budget)

    def peek(self, user_id: str, max_events: int | None = None, max_chars: int | None = None) -> UserContext | None:
        """The cached block when it is still exact, else None; never touches the database."""
        hit = self.peek_cached(user_id, max_events, max_chars)
        return hit.block(user_id) if hit is not None else None

    def user_block(self, user_id: str, max_events: int | None = None, max_chars: int | None = None,
                   query: str | None = None) -> UserContext:
        """The user's block; with a `query` (the current message) the events relevant to it come first."""
        words = query_terms(query) if query else ()
        if words:
            return self._recall_user_block(user_id, words, max_events, max_chars)
        events, default, budget = self._variant(max_events, max_chars)
        hit = self._hit(user_id, events, default)
        if hit is not None:
            block = hit.block(user_id)
        else:
            block = self._read(user_id, events, default)[0]
        if budget == default:
            return block
        return fit_items(user_id, block.kept + block.dropped, budget, known=block)

    def fast_block(self, user_id: str, max_chars: int | None = None, query: str | None = None) -> tuple:
        """(a block with user_block()'s text and truncation, whether it was cached): what the API replies.
        Under the configured budget the compact block (CachedBlock or CachedRecall), cached or made."""
        words = query_terms(query) if query else ()
        events, default, budget = self._variant(None, max_chars)
        if budget != default:
            return self.user_block(user_id, max_chars=max_chars, query=query), False
        if words:
            return self._recall_entry(user_id, words, events, default)
        hit = self._hit(user_id, events, default)
        if hit is not None:
            return hit, True
        return self._read(user_id, events, default)[1], False

    def cached_recall_block(self, user_id: str, max_chars: int | None = None, query: str | None = None,
                            read_small: bool = False) -> tuple[CachedRecall, bool] | None:
        """(the block for a message under the configured budget, whether it was cached) when it is cached
        or can be made from what the cache holds (the plain block, and a window that needs no older
        events), else None: bounded work (recall/text.MAX_SCORED_CHARS), so an event loop may run it.
        Without `read_small` no database read; with it, a plain block or window not cached is read
        too when the window's texts come to at most LOOP_WINDOW_CHARS (a few indexed reads)."""
        words = query_terms(query) if query else ()
        events, default, budget = self._variant(None, max_chars)
        if not words or budget != default or events <= 0:
            return None
        return self._recall_entry(user_id, words, events, default, read=_READ_SMALL if read_small else _READ_NONE)

    def _read(self, user_id: str, events: int, budget: int) -> tuple[UserContext, CachedBlock]:
        """The block under the configured budget from the database, cached unless its user changed meanwhile."""
        now = now_iso()
        with self._lock:
            seen = (self._epoch, self._changes.get(user_id, 0))
        profiles, event_rows = self._store.context_rows(user_id, events, now)
        block = render_user_block(user_id, profiles, event_rows, budget)
        # The block is exact until the earliest expiry among the entries it read.
        expiries = [parse_timestamp(p.expires_at) for p in profiles if p.expires_at]
        cached = CachedBlock.of(block, min(expiries).isoformat() if expiries else None)
        with self._lock:
            if seen == (self._epoch, self._changes.get(user_id, 0)):
                self._store_block(user_id, events, cached)
        return block, cached

    def _plain(self, user_id: str, events: int, default: int, raw: tuple | None = None,
               now: datetime | None = None) -> CachedBlock:
        """The plain block under the configured budget, compact: cached (`raw`, its cache entry when
        looked up already at `now`) or read."""
        hit = self._hit(user_id, events, default) if raw is None else exact(raw, CachedBlock, default, now)
        return hit if hit is not None else self._read(user_id, events, default)[1]

    def _small_window(self, user_id: str, events: int, seen: tuple) -> RecallWindow | None:
        """The user's window read (not cached yet) when its texts come to at most LOOP_WINDOW_CHARS, else None."""
        limit = max(WINDOW, events)
        rows = self._store.newest_event_rows(user_id, limit + 1)
        if sum(len(row[EVENT_ROW_SUMMARY] or "") for row in rows[:limit]) > LOOP_WINDOW_CHARS:
            return None
        return self._window(user_id, events, None, seen, rows)

    def _window(self, user_id: str, events: int, raw: tuple | None = None, seen: tuple | None = None,
                rows: list | None = None) -> RecallWindow:
        """The user's newest events for recall (at least `events`): cached or read. `raw` and `seen`: the
        cache entry and the user's change count when looked up already; `rows`: the event rows when read."""
        limit = max(WINDOW, events)
        if seen is None:
            with self._lock:
                blocks = self._cache.get(user_id)
                raw = blocks.get(_WINDOW_KEY) if blocks else None
                seen = (self._epoch, self._changes.get(user_id, 0))
        if raw is not None and raw[0] == limit:
            return RecallWindow._make(raw)
        window = RecallWindow.of(rows if rows is not None else self._store.newest_event_rows(user_id, limit + 1), limit)
        with self._lock:
            if seen == (self._epoch, self._changes.get(user_id, 0)):
                self._store_block(user_id, _WINDOW_KEY, window)
        return window

    def _make(self, user_id: str, words: tuple[str, ...], events: int, budget: int, plain: CachedBlock,
              moment: datetime, window: RecallWindow | None = None) -> tuple[RecallWindow, MadeBlock | None]:
        """The block for a message's words from the cached plain block and window (None: nothing matched);
        `moment`: where ages are counted from (recall.scoring_window())."""
        if events <= 0:
            return None, None
        window = window or self._window(user_id, events)
        older, total = [], window.count()
        if window.needs_older():  # those the index finds (the window's were searched here)
            _, found, total = self._store.recall_rows(user_id, words, 0, scan=False)
            held = set(window.event_ids())
            older = [event for event in found if event.id not in held]
        return window, make_block(user_id, words, plain, window, older, total, events, budget, moment)

    def _recall_entry(self, user_id: str, words: tuple[str, ...], events: int, default: int,
                      read: str = _READ_ALL) -> tuple | None:
        """(the block for a message's words under the configured budget, whether it was cached): cached,
        or made from the user's cached entries, all looked up at once (a new message on every request
        is what a bot sends). `read` _READ_NONE: None when that would read the database (the plain
        block or the window not cached, or older events needed); _READ_SMALL: reads them when the
        window is small (_small_window()), but not older events."""
        with self._lock:
            blocks = self._cache.get(user_id)
            seen = (self._epoch, self._changes.get(user_id, 0))
            if blocks:
                raw, plain, window = blocks.get((events, words)), blocks.get(events), blocks.get(_WINDOW_KEY)
            else:
                raw = plain = window = None
        now = datetime.now()
        hit = exact(raw, CachedRecall, default, now)
        if hit is not None:
            return hit, True
        if read == _READ_ALL:
            plain = self._plain(user_id, events, default, plain, now)
            window = self._window(user_id, events, window, seen) if events > 0 else None
        else:
            plain = exact(plain, CachedBlock, default, now)
            window = RecallWindow._make(window) if window is not None and window[0] == max(WINDOW, events) else None
            if read == _READ_SMALL and (plain is None or window is None):
                window = window or self._small_window(user_id, events, seen)
                if window is not None and plain is None:
                    plain = self._read(user_id, events, default)[1]
            if plain is None or window is None or window.needs_older():
                return None
        return self._recall_made(user_id, words, events, default, seen, plain, window, now)[0], False

    def _recall_cached(self, user_id: str, words: tuple[str, ...], events: int, default: int) -> CachedRecall:
        """The block for a message's words under the configured budget, cached (or made and cached)."""
        return self._recall_entry(user_id, words, events, default)[0]

    def _recall_made(self, user_id: str, words: tuple[str, ...], events: int, default: int,
                     seen: tuple | None = None, plain: CachedBlock | None = None, window: RecallWindow | None = None,
                     now: datetime | None = None
                     ) -> tuple[CachedRecall, MadeBlock | None, CachedBlock, RecallWindow | None]:
        """The block for a message's words under the configured budget made anew, and cached: (its cache
        entry, the block made or None when nothing matched, the plain block, the window). `seen`, `plain`
        and `window`: the user's change count, plain block and window, when looked up already (at `now`).

        Exact while the plain block it took its profile lines from is (no write of the user, no
        expiry) and the recency step its scores were made in lasts (recall.scoring_window)."""
        if seen is None:
            with self._lock:
                seen = (self._epoch, self._changes.get(user_id, 0))
        moment, step_end = recency_step(now or datetime.now())
        plain = plain or self._plain(user_id, events, default)
        window, made = self._make(user_id, words, events, default, plain, moment, window)
        if made is None:  # nothing matched: the plain block (its text shared, its stamp: the same reply)
            entry = CachedRecall(plain.text, default, plain.truncated, plain.valid_until, plain.stamp,
                                 _RECALL_OVERHEAD)
        else:
            until = step_end if plain.valid_until is None or step_end < plain.valid_until else plain.valid_until
            entry = CachedRecall(made.text, default, made.truncated, until, next(stamps),
                                 _RECALL_OVERHEAD + sys.getsizeof(made.text))
        with self._lock:
            if seen == (self._epoch, self._changes.get(user_id, 0)) and self._asked_before(user_id, (events, words)):
                self._store_block(user_id, (events, words), entry)
        return entry, made, plain, window

    def _asked_before(self, user_id: str, key: BlockKey) -> bool:
        """Whether the block for a message is asked for again (its block is then cached); remembers
        it otherwise, among the user's blocks (lock held)."""
        blocks = self._cache.get(user_id)
        if blocks is None:  # nothing of the user is cached (the cache is full of others)
            return False
        if key in blocks:  # cached, and made again (its recency step ended)
            return True
        asked = hash(key)
        entry = blocks.get(_ASKED_KEY)
        hashes = entry[0] if entry is not None else ()
        if asked in hashes:
            self._keep_asked(user_id, blocks, tuple(h for h in hashes if h != asked))
            return True
        self._keep_asked(user_id, blocks, (hashes + (asked,))[-MAX_RECALLS_PER_USER:])
        return False

    def _keep_asked(self, user_id: str, blocks: dict, hashes: tuple) -> None:
        if hashes:
            self._store_block(user_id, _ASKED_KEY, (hashes, _ASKED_OVERHEAD + _ASKED_HASH_BYTES * len(hashes)))
        elif _ASKED_KEY in blocks:
            self._bytes -= blocks.pop(_ASKED_KEY)[_SIZE]

    def recall_block(self, user_id: str, query: str, max_events: int | None = None,
                     max_chars: int | None = None, now: datetime | None = None) -> RecallBlock:
        """The block for a message, with why each event is in it (made anew: user_block() caches)."""
        events, default, budget = self._variant(max_events, max_chars)
        words = query_terms(query) if query else ()
        made = window = None
        if words:
            window, made = self._make(user_id, words, events, budget, self._plain(user_id, events, default),
                                      scoring_window(now)[0])
        if made is None:
            return RecallBlock(self.user_block(user_id, max_events=max_events, max_chars=max_chars), words, ())
        return RecallBlock(_made_context(user_id, budget, made, window), words,
                           recalled_events(user_id, window, made.shown))

    def _recall_user_block(self, user_id: str, words: tuple[str, ...], max_events: int | None,
                           max_chars: int | None) -> UserContext:
        """The block for a message (its words not empty), cached under the configured budget."""
        events, default, budget = self._variant(max_events, max_chars)
        if budget == default:
            _, made, plain, window = self._recall_made(user_id, words, events, default)
            if made is None:
                return plain.block(user_id)
        else:
            window, made = self._make(user_id, words, events, budget, self._plain(user_id, events, default),
                                      recency_step(datetime.now())[0])
            if made is None:
                return self.user_block(user_id, max_events=max_events, max_chars=max_chars)
        return _made_context(user_id, budget, made, window)

    def build(self, user_ids: list[str], max_chars: int | None = None, max_events: int | None = None,
              query: str | None = None) -> ContextResult:
        """One block per user (each with its own budget), joined by newlines; empty users add nothing."""
        user_ids = unique_ids(user_ids)
        blocks = [self.user_block(uid, max_events=max_events, max_chars=max_chars, query=query) for uid in user_ids]
        return _joined(user_ids, blocks)

    def build_cached(self, user_ids: list[str], max_chars: int | None = None,
                     max_events: int | None = None) -> ContextResult | None:
        """build() when every block is cached (no database access, cheap enough for an event loop), else None."""
        user_ids = unique_ids(user_ids)
        blocks = []
        for uid in user_ids:
            block = self.peek(uid, max_events=max_events, max_chars=max_chars)
            if block is None:
                return None
            blocks.append(block)
        return _joined(user_ids, blocks)

    def block_text(self, user_id: str, max_events: int) -> str:
        hit = self.peek_cached(user_id, max_events=max_events)
        return hit.text if hit is not None else self.user_block(user_id, max_events=max_events).text


def _made_context(user_id: str, budget: int, made: MadeBlock, window: RecallWindow) -> UserContext:
    items = tuple(ContextItem(kind, label, dict(payload)) for kind, label, payload in made_items(made, window))
    return UserContext(user_id, made.text, budget, items[:made.kept], items[made.kept:])


def _block_key(events: int, query: str | None) -> BlockKey:
    """Where a block is cached: the plain block under the number of events; the block for a message
    under that and the message's words (a message without words gets the plain block)."""
    words = query_terms(query) if query else ()
    return (events, words) if words else events
