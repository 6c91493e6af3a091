"""Relays the API server's state (reported from any thread) to the GUI thread, with readable texts."""
from __future__ import annotations

import logging
from typing import Callable

from PySide6.QtCore import QObject, Qt, Signal, Slot

from kiraos_desktop.ui.tasks import TaskFailed, TaskRunner

log = logging.getLogger(__name__)


def run_server_operation(name: str, work: Callable[[], None],
                         on_failure: Callable[[str], None] | None = None) -> TaskRunner:
    """Start, stop or restart the API server on a task thread (binding, draining and joining its thread
    take up to seconds). A failure (ApiStartError: a port in use, bad options) is logged and given to
    `on_failure` on the GUI thread; the server's state listener reports it too. Every runner keeps
    itself alive until its thread ends."""
    def run(progress: Callable[[int, int], None], cancelled: Callable[[], bool]) -> None:
        try:
            work()
        except Exception as exc:  # reported as the server said it, never swallowed
            log.warning("API %s failed: %s", name, exc)
            raise TaskFailed(str(exc) or type(exc).__name__) from exc

    runner = TaskRunner(run, name=f"kiraos-api-{name}")
    if on_failure is not None:
        runner.failed.connect(on_failure)
    runner.start()
    return runner


class ServerStateRelay(QObject):
    """`state_changed(state, detail)` on the GUI thread; state in starting|running|stopped|error."""

    state_changed = Signal(str, str)
    _relay = Signal(str, str)

    def __init__(self, server, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = "stopped"
        self.detail = ""
        self._relay.connect(self._on_relay_received, Qt.ConnectionType.QueuedConnection)
        self._remove: Callable[[], None] | None = None
        if server is not None:
            self._remove = server.add_state_listener(self._on_server_state)
            if getattr(server, "running", False):
                self.state, self.detail = "running", server.url

    def _on_server_state(self, state: str, detail) -> None:  # any thread
        try:
            self._relay.emit(str(state), "" if detail is None else str(detail))
        except RuntimeError:  # the window is gone
            pass

    @Slot(str, str)
    def _on_relay_received(self, state: str, detail: str) -> None:
        self.state, self.detail = state, detail
        self.state_changed.emit(state, detail)

    def report(self, state: str, detail: str) -> None:
        """A state known on the GUI thread (e.g. the server could not even be created)."""
        self._on_relay_received(state, detail)

    def detach(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None

    def text(self) -> str:
        """For the status bar: "API running at http://127.0.0.1:8765"."""
        if self.state == "running":
            return self.tr("API running at {url}").format(url=self.detail)
        if self.state == "starting":
            return self.tr("API starting…")
        if self.state == "error":
            return self.tr("API not running: {detail}").format(detail=self.detail)
        return self.tr("API stopped")

    def short_text(self) -> str:
        """After an "API:" label: "running at http://127.0.0.1:8765"."""
        if self.state == "running":
            return self.tr("running at {url}").format(url=self.detail)
        if self.state == "starting":
            return self.tr("starting…")
        if self.state == "error":
            return self.tr("not running: {detail}").format(detail=self.detail)
        return self.tr("stopped")
