"""The API's worker threads: a write after close() is refused instead of starting a pool nobody closes."""
from __future__ import annotations

import asyncio
import threading

import pytest

from kiraos_desktop.api.workers import Workers, WorkersClosed


def test_a_write_after_close_is_refused_and_starts_no_thread():
    workers = Workers(writers=2)
    assert asyncio.run(workers.write(lambda: 1)) == 1
    workers.close()
    before = {t.name for t in threading.enumerate()}
    with pytest.raises(WorkersClosed, match="stopping"):
        asyncio.run(workers.write_on(1, lambda: 2))
    started = {t.name for t in threading.enumerate()} - before
    assert not any(name.startswith("kiraos-api-writer") for name in started)
    assert workers._threads == [None, None]
