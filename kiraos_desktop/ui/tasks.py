"""Background work off the GUI thread, one way: a task is a TaskFn (called with `progress(done, total)` and
`is_cancelled()`), run by `execute()` (its outcome, its errors reported and logged one way), on a thread
of its own (`TaskRunner`, with `run_task()`'s busy box and cancel) or on a lane (`TaskLane`: one long-lived
thread for a series of reads where only the newest request matters, which keeps its SQLite connection
and page cache warm)."""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, Qt, QThread, Signal, Slot
from PySide6.QtWidgets import QWidget

from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.transfer.export_import import Cancelled
from kiraos_desktop.ui.busy_box import BUSY_DELAY_MS, BusyBox

log = logging.getLogger(__name__)

#: A task: called on the worker thread with `progress(done, total)` and `is_cancelled()`.
TaskFn = Callable[[Callable[[int, int], None], Callable[[], bool]], Any]
PROGRESS_INTERVAL_S = 0.05  # at most ~20 progress signals a second reach the GUI thread


class TaskFailed(Exception):
    """A failure its task has put in words for the user: shown as it is, not logged as a fault."""


def error_text(exc: BaseException) -> str:
    """A message for the user: expected failures as they are, anything else with its type."""
    if isinstance(exc, (StoreError, OSError, ValueError, TaskFailed)) and str(exc):
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class _Progress:
    """A task's `progress(done, total)`: throttled to the GUI's pace through `report`; a cancel requested
    mid-way stops work that only reports progress (it raises Cancelled only while done < total, so a
    task that reports its final progress after committing is never reported as cancelled)."""

    def __init__(self, cancel: threading.Event, report: Callable[[int, int], None] | None) -> None:
        self._cancel, self._report = cancel, report
        self._last_emit = 0.0

    def __call__(self, done: int, total: int) -> None:
        if self._cancel.is_set() and done < total:
            raise Cancelled(QCoreApplication.translate("TaskWorker", "cancelled; nothing was changed"))
        now = time.monotonic()
        if self._report is not None and (done >= total or now - self._last_emit >= PROGRESS_INTERVAL_S):
            self._last_emit = now
            self._report(int(done), int(total))


def execute(fn: TaskFn, cancel: threading.Event,
            report: Callable[[int, int], None] | None = None) -> tuple[str, Any]:
    """Run a task: ("ok", result), ("cancelled", message) or ("failed", the exception). A failure the
    task did not put in words for the user is logged with its traceback."""
    try:
        return "ok", fn(_Progress(cancel, report), cancel.is_set)
    except Cancelled as exc:
        return "cancelled", str(exc)
    except Exception as exc:  # every failure is reported to the GUI, none is swallowed
        if not isinstance(exc, (StoreError, OSError, TaskFailed)):
            log.exception("background task failed")
        return "failed", exc


class TaskWorker(QObject):
    """Runs one TaskFn when `run` is invoked on its thread; reports through queued signals."""

    progressed = Signal(int, int)
    succeeded = Signal(object)
    failed = Signal(str)
    cancelled = Signal(str)

    def __init__(self, fn: TaskFn, cancel_event: threading.Event):
        super().__init__()
        self._fn = fn
        self._cancel = cancel_event
        self.error: Exception | None = None  # what the function raised, for a caller that re-raises it

    @Slot()
    def run(self) -> None:
        status, value = execute(self._fn, self._cancel, self.progressed.emit)
        if status == "failed":
            self.error = value
            signal, args = self.failed, (error_text(value),)
        else:
            signal, args = (self.succeeded, (value,)) if status == "ok" else (self.cancelled, (value,))
        # Hand the worker back to the GUI thread so that it can be freed there after the thread ends.
        app = QCoreApplication.instance()
        if app is not None:
            self.moveToThread(app.thread())
        signal.emit(*args)
        thread = QThread.currentThread()
        thread.quit()  # thread-safe: the thread's event loop ends right after this slot


class TaskRunner(QObject):
    """One task on its own QThread. Connect to the signals, then `start()`; `cancel()` asks it to stop.

    Exactly one of `succeeded(result)`, `failed(message)` or `cancelled(message)` is emitted on
    the GUI thread, then `finished()`. The runner keeps itself alive until the thread ends.
    """

    progressed = Signal(int, int)
    succeeded = Signal(object)
    failed = Signal(str)
    cancelled = Signal(str)
    finished = Signal()
    _alive: set["TaskRunner"] = set()  # running runners, so that none is collected mid-task

    def __init__(self, fn: TaskFn, parent: QObject | None = None, name: str = "kiraos-task"):
        super().__init__(parent)
        self._cancel = threading.Event()
        self._thread = QThread()
        self._thread.setObjectName(name)
        self._worker = TaskWorker(fn, self._cancel)
        self._worker.moveToThread(self._thread)
        queued = Qt.ConnectionType.QueuedConnection
        self._worker.progressed.connect(self.progressed, queued)
        self._worker.succeeded.connect(self.succeeded, queued)
        self._worker.failed.connect(self.failed, queued)
        self._worker.cancelled.connect(self.cancelled, queued)
        self._thread.started.connect(self._worker.run)
        self._thread.finished.connect(self._on_thread_finished)
        self._running = False

    def start(self) -> None:
        self._running = True
        TaskRunner._alive.add(self)
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    def is_running(self) -> bool:
        return self._running

    @property
    def error(self) -> Exception | None:
        """What the task raised (read after `failed`)."""
        return self._worker.error

    def wait(self, ms: int = 30000) -> bool:
        """Block until the thread ends (for shutdown); True when it did."""
        return self._thread.wait(ms)

    @Slot()
    def _on_thread_finished(self) -> None:
        self._thread.wait()  # `finished` is emitted from the ending thread: let it end for real
        self._running = False
        TaskRunner._alive.discard(self)
        self.finished.emit()


