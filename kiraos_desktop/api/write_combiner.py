"""A connection's transport whose writes of one turn of the event loop go out as one.

uvicorn writes a reply's head and its body with two transport.write() calls, and uvloop's write
sends at once, holding the GIL through the system call: two sends per reply, each a few per cent
of a request's time on the event loop (py-spy, memory_update under load). Collected until the
current callbacks have run, they leave with one send; a reply is then one TCP segment, too.
"""
from __future__ import annotations


class WriteCombiner:
    """Wraps an asyncio transport: write() collects, the loop's next turn sends; close() sends what
    was collected first, abort() drops it. Anything else is the transport's own."""

    __slots__ = ("_transport", "_loop", "_pending")

    def __init__(self, transport, loop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self._flush)
        self._pending.append(data)

    def writelines(self, chunks) -> None:
        for data in chunks:
            self.write(data)

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        if pending and not self._transport.is_closing():
            self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending = []
        self._transport.abort()

    def set_protocol(self, protocol) -> None:  # an upgrade: what was written goes first
        self._flush()
        self._transport.set_protocol(protocol)

    def __getattr__(self, name: str):
        return getattr(self._transport, name)
