"""What the API, MCP, the command line and the tool registry ask of a context source: ContextBuilder
(core/context/builder.py) on a database, TreeContext (core/context/tree.py) on a KiraOS 3.x
tree. The engine picks one for its store; no caller asks which."""
from __future__ import annotations

from typing import Any, Protocol

from kiraos_desktop.core.context.format import ContextResult, UserContext


class ContextSource(Protocol):
    def invalidate(self) -> None: ...

    def cache_bytes(self) -> int: ...

    def events_limit(self) -> int: ...

    def user_block(self, user_id: str, max_events: int | None = None, max_chars: int | None = None,
                   query: str | None = None) -> UserContext: ...

    def fast_block(self, user_id: str, max_chars: int | None = None, query: str | None = None) -> tuple:
        """(a block with .text and .truncated, whether it was cached)."""
        ...

    def cached_recall_block(self, user_id: str, max_chars: int | None = None, query: str | None = None,
                            read_small: bool = False) -> Any:
        """(the block for a message, cached or not) when it may be made on an event loop, else None."""
        ...

    def peek_cached(self, user_id: str, max_events: int | None = None, max_chars: int | None = None,
                    query: str | None = None) -> Any:
        """The cached block when still exact (no reading), else None."""
        ...

    def build(self, user_ids: list[str], max_chars: int | None = None, max_events: int | None = None,
              query: str | None = None) -> ContextResult: ...

    def build_cached(self, user_ids: list[str], max_chars: int | None = None,
                     max_events: int | None = None) -> ContextResult | None: ...

    def block_text(self, user_id: str, max_events: int) -> str: ...


class MemoryToolSet(Protocol):
    """memory_update, memory_query and memory_clear as the tool registry runs them (core/tools/memory_tools.py)."""

    def update(self, user_id: str, operations: list, actor: str = "tool") -> str: ...

    def update_result(self, user_id: str, operations: list, actor: str = "tool") -> tuple[str, bool]: ...

    def query(self, user_id: str, query: str | None = None) -> str: ...

    def clear(self, user_id: str, actor: str = "tool") -> str: ...
