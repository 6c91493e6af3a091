"""What a bot host gets as context from a KiraOS plugin 3.x tree: the plugin's own injection
(storage/tree/injection.py). `TreeContext` stands where context/builder.ContextBuilder stands for a
database (the same calls of the API, MCP and the command line): a user's block is what the plugin
injects for the message (`query`), its profile text alone without one. Nothing is cached: the
plugin's writes are seen on the next request. Its memory tools are tools/tree_tools.py.
"""
from __future__ import annotations

from typing import Any, Callable

from kiraos_desktop.core.context.format import ContextItem, ContextResult, UserContext, join_texts, unique_ids
from kiraos_desktop.core.memory.records import NotFoundError, check_user_id
from kiraos_desktop.core.storage.tree.layout import EntityRef
from kiraos_desktop.core.storage.tree.store import TreeMemoryStore

_CUT = ContextItem("injection", "", {})  # what a block cut to its budget left out, as the API counts it


def fit_lines(text: str, budget: int) -> tuple[str, bool]:
    """`text` cut to at most `budget` characters at a line's end (0: no limit); whether it was cut."""
    if budget <= 0 or len(text) <= budget:
        return text, False
    kept = text[:budget]
    end = kept.rfind("\n")
    return (kept[:end] if end > 0 else kept).rstrip(), True


class TreeContext:
    """The context blocks of a 3.x tree's users (see the module's docstring)."""

    def __init__(self, store: TreeMemoryStore, settings_getter: Callable[[], Any]) -> None:
        self._store = store
        self._settings = settings_getter

    def invalidate(self) -> None:
        """Nothing cached."""

    def cache_bytes(self) -> int:
        return 0

    def events_limit(self) -> int:
        return self._settings().max_events_per_user

    def injection_text(self, user_id: str, query: str | None) -> str:
        """What the plugin injects for a message from this user ("": a user the tree does not hold)."""
        check_user_id(user_id)
        try:
            return self._store.tree.injection(EntityRef("user", user_id), query or "").text
        except NotFoundError:
            return ""

    def user_block(self, user_id: str, max_events: int | None = None, max_chars: int | None = None,
                   query: str | None = None) -> UserContext:
        budget = self._settings().max_context_chars if max_chars is None else max_chars
        text, cut = fit_lines(self.injection_text(user_id, query), budget)
        return UserContext(user_id, text, budget, (), (_CUT,) if cut else ())

    def fast_block(self, user_id: str, max_chars: int | None = None, query: str | None = None) -> tuple:
        return self.user_block(user_id, max_chars=max_chars, query=query), False

    def cached_recall_block(self, user_id: str, max_chars: int | None = None, query: str | None = None,
                            read_small: bool = False) -> None:
        return None  # every block reads the tree: never on an event loop

    def peek_cached(self, user_id: str, max_events: int | None = None, max_chars: int | None = None,
                    query: str | None = None) -> None:
        return None

    def peek(self, user_id: str, max_events: int | None = None, max_chars: int | None = None) -> None:
        return None

    def build(self, user_ids: list[str], max_chars: int | None = None, max_events: int | None = None,
              query: str | None = None) -> ContextResult:
        user_ids = unique_ids(user_ids)
        blocks = [self.user_block(uid, max_chars=max_chars, query=query) for uid in user_ids]
        return ContextResult(join_texts(b.text for b in blocks), list(user_ids), blocks)

    def build_cached(self, user_ids: list[str], max_chars: int | None = None,
                     max_events: int | None = None) -> None:
        return None

    def block_text(self, user_id: str, max_events: int) -> str:
        return self.user_block(user_id).text
