"""uvicorn's server, woken at once when asked to stop.

uvicorn's main loop sleeps 0.1 s between looks at `should_exit`, and its shutdown sleeps 0.1 s more
for the connections it asks to close, so every stop (the window's restart on a new port, a quit,
each of the test suite's hundreds of servers) took 0.15 to 0.2 s. This loop waits on an event
instead, with the same 0.1 s ticks otherwise (uvicorn's `on_tick` keeps its date header and
limits), `wake()` sets it from any thread, and a shutdown with no connection or task open does not
wait for them.
"""
from __future__ import annotations

import asyncio
from functools import lru_cache


@lru_cache(maxsize=1)
def _server_class():
    import uvicorn  # imported with the server: the command line does without it

    class PromptServer(uvicorn.Server):
        def __init__(self, config) -> None:
            super().__init__(config)
            self._loop: asyncio.AbstractEventLoop | None = None
            self._wake: asyncio.Event | None = None

        async def main_loop(self) -> None:
            self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
            counter = 0
            should_exit = await self.on_tick(counter)
            while not should_exit:
                counter = (counter + 1) % 864000
                try:
                    await asyncio.wait_for(self._wake.wait(), 0.1)
                except asyncio.TimeoutError:
                    pass
                should_exit = await self.on_tick(counter)

        async def shutdown(self, sockets=None) -> None:
            """uvicorn's shutdown waits 0.1 s for the connections it asks to close, and then for its
            tasks; with neither open there is nothing to wait for: close the listeners, end the
            lifespan. Otherwise uvicorn's own shutdown."""
            state = self.server_state
            if state.connections or state.tasks:
                await super().shutdown(sockets)
                return
            for listener in self.servers:
                listener.close()
            for sock in sockets or []:
                sock.close()
            for listener in self.servers:
                await listener.wait_closed()
            if not self.force_exit:
                await self.lifespan.shutdown()

        def wake(self) -> None:
            """Look at `should_exit` now (any thread; nothing when the loop has not started or ended)."""
            loop, event = self._loop, self._wake
            if loop is not None and event is not None:
                try:
                    loop.call_soon_threadsafe(event.set)
                except RuntimeError:  # the loop is closed: the server has stopped already
                    pass

    return PromptServer


def prompt_server(config):
    """A uvicorn server on `config` whose `wake()` makes a stop (`should_exit = True`) start at once."""
    return _server_class()(config)
