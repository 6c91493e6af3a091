"""Application logging: a rotating file in the data dir's logs folder, the console, uncaught errors."""
from __future__ import annotations

import logging
import logging.handlers
import os
import platform
import sys
import threading
from pathlib import Path

LOG_FILE_NAME = "kiraos-desktop.log"
MAX_BYTES = 1024 * 1024
BACKUP_COUNT = 5
FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s"
CONSOLE_FORMAT = "%(levelname)s %(name)s: %(message)s"

# Marks what this module installed, so a second call finds it instead of adding it again.
_ROLE = "_kiraos_log_role"
_UNCAUGHT = "kiraos_uncaught"  # set on records of uncaught errors; the chained hook prints those itself
_lock = threading.Lock()
_warned_dirs: set[str] = set()
_log = logging.getLogger("kiraos_desktop")


class _ConsoleHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is at the time, and to nothing once it is None."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass  # StreamHandler.__init__ assigns it; the property always follows sys.stderr

    def emit(self, record: logging.LogRecord) -> None:
        if sys.stderr is not None:
            super().emit(record)


def _not_uncaught(record: logging.LogRecord) -> bool:
    return not getattr(record, _UNCAUGHT, False)


def _installed(root: logging.Logger, role: str) -> list[logging.Handler]:
    return [h for h in root.handlers if getattr(h, _ROLE, None) == role]


def _remove(root: logging.Logger, handlers: list[logging.Handler]) -> None:
    for handler in handlers:
        root.removeHandler(handler)
        handler.close()


def _open_file_handler(logs_dir: Path) -> logging.Handler:
    logs_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        logs_dir / LOG_FILE_NAME, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT,
        encoding="utf-8", errors="backslashreplace")
    handler.setLevel(logging.INFO)
    handler.setFormatter(logging.Formatter(FILE_FORMAT))
    setattr(handler, _ROLE, "file")
    return handler


def _say_once(logs_dir: Path, exc: OSError) -> None:
    key = str(logs_dir)
    if key in _warned_dirs:
        return
    _warned_dirs.add(key)
    if sys.stderr is not None:
        try:
            print(f"kiraos-desktop: warning: cannot write a log file in {logs_dir} ({exc}); "
                  "logging to the console only", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass


def configure_logging(logs_dir: str | os.PathLike) -> Path | None:
    """Log INFO+ to logs_dir/kiraos-desktop.log and WARNING+ to stderr (when there is one).

    Safe to call again: our handlers are found and reused (or the file handler replaced when the
    folder changes), never doubled. Returns the log file, or None when it cannot be written, in
    which case logging goes to the console only. Handlers installed by others are left alone.
    """
    folder = Path(logs_dir)
    target = os.path.abspath(folder / LOG_FILE_NAME)
    root = logging.getLogger()
    opened = None
    with _lock:
        if sys.stderr is not None and not _installed(root, "console"):
            console = _ConsoleHandler()
            console.setLevel(logging.WARNING)
            console.setFormatter(logging.Formatter(CONSOLE_FORMAT))
            console.addFilter(_not_uncaught)
            setattr(console, _ROLE, "console")
            root.addHandler(console)
        current = _installed(root, "file")
        if current and all(h.baseFilename == target for h in current):
            result = Path(target)
        else:
            _remove(root, current)
            try:
                opened = _open_file_handler(folder)
            except OSError as exc:
                _say_once(folder, exc)
                result = None
            else:
                root.addHandler(opened)
                result = Path(target)
        if root.getEffectiveLevel() > logging.INFO:
            root.setLevel(logging.INFO)
        _install_hooks()
    if opened is not None:
        from kiraos_desktop import __version__

        _log.info("logging to %s (KiraOS Desktop %s, Python %s, %s, pid %d)", target, __version__,
                  platform.python_version(), platform.platform(terse=True), os.getpid())
    return result


# ---- uncaught exceptions ------------------------------------------------------------------


def _install_hooks() -> None:
    if not getattr(sys.excepthook, _ROLE, False):
        previous_sys = sys.excepthook

        def sys_hook(exc_type, exc, tb) -> None:
            if not issubclass(exc_type, KeyboardInterrupt):
                _log.critical("uncaught exception", exc_info=(exc_type, exc, tb), extra={_UNCAUGHT: True})
            previous_sys(exc_type, exc, tb)

        setattr(sys_hook, _ROLE, True)
        sys.excepthook = sys_hook
    if not getattr(threading.excepthook, _ROLE, False):
        previous_thread = threading.excepthook

        def thread_hook(args) -> None:
            if not issubclass(args.exc_type, SystemExit):  # threads end quietly on SystemExit
                name = args.thread.name if args.thread is not None else "?"
                _log.error("uncaught exception in thread %s", name,
                           exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
                           extra={_UNCAUGHT: True})
            previous_thread(args)

        setattr(thread_hook, _ROLE, True)
        threading.excepthook = thread_hook
