"""The ASGI callables' types, and what a fast path (a handler tried before the router) returns."""
from __future__ import annotations

from typing import Any, Awaitable, Callable, Protocol, Union

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: A fast path either answered, and returns the status it sent (an int), or leaves the request to
#: the router and returns the `receive` the router must read it from: the one it was given, or one
#: that first replays the messages the fast path read.
FastPathOutcome = Union[int, Receive]


class FastPath(Protocol):
    """A handler for the plain case of one path (GuardedApp offers it every request of that path)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> FastPathOutcome: ...
