"""The connection transport's writes of one turn of the event loop leave as one."""
from __future__ import annotations

import asyncio

from kiraos_desktop.api.write_combiner import WriteCombiner


class FakeTransport:
    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.closing = False
        self.aborted = False

    def write(self, data: bytes) -> None:
        assert not self.closing, "written after close"
        self.sent.append(data)

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = self.aborted = True

    def get_extra_info(self, name: str):
        return ("127.0.0.1", 1234) if name == "peername" else None


def run(steps) -> FakeTransport:
    async def main():
        transport = FakeTransport()
        combined = WriteCombiner(transport, asyncio.get_running_loop())
        await steps(combined, transport)
        return transport
    return asyncio.run(main())


def test_a_replys_head_and_body_leave_in_one_write_after_the_turn():
    async def steps(combined, transport):
        combined.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
        combined.write(b"{}")
        assert transport.sent == []
        await asyncio.sleep(0)
        assert transport.sent == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"]
        combined.write(b"next")  # a later turn's writes: their own send
        await asyncio.sleep(0)
        assert transport.sent[1:] == [b"next"]
    run(steps)


def test_close_sends_what_was_written_first_and_abort_drops_it():
    async def steps(combined, transport):
        combined.write(b"reply")
        combined.close()
        assert transport.sent == [b"reply"] and transport.closing
        await asyncio.sleep(0)  # the scheduled send finds nothing left
        assert transport.sent == [b"reply"]
    run(steps)

    async def aborting(combined, transport):
        combined.write(b"half a reply")
        combined.abort()
        await asyncio.sleep(0)
        assert transport.sent == [] and transport.aborted
    run(aborting)


def test_everything_else_is_the_transports():
    async def steps(combined, transport):
        assert combined.get_extra_info("peername") == ("127.0.0.1", 1234)
        assert combined.is_closing() is False
        combined.write(b"")  # nothing to send: nothing scheduled
        await asyncio.sleep(0)
        assert transport.sent == []
    run(steps)