@dataclass
class TaskOutcome:
    status: str  # "ok", "cancelled" or "failed"
    result: Any = None
    message: str = ""
    error: Exception | None = None  # what a failed task raised

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def run_task(parent: QWidget | None, title: str, fn: TaskFn, *, label: str = "", cancellable: bool = True,
             min_duration_ms: int | None = None) -> TaskOutcome:
    """Run `fn` off the GUI thread behind a modal busy box; block (events keep flowing) until done.

    The box appears only when the task outlives `min_duration_ms` and is deleted before this
    returns, so the question or result box that usually follows is never covered by it.
    """
    box = BusyBox(title, label or title, cancellable, parent)
    outcome = TaskOutcome("failed")
    loop = QEventLoop()
    runner = TaskRunner(fn)

    def settle(status: str, result: Any = None, message: str = "") -> None:
        outcome.status, outcome.result, outcome.message = status, result, message

    runner.progressed.connect(box.report)
    runner.succeeded.connect(lambda result: settle("ok", result))
    runner.failed.connect(lambda message: settle("failed", None, message))
    runner.cancelled.connect(lambda message: settle("cancelled", None, message))
    runner.finished.connect(loop.quit)
    box.cancel_requested.connect(runner.cancel)
    runner.start()
    box.show_later(BUSY_DELAY_MS if min_duration_ms is None else min_duration_ms)
    loop.exec()
    runner.wait()
    outcome.error = runner.error
    runner.progressed.disconnect(box.report)
    box.dispose()
    runner.deleteLater()
    return outcome


class TaskLane(QObject):
    """Tasks one after another on one long-lived thread, the newest first: `submit(fn)` returns a ticket,
    and `finished(ticket, result, error)` arrives on the GUI thread (`error`: the exception a task
    raised, or the Cancelled of one told to stop; None when it succeeded).

    A task submitted while another waits replaces it, and the running one is told to cancel (a task
    that checks `is_cancelled()` or reports progress stops early): typing a search or editing a skill
    never queues up stale work. The thread lives as long as the lane, so the store's reader keeps its
    SQLite connection (one per thread) and page cache from one read to the next.
    """

    finished = Signal(int, object, object)
    _relay = Signal(int, object, object)

    def __init__(self, name: str = "kiraos-lane", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._cond = threading.Condition()
        self._job: tuple[int, TaskFn, threading.Event] | None = None
        self._running: threading.Event | None = None  # the cancel of the task under way
        self._ticket = 0
        self._stopped = False
        self._thread: threading.Thread | None = None
        self._relay.connect(self._on_relay_received, Qt.ConnectionType.QueuedConnection)

    @property
    def latest_ticket(self) -> int:
        return self._ticket

    def submit(self, fn: TaskFn) -> int:
        with self._cond:
            self._ticket += 1
            self._job = (self._ticket, fn, threading.Event())
            if self._running is not None:
                self._running.set()  # superseded: its answer would be thrown away
            if self._thread is None and not self._stopped:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify()
            return self._ticket

    def stop(self, wait: bool = True) -> None:
        """Tell the running task to cancel, drop the waiting one, and end the thread; `wait`: for it to
        end, up to 5 s (else it ends by itself once its task returns, answering nothing)."""
        with self._cond:
            self._stopped = True
            self._job = None
            if self._running is not None:
                self._running.set()
            self._cond.notify()
        if self._thread is not None and wait:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._job is None and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    return
                ticket, fn, cancel = self._job
                self._job, self._running = None, cancel
            status, value = execute(fn, cancel)
            with self._cond:
                self._running = None
                if self._stopped:
                    return
            result, error = (value, None) if status == "ok" else \
                (None, value if status == "failed" else Cancelled(value))
            try:
                self._relay.emit(ticket, result, error)
            except RuntimeError:  # the Qt side is gone (its window closed while a task ran)
                return

    @Slot(int, object, object)
    def _on_relay_received(self, ticket: int, result, error) -> None:
        self.finished.emit(ticket, result, error)


def plain(work: Callable[[], Any]) -> TaskFn:
    """A task of a call that neither reports progress nor checks for a cancel (a quick read)."""
    return lambda _progress, _is_cancelled: work()
