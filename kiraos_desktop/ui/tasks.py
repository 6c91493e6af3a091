"""Long operations off the GUI thread: a QThread runner with progress, cancellation and reported errors."""
from __future__ import annotations

import logging
import os
import threading
import time
from datetime import datetime
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, Qt, QThread, Signal, Slot
from PySide6.QtWidgets import QWidget

from kiraos_desktop.core.records import StoreError
from kiraos_desktop.core.transfer import Cancelled, apply_import, backup, export_file, read_import_file
from kiraos_desktop.ui.busy_box import BUSY_DELAY_MS, BusyBox
from kiraos_desktop.ui.prompts import prompts

log = logging.getLogger(__name__)

#: A task: called on the worker thread with `progress(done, total)` and `is_cancelled()`.
TaskFn = Callable[[Callable[[int, int], None], Callable[[], bool]], Any]
PROGRESS_INTERVAL_S = 0.05  # at most ~20 progress signals a second reach the GUI thread


def error_text(exc: BaseException) -> str:
    """A message for the user: expected failures as they are, anything else with its type."""
    if isinstance(exc, (StoreError, OSError, ValueError)) and str(exc):
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
            if not isinstance(exc, (StoreError, OSError)):
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

    def __init__(self, fn: TaskFn, parent: QObject | None = None):
        super().__init__(parent)
        self._cancel = threading.Event()
        self._thread = QThread()
        self._thread.setObjectName("kiraos-task")
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

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def is_running(self) -> bool:
        return self._running

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
    runner.progressed.disconnect(box.report)
    box.dispose()
    runner.deleteLater()
    return outcome


def run_with_progress(parent: QWidget | None, title: str, fn: TaskFn, *, label: str = "",
                      cancellable: bool = True) -> Any | None:
    """Run `fn(progress, is_cancelled)` with a progress dialog; the result, or None when cancelled
    or failed (a failure is shown in a message box with `title`)."""
    outcome = run_task(parent, title, fn, label=label, cancellable=cancellable)
    if outcome.status == "failed":
        prompts.error(parent, title, outcome.message)
    return outcome.result if outcome.ok else None


# ---- File menu actions ---------------------------------------------------------------------


class FileTasks(QObject):
    """Translation context of the File menu's tasks: `FileTasks.tr()` is what lupdate reads (plurals included)."""


def _stamp() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S")


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:40] or "user"


def _size(path: Path) -> str:
    size = float(path.stat().st_size)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return ""


def backup_action(parent: QWidget | None, engine) -> Path | None:
    """File > Back up: ask for a file, copy the live database into it. Returns the path or None."""
    title = FileTasks.tr("Back up the database")
    default = engine.paths.backups_dir / f"kiraos-backup-{_stamp()}.db"
    chosen = prompts.save_file(parent, title, str(default), FileTasks.tr("SQLite database (*.db);;All files (*)"))
    if not chosen:
        return None
    target = Path(chosen)
    # The file dialog already asked before overwriting: back up beside it, then replace it.
    temp = target.with_name(f".{target.name}.{os.getpid()}.partial") if target.exists() else target

    def work(progress, is_cancelled):
        done = backup(engine.store, temp, progress, is_cancelled)
        if done != target:
            os.replace(done, target)
        return target

    outcome = run_task(parent, title, work, label=FileTasks.tr("Copying the database…"))
    if outcome.status == "failed":
        prompts.error(parent, title, FileTasks.tr("The backup failed:\n{0}").format(outcome.message))
        return None
    if outcome.status == "cancelled":
        prompts.info(parent, title, FileTasks.tr("Backup cancelled; no file was written."))
        return None
    prompts.info(parent, title, FileTasks.tr("Backup written to {0} ({1}).").format(target, _size(target)))
    return target


def export_action(parent: QWidget | None, engine, user_ids: list[str] | None = None) -> int | None:
    """File > Export (all users, or `user_ids`) to a JSON file; returns the number of users or None."""
    title = FileTasks.tr("Export memory")
    if user_ids and len(user_ids) == 1:
        name = f"kiraos-export-{_safe(user_ids[0])}-{_stamp()}.json"
    else:
        name = f"kiraos-export-{_stamp()}.json"
    chosen = prompts.save_file(parent, title, str(engine.paths.backups_dir / name),
                               FileTasks.tr("KiraOS export (*.json);;All files (*)"))
    if not chosen:
        return None
    target = Path(chosen)
    outcome = run_task(parent, title, lambda progress, _c: export_file(engine.store, target, user_ids, progress),
                       label=FileTasks.tr("Writing {0}…").format(target.name))
    if outcome.status == "failed":
        prompts.error(parent, title, FileTasks.tr("The export failed:\n{0}").format(outcome.message))
        return None
    if outcome.status == "cancelled":
        prompts.info(parent, title, FileTasks.tr("Export cancelled; no file was written."))
        return None
    done = FileTasks.tr("Exported %n users to {path}.", "", outcome.result)
    prompts.info(parent, title, done.format(path=target))
    return outcome.result


