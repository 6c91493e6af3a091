"""GET /v1/context answered below the router from the per-user cache (the bot's hot path).

Only the plain case is handled here: a well-formed query of user_id (and max_chars, query). A plain
block that is not cached is built right here, on the event loop: a few indexed queries cost less than
handing the work to a thread and back while the loop is busy (writes of memory_update run on it too).
A block for a message (`query`) is made here too when the cache holds what it needs (the user's plain
block and recall window, no older events to read), or the user's window is small enough to read and
segment here (context/builder.LOOP_WINDOW_CHARS): scoring is bounded (recall/text.MAX_SCORED_CHARS,
a couple of milliseconds at worst). Otherwise it is built on a thread by `read` and awaited, the
blocks of every such user of the request in one trip. When the store says its work
may not run on the loop (`inline_ok` False: PostgreSQL, where every read is a round trip), plain
blocks are built on a thread too.
Anything else goes through the regular route, which gives the same reply and produces the errors.
"""
from __future__ import annotations

from collections import OrderedDict
from json.encoder import encode_basestring as _string
from urllib.parse import unquote_plus

from kiraos_desktop.api.asgi_types import FastPathOutcome, Receive, Scope, Send
from kiraos_desktop.api.errors import send_json_body
from kiraos_desktop.api.schemas import MAX_CHARS_LIMIT, MAX_USERS_PER_REQUEST
from kiraos_desktop.core.context.builder import join_texts, unique_ids
from kiraos_desktop.core.memory.records import user_id_ok

CONTEXT_PATH = "/v1/context"
#: The bound of the kept replies, in bytes: some 10,000 users' blocks of the default budget.
REPLY_CACHE_BYTES = 32 * 1024 * 1024
_ENTRY_OVERHEAD = 160  # the dict slot, the tuple, the stamp and the objects' headers, roughly
_MAX_CHARS_DIGITS = len(str(MAX_CHARS_LIMIT))  # longer texts (leading zeros too) go to the route


def parse_context_query(raw: bytes) -> tuple[tuple[str, ...], int | None, str | None] | None:
    """(user_ids, max_chars, query) of a plain, valid query string; None for anything the route must judge."""
    if not raw:
        return None
    user_ids: list[str] = []
    max_chars = None
    query = None
    for part in raw.split(b"&"):
        name, eq, value = part.partition(b"=")
        if not eq:
            return None
        try:
            text = _decoded(value) if (b"%" in value or b"+" in value) else value.decode("ascii")
        except UnicodeError:
            return None
        if name == b"user_id":
            if not user_id_ok(text):
                return None
            user_ids.append(text)
        elif name == b"max_chars" and max_chars is None and text.isascii() and text.isdigit() \
                and len(text) <= _MAX_CHARS_DIGITS:
            max_chars = int(text)
            if max_chars > MAX_CHARS_LIMIT:
                return None
        elif name == b"query" and query is None:
            query = text
        else:
            return None
    if not user_ids or len(user_ids) > MAX_USERS_PER_REQUEST:
        return None
    return tuple(user_ids if len(user_ids) == 1 else unique_ids(user_ids)), max_chars, query


def _make_blocks(build, user_ids: list[str], max_chars: int | None, query: str | None) -> list:
    """The blocks of `user_ids`, made one after the other (on a thread)."""
    return [build(uid, max_chars=max_chars, query=query)[0] for uid in user_ids]


def _decoded(value: bytes) -> str:
    """unquote_plus(value.decode("ascii"), errors="strict"), in a few C calls for the usual value (a
    message is percent-encoded UTF-8: the standard function took ~8 us, a tenth of a block's making)."""
    if value.isascii() and b"\\" not in value:
        try:  # each %XX as \xXX: one byte each (latin-1), then the bytes read as UTF-8
            return value.replace(b"+", b" ").replace(b"%", b"\\x").decode("unicode_escape").encode(
                "latin-1").decode("utf-8")
        except UnicodeError:  # a % not followed by two hex digits, or not UTF-8: as the standard function reads it
            pass
    return unquote_plus(value.decode("ascii"), errors="strict")


