"""Turns the store's thread-agnostic change events into Qt signals delivered on the GUI thread."""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot

from kiraos_desktop.core.memory.changes import ChangeBus, ChangeEvent


class StoreSignals(QObject):
    """Subscribes to `store.changes`; re-emits `changed(user_id|None, action, actor, origin|None)` on this
    object's thread.

    The store calls subscribers on the writer's thread (an API thread, the watcher, the GUI);
    the internal relay signal is connected with a queued connection, so `changed` is always
    emitted from the event loop of the thread this object lives in (the GUI thread).
    """

    changed = Signal(object, str, str, object)
    _relay = Signal(object, str, str, object)

    def __init__(self, bus: ChangeBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._relay.connect(self._on_relay_received, Qt.ConnectionType.QueuedConnection)
        self._unsubscribe: Callable[[], None] | None = bus.subscribe(self._on_bus_event)

    def _on_bus_event(self, event: ChangeEvent) -> None:
        # Any thread. Emitting a signal is thread-safe; the queued connection does the hop.
        self._relay.emit(event.user_id, event.action, event.actor, event.origin)

    @Slot(object, str, str, object)
    def _on_relay_received(self, user_id, action: str, actor: str, origin) -> None:
        self.changed.emit(user_id, action, actor, origin)

    def detach(self) -> None:
        """Stop listening (the window closes, or the engine is replaced)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None


class ChangeCoalescer(QObject):
    """Collects change events and fires `triggered(user_ids)` at most once per `delay_ms`.

    `user_ids` is a frozenset of the users that changed, or None when any user may have changed
    (another process, bulk work). Bursts of hundreds of writes a second cost one refresh.
    `last_origins`, set before each `triggered`: for each user changed only by writes of one view
    (their `origin`), that view, which shows them already and need not read them again.
    """

    triggered = Signal(object)

    def __init__(self, signals: StoreSignals, delay_ms: int = 300, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._users: set[str] | None = set()
        self._origins: dict[str, str | None] = {}  # None: several views, or none, wrote the user
        self.last_origins: dict[str, str | None] = {}
        self._pending = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._on_timer_timeout)
        signals.changed.connect(self._on_signals_changed)

    @Slot(object, str, str, object)
    def _on_signals_changed(self, user_id, action: str, actor: str, origin) -> None:
        if user_id is None:
            self._users = None
        elif self._users is not None:
            self._users.add(user_id)
        if user_id is not None:
            self._origins[user_id] = origin if self._origins.get(user_id, origin) == origin else None
        self._pending = True
        if not self._timer.isActive():
            self._timer.start()  # not restarted on later events: a steady stream still refreshes

    @Slot()
    def _on_timer_timeout(self) -> None:
        if not self._pending:
            return
        users = None if self._users is None else frozenset(self._users)
        self.last_origins = {} if users is None else {u: o for u, o in self._origins.items() if o is not None}
        self._users = set()
        self._origins = {}
        self._pending = False
        self.triggered.emit(users)

    def flush(self) -> None:
        """Fire now if anything is pending (tests, and pages becoming visible)."""
        self._timer.stop()
        self._on_timer_timeout()
