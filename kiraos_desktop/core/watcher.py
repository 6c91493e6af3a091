"""The engine's ticking thread: checkpoints every 0.1 s, other processes' commits every second."""
from __future__ import annotations

import logging
import threading
from typing import Callable

from kiraos_desktop.core.memory.records import StoreUnavailable

log = logging.getLogger(__name__)


class ExternalChangeWatcher:
    """Calls `poll` every `interval` seconds on its own thread until stopped; an error is logged and
    the next call comes as usual."""

    def __init__(self, poll: Callable[[], bool], interval: float = 1.0):
        self._poll = poll
        self._interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="kiraos-db-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        unavailable = False
        while not self._stop.wait(self._interval):
            try:
                self._poll()
            except StoreUnavailable as exc:  # a database server outage: said once, not every tick
                if not unavailable:
                    log.warning("the database is unavailable; the watcher retries: %s", exc)
                unavailable = True
            except Exception:  # a transient error (file briefly locked) must not end the watcher
                log.exception("polling the database for external changes failed")
            else:
                unavailable = False
