"""Change events published by the store after each commit, to thread-safe subscribers."""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Callable

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class ChangeEvent:
    user_id: str | None  # None: any user may have changed (another process, bulk work)
    action: str
    actor: str
    origin: str | None = None  # the view that made the write and shows it already (run_batch(origin=))


Subscriber = Callable[[ChangeEvent], None]


class ChangeBus:
    """Calls subscribers on the publishing thread; subscribers must hand off to their own thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: tuple[Subscriber, ...] = ()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        with self._lock:
            self._subscribers = self._subscribers + (callback,)

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = tuple(s for s in self._subscribers if s is not callback)

        return unsubscribe

    def publish(self, event: ChangeEvent) -> None:
        for callback in self._subscribers:
            try:
                callback(event)
            except Exception:  # one faulty subscriber must not break the writer or the others
                log.exception("change subscriber failed for %s", event)