def import_action(parent: QWidget | None, engine) -> tuple[int, int] | None:
    """File > Import: validate the whole file, confirm with its counts, import in one transaction.

    Returns (profile entries written, events added) or None when nothing was imported.
    """
    title = FileTasks.tr("Import memory")
    chosen = prompts.open_file(parent, title, str(engine.paths.backups_dir),
                               FileTasks.tr("KiraOS export (*.json);;All files (*)"))
    if not chosen:
        return None
    path = Path(chosen)
    store = engine.store

    def read(_progress, is_cancelled):
        plan = read_import_file(path)
        if is_cancelled():
            raise Cancelled(FileTasks.tr("Import cancelled; nothing was changed."))
        existing = sum(1 for uid in plan.user_ids if store.user_summary(uid) is not None)
        return plan, existing

    outcome = run_task(parent, title, read, label=FileTasks.tr("Checking {0}…").format(path.name))
    if outcome.status == "cancelled":
        return None
    if not outcome.ok:
        prompts.error(parent, title, FileTasks.tr("This file cannot be imported:\n{0}\n\nNothing was changed.")
                      .format(outcome.message))
        return None
    plan, existing = outcome.result
    question = FileTasks.tr("Import {users} with {entries} and {events} from {file}?").format(
        users=FileTasks.tr("%n users", "", len(plan.user_ids)),
        entries=FileTasks.tr("%n profile entries", "", len(plan.profiles)),
        events=FileTasks.tr("%n events", "", len(plan.events)), file=path.name)
    if existing:
        question += "\n\n" + FileTasks.tr("%n of these users already have memory: entries with the same key "
                                          "are replaced, identical events are skipped.", "", existing)
    if not prompts.confirm(parent, title, question, FileTasks.tr("Import")):
        return None
    outcome = run_task(parent, title, lambda progress, cancelled: apply_import(
        store, plan, "import", progress, cancelled), label=FileTasks.tr("Importing…"))
    if outcome.status == "cancelled":
        prompts.info(parent, title, FileTasks.tr("Import cancelled; nothing was changed."))
        return None
    if outcome.status == "failed":
        prompts.error(parent, title,
                      FileTasks.tr("The import failed and nothing was changed:\n{0}").format(outcome.message))
        return None
    profiles, events = outcome.result
    prompts.info(parent, title, FileTasks.tr("Imported {entries} and {events} for {users}.").format(
        entries=FileTasks.tr("%n profile entries", "", profiles),
        events=FileTasks.tr("%n new events", "", events),
        users=FileTasks.tr("%n users", "", len(plan.user_ids))))
    return outcome.result


def purge_expired_action(parent: QWidget | None, engine, user_id: str | None = None) -> int | None:
    """Remove expired profile entries (of one user, or everyone); returns how many or None."""
    title = FileTasks.tr("Remove expired entries")
    if user_id is None:
        question = FileTasks.tr("Remove the expired profile entries of all users? The bot no longer sees "
                                "them; each removal is recorded in the users' history and can be reverted there.")
    else:
        question = FileTasks.tr("Remove the expired profile entries of {0}? The removal can be reverted "
                                "in its history.").format(user_id)
    if not prompts.confirm(parent, title, question, FileTasks.tr("Remove")):
        return None
    outcome = run_task(parent, title, lambda _p, _c: engine.store.purge_expired(actor="gui", user_id=user_id),
                       label=FileTasks.tr("Removing expired entries…"), cancellable=False)
    if not outcome.ok:
        prompts.error(parent, title, FileTasks.tr("Nothing was removed:\n{0}").format(outcome.message))
        return None
    removed = int(outcome.result)
    prompts.info(parent, title, FileTasks.tr("Removed %n expired entries.", "", removed) if removed
                 else FileTasks.tr("There were no expired entries."))
    return removed
