"""Long operations off the GUI thread: a QThread runner with progress, cancellation and reported errors."""
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
        self._last_emit = 0.0
        self.error: Exception | None = None  # what the function raised, for a caller that re-raises it

    def _progress(self, done: int, total: int) -> None:
        """Throttled progress; a cancel requested mid-way stops work that only reports progress.

        It raises Cancelled only while done < total, so a function that reports its final
        progress after committing is never reported as cancelled.
        """
        if self._cancel.is_set() and done < total:
            raise Cancelled(QCoreApplication.translate("TaskWorker", "cancelled; nothing was changed"))
        now = time.monotonic()
        if done >= total or now - self._last_emit >= PROGRESS_INTERVAL_S:
            self._last_emit = now
            self.progressed.emit(int(done), int(total))

    @Slot()
    def run(self) -> None:
        try:
            result = self._fn(self._progress, self._cancel.is_set)
        except Cancelled as exc:
            signal, args = self.cancelled, (str(exc),)
        except Exception as exc:  # every failure is reported to the GUI, none is swallowed
            self.error = exc
            if not isinstance(exc, (StoreError, OSError, TaskFailed)):
                log.exception("background task failed")
            signal, args = self.failed, (error_text(exc),)
        else:
            signal, args = self.succeeded, (result,)
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