class ContextFastPath:
    """Keeps the encoded reply of each single user's last cached block (plain or for a message),
    keyed on the block's stamp.

    Only replies made from cached blocks (the configured budget) are kept, at most `max_bytes` of
    them, the oldest going first: a client varying max_chars or the users it asks for together
    adds nothing. Entries hold no objects the garbage collector tracks (a full collection would
    stall every request in flight).
    """

    def __init__(self, context_builder, read, max_bytes: int = REPLY_CACHE_BYTES, inline_plain: bool = True):
        """`read(fn, *args, **kwargs)`: awaits fn run off the loop; `inline_plain`: plain blocks are
        built on the loop (the store's `inline_ok`)."""
        self._context = context_builder
        self._read = read
        self._inline_plain = inline_plain
        self._replies: OrderedDict[str, tuple[int, bytes]] = OrderedDict()  # user id -> (stamp, body)
        self._bytes = 0
        self._max_bytes = max_bytes

    def cache_bytes(self) -> int:
        return self._bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> FastPathOutcome:
        """Send the reply and return its status, or return `receive` to let the router answer."""
        if scope["method"] != "GET":
            return receive
        parsed = parse_context_query(scope["query_string"])
        if parsed is None:
            return receive
        user_ids, max_chars, query = parsed
        build = self._context.fast_block
        blocks = []
        cached = True
        missing = []  # positions of the blocks to make off the loop
        read_small = self._inline_plain
        for uid in user_ids:
            # The plain block, or the one for the message in `query` (cached like it, per message);
            # one not cached, or for another budget, is made now (and cached when it can be).
            if self._inline_plain and not query:
                block, hit = build(uid, max_chars=max_chars, query=query)
            else:  # cached ones answered here (a new message too, when the cache holds all it needs),
                # others made off the loop
                if query:  # a small window not cached yet is read here too (where plain blocks are),
                    # for one user of the request: the loop's share stays one window's worth
                    block, hit = self._context.cached_recall_block(
                        uid, max_chars=max_chars, query=query, read_small=read_small) or (None, False)
                    read_small = read_small and hit
                else:
                    block = self._context.peek_cached(uid, max_chars=max_chars)
                    hit = block is not None
                if block is None:
                    missing.append(len(blocks))
            cached = cached and hit
            blocks.append(block)
        if missing:  # all in one trip to a thread: a hundred users cost one hand-over, not a hundred
            made = await self._read(_make_blocks, build, [user_ids[n] for n in missing], max_chars, query)
            for n, block in zip(missing, made):
                blocks[n] = block
        if cached and len(blocks) == 1:
            known = self._replies.get(user_ids[0])
            if known is not None and known[0] == blocks[0].stamp:
                body = known[1]
            else:
                body = _encode(user_ids, blocks)
                self._remember(user_ids[0], blocks[0].stamp, body)
        else:
            body = _encode(user_ids, blocks)
        return await _send(send, body)

    def _remember(self, user_id: str, stamp: int, body: bytes) -> None:
        old = self._replies.pop(user_id, None)
        if old is not None:
            self._bytes -= _entry_bytes(user_id, old[1])
        self._replies[user_id] = (stamp, body)
        self._bytes += _entry_bytes(user_id, body)
        while self._bytes > self._max_bytes:
            uid, (_, evicted) = self._replies.popitem(last=False)
            self._bytes -= _entry_bytes(uid, evicted)


async def _send(send: Send, body: bytes) -> int:
    return await send_json_body(send, 200, body)


def _entry_bytes(user_id: str, body: bytes) -> int:
    return _ENTRY_OVERHEAD + len(user_id) + len(body)


def _encode(user_ids: tuple[str, ...], blocks: list) -> bytes:
    """dump_json({"context": ..., "users": [...], "truncated": ...}) of the blocks, byte for byte, without
    the encoder's generic walk over a dict (a block made for a new message is encoded on every request)."""
    text = blocks[0].text if len(blocks) == 1 else join_texts(b.text for b in blocks)
    truncated = any(b.truncated for b in blocks)
    return (f'{{"context":{_string(text)},"users":[{",".join(map(_string, user_ids))}],'
            f'"truncated":{"true" if truncated else "false"}}}').encode("utf-8")
