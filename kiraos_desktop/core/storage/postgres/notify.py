"""Other instances' writes on a shared PostgreSQL database, heard through LISTEN/NOTIFY."""
from __future__ import annotations

import logging
import threading
from typing import Callable

from kiraos_desktop.core.memory.changes import ChangeBus, ChangeEvent

log = logging.getLogger(__name__)

# The schema's trigger sends NOTIFY on this channel after every write to the memory tables, with
# the affected user id as payload.
CHANNEL = "kiraos_desktop_changes"
EXTERNAL = "external"
# How long one wait for notifications lasts: the longest a stop() waits for the thread.
WAIT_S = 0.2
# Reconnection delays after a lost connection: doubled per failed attempt, up to the last (a
# connection attempt a second costs a down server nothing, and bounds how stale a block can get
# after the server is back).
FIRST_RETRY_S = 0.2
MAX_RETRY_S = 1.0
# Dead peers without a FIN (a cable, a crashed host) are noticed through TCP keepalives.
_CONNECT_OPTIONS = {"autocommit": True, "connect_timeout": 5, "keepalives": 1, "keepalives_idle": 10,
                    "keepalives_interval": 5, "keepalives_count": 3,
                    "application_name": "kiraos-desktop listener"}

StateListener = Callable[[bool], None]


class ChangeListener:
    """A daemon thread with its own autocommit connection that LISTENs on CHANNEL.

    Each notification publishes `ChangeEvent(user_id, "external", "external")` on `bus`, so the
    context cache drops that user's block and the window refreshes, as for a local write. When the
    connection is lost (the server restarted) it reconnects with backoff; notifications sent
    meanwhile are lost, so after reconnecting it publishes `ChangeEvent(None, ...)`: every
    subscriber treats all users as changed. `connected` and the state listeners report whether
    the database server is reachable from here.
    """

    def __init__(self, url: str, bus: ChangeBus, *, wait_s: float = WAIT_S,
                 first_retry_s: float = FIRST_RETRY_S, max_retry_s: float = MAX_RETRY_S) -> None:
        self._url = url
        self._bus = bus
        self._wait_s = wait_s
        self._first_retry_s = first_retry_s
        self._max_retry_s = max_retry_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._listeners: list[StateListener] = []
        self._ready = threading.Event()  # set once LISTEN ran on the current connection
        self.connected: bool | None = None  # None until the first attempt ended
        self.last_error = ""

    # ---- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        if self._thread and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="kiraos-pg-listener", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=5)

    def wait_listening(self, timeout: float) -> bool:
        """True once LISTEN runs on a connection (for callers that must not miss the next write)."""
        return self._ready.wait(timeout)

    def add_state_listener(self, callback: StateListener) -> Callable[[], None]:
        """callback(connected) on the listener's thread whenever reachability changes."""
        self._listeners.append(callback)

        def remove() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return remove

    # ---- the thread ----------------------------------------------------------------------

    def _run(self) -> None:
        delay = self._first_retry_s
        first = True
        while not self._stop.is_set():
            conn = self._connect()
            if conn is None:
                self._stop.wait(delay)
                delay = min(delay * 2, self._max_retry_s)
                continue
            delay = self._first_retry_s
            try:
                self._set_state(True, "")
                if not first:  # whatever was written while we were away went unheard
                    self._bus.publish(ChangeEvent(None, EXTERNAL, EXTERNAL))
                first = False
                self._listen(conn)
            except Exception as exc:  # psycopg.OperationalError and the like: the connection is gone
                self._ready.clear()
                if not self._stop.is_set():
                    log.warning("lost the database connection that hears other instances' writes: %s",
                                _one_line(exc))
                    self._set_state(False, _one_line(exc))
                    self._stop.wait(delay)
            finally:
                self._ready.clear()
                try:
                    conn.close()
                except Exception:  # closing a broken connection may fail too; nothing to do
                    pass

    def _connect(self):
        import psycopg

        try:
            conn = psycopg.connect(self._url, **_CONNECT_OPTIONS)
            conn.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as exc:
            self._set_state(False, _one_line(exc))
            return None
        self._ready.set()
        return conn

    def _listen(self, conn) -> None:
        while not self._stop.is_set():
            # No merging of repeated users here: a block cached between two writes must drop twice.
            # (PostgreSQL already sends one notification per user and transaction.)
            for note in conn.notifies(timeout=self._wait_s):
                self._bus.publish(ChangeEvent(note.payload or None, EXTERNAL, EXTERNAL))
                if self._stop.is_set():
                    return

    def _set_state(self, connected: bool, detail: str) -> None:
        if connected == self.connected:
            return
        self.connected = connected
        self.last_error = detail
        for callback in list(self._listeners):
            try:
                callback(connected)
            except Exception:  # a faulty listener must not end the thread
                log.exception("database state listener failed")


def _one_line(exc: BaseException) -> str:
    """psycopg's messages span lines (DETAIL, HINT); the first says what happened. No URL in them."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
