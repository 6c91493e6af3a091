"""Runs work on one background thread where the latest request wins: only the newest is answered."""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, Signal, Slot

log = logging.getLogger(__name__)


class QueryWorker(QObject):
    """`submit(fn)` returns a ticket; `finished(ticket, result, error)` arrives on the GUI thread.

    A request submitted while another waits replaces it: typing a search or editing a skill
    never queues up stale work. The store's reader gives this thread its own SQLite connection.
    """

    finished = Signal(int, object, object)
    _relay = Signal(int, object, object)

    def __init__(self, name: str = "kiraos-query", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._cond = threading.Condition()
        self._job: tuple[int, Callable[[], Any]] | None = None
        self._ticket = 0
        self._stopped = False
        self._thread: threading.Thread | None = None
        self._relay.connect(self._on_relay_received, Qt.ConnectionType.QueuedConnection)

    @property
    def latest_ticket(self) -> int:
        return self._ticket

    def submit(self, work: Callable[[], Any]) -> int:
        with self._cond:
            self._ticket += 1
            self._job = (self._ticket, work)
            if self._thread is None and not self._stopped:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify()
            return self._ticket

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._job = None
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._job is None and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    return
                ticket, work = self._job
                self._job = None
            result, error = None, None
            try:
                result = work()
            except Exception as exc:  # reported to the GUI, never swallowed
                log.exception("background query failed")
                error = exc
            with self._cond:
                if self._stopped:
                    return
            try:
                self._relay.emit(ticket, result, error)
            except RuntimeError:  # the Qt side is gone (window closed while a query ran)
                return

    @Slot(int, object, object)
    def _on_relay_received(self, ticket: int, result, error) -> None:
        self.finished.emit(ticket, result, error)
