"""Where a table model reads its rows: on the GUI thread when the store's reads cost less than a hand-off
(SQLite: a WAL reader never waits for a writer), else on a TaskLane (PostgreSQL: a round trip to the
server each; a 3.x tree: files), as the store's `inline_ok` capability says."""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from kiraos_desktop.core.storage.protocol import MemoryReader
from kiraos_desktop.ui.tasks import TaskLane, error_text, plain


class RowReads(QObject):
    """`read(read, apply)`: `apply(read())`, the read off the GUI thread where the store asks for it; then
    `apply` runs on the GUI thread, only for the newest read (a newer one, say for another user,
    supersedes it). A read that fails there is told by `failed(message)`; inline, it raises as it is."""

    failed = Signal(str)

    def __init__(self, store: MemoryReader, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lane: TaskLane | None = None if store.inline_ok else TaskLane(name)
        self._waiting: tuple[int, Callable[[Any], None]] | None = None
        if self._lane is not None:
            self._lane.finished.connect(self._on_lane_finished)
            lane = self._lane
            # The lane's thread ends with its model, without holding the GUI thread for a read under way.
            self.destroyed.connect(lambda *_: lane.stop(wait=False))

    @property
    def inline(self) -> bool:
        """Whether reads run on the GUI thread (and `apply` before `read()` returns)."""
        return self._lane is None

    @property
    def waiting(self) -> bool:
        """Whether a read is under way whose rows have not arrived yet."""
        return self._waiting is not None

    def read(self, read: Callable[[], Any], apply: Callable[[Any], None]) -> None:
        if self._lane is None:
            apply(read())
            return
        self._waiting = (self._lane.submit(plain(read)), apply)

    def _on_lane_finished(self, ticket: int, result: Any, error: Any) -> None:
        if self._waiting is None or ticket != self._waiting[0]:
            return  # superseded
        apply, self._waiting = self._waiting[1], None
        if error is not None:
            self.failed.emit(error_text(error))
            return
        apply(result)
