"""GET /v1/context answered below the router from the per-user cache (the bot's hot path).

Only the plain case is handled here: a well-formed query of user_id (and max_chars). A block that
is not cached is built right here, on the event loop: two indexed queries cost less than handing
the work to a thread and back while the loop is busy (writes of memory_update run on it too).
Anything else goes through the regular route, which gives the same reply and produces the errors.
"""
from __future__ import annotations

from urllib.parse import unquote_plus

from kiraos_desktop.api.errors import dump_json
from kiraos_desktop.api.schemas import MAX_USERS_PER_REQUEST
from kiraos_desktop.api.routes_v1 import MAX_CHARS_LIMIT
from kiraos_desktop.core.context import join_texts
from kiraos_desktop.core.records import MAX_USER_ID_CHARS

CONTEXT_PATH = "/v1/context"
_MAX_REPLIES = 50_000
_JSON_TYPE = (b"content-type", b"application/json")


def parse_context_query(raw: bytes) -> tuple[tuple[str, ...], int | None] | None:
    """(user_ids, max_chars) of a plain, valid query string; None for anything the route must judge."""
    if not raw:
        return None
    user_ids: list[str] = []
    max_chars = None
    for part in raw.split(b"&"):
        name, eq, value = part.partition(b"=")
        if not eq:
            return None
        try:
            text = unquote_plus(value.decode("ascii"), errors="strict") if (b"%" in value or b"+" in value) \
                else value.decode("ascii")
        except UnicodeError:
            return None
        if name == b"user_id":
            if not text.strip() or len(text) > MAX_USER_ID_CHARS:
                return None
            user_ids.append(text)
        elif name == b"max_chars" and max_chars is None and text.isascii() and text.isdigit():
            max_chars = int(text)
            if max_chars > MAX_CHARS_LIMIT:
                return None
        else:
            return None
    if not user_ids or len(user_ids) > MAX_USERS_PER_REQUEST:
        return None
    return tuple(user_ids), max_chars


class ContextFastPath:
    """Keeps each encoded reply next to the cached blocks it was made from (compared by identity).

    Entries hold only a few objects per user: the context cache of many users must not give the
    garbage collector more to walk (a full collection would stall every request in flight).
    """

    def __init__(self, context_builder):
        self._context = context_builder
        self._replies: dict[tuple, tuple[tuple, bytes]] = {}

    async def __call__(self, scope, receive, send):
        """Send the reply and return its status, or return `receive` to let the router answer."""
        if scope["method"] != "GET":
            return receive
        parsed = parse_context_query(scope["query_string"])
        if parsed is None:
            return receive
        user_ids, max_chars = parsed
        peek = self._context.peek_cached
        blocks = []
        reusable = True
        for uid in user_ids:
            block = peek(uid, max_chars=max_chars)
            if block is None:
                built = self._context.user_block(uid, max_chars=max_chars)  # reads and caches it
                block = peek(uid, max_chars=max_chars)
                if block is None:  # changed meanwhile, or expiring: answer, but keep no reply
                    block, reusable = built, False
            blocks.append(block)
        cache_key = (user_ids, max_chars)
        known = self._replies.get(cache_key)
        if known is not None and all(a is b for a, b in zip(known[0], blocks)):
            body = known[1]
        else:
            body = dump_json({"context": join_texts(b.text for b in blocks), "users": list(user_ids),
                              "truncated": any(b.truncated for b in blocks)})
            if reusable:
                if len(self._replies) >= _MAX_REPLIES:
                    self._replies.clear()
                self._replies[cache_key] = (tuple(blocks), body)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", str(len(body)).encode("ascii")), _JSON_TYPE]})
        await send({"type": "http.response.body", "body": body})
        return 200
