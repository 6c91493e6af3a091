"""The application log: a file in the data dir's logs folder, no doubled handlers, no crash without one."""
import logging
import logging.handlers
import sys
import threading

import pytest

from core_helpers import app_log_handlers, flush_logs, restore_logging  # noqa: F401
from kiraos_desktop.core.app_log import LOG_FILE_NAME, configure_logging
from kiraos_desktop.core.paths import resolve_paths


@pytest.fixture
def logs_dir(tmp_path):
    return resolve_paths(data_dir=tmp_path / "data").logs_dir


def test_an_error_lands_in_the_file_under_the_data_dir(logs_dir):
    path = configure_logging(logs_dir)
    assert path == logs_dir / LOG_FILE_NAME
    try:
        raise ValueError("broken on purpose")
    except ValueError:
        logging.getLogger("kiraos_desktop.api.security").exception("unexpected error while answering GET /x")
    logging.getLogger("kiraos_desktop.somewhere").debug("too fine to keep")
    flush_logs()
    text = path.read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if "unexpected error while answering" in line)
    # timestamp, level, logger name, thread name, message
    assert " ERROR kiraos_desktop.api.security [MainThread] unexpected error while answering GET /x" in line
    assert line[:4].isdigit() and line[4] == "-"
    assert "ValueError: broken on purpose" in text and "Traceback" in text
    assert "logging to" in text and "too fine to keep" not in text


def test_info_reaches_the_file_but_not_the_console(logs_dir, capsys):
    configure_logging(logs_dir)
    logging.getLogger("kiraos_desktop.core.engine").info("installed example skills: none")
    logging.getLogger("kiraos_desktop.ui.app").warning("the API server did not start: port busy")
    flush_logs()
    err = capsys.readouterr().err
    assert "the API server did not start: port busy" in err and "installed example skills" not in err
    text = (logs_dir / LOG_FILE_NAME).read_text(encoding="utf-8")
    assert "INFO kiraos_desktop.core.engine" in text and "WARNING kiraos_desktop.ui.app" in text


def test_uvicorn_errors_propagate_to_the_file(logs_dir):
    # The server gives uvicorn log_config=None: its loggers keep no handlers and propagate to the root.
    configure_logging(logs_dir)
    logging.getLogger("uvicorn.error").warning("Invalid HTTP request received.")
    flush_logs()
    assert "WARNING uvicorn.error [MainThread] Invalid HTTP request received." in (
        logs_dir / LOG_FILE_NAME).read_text(encoding="utf-8")


def test_configuring_twice_gives_one_file_handler(logs_dir):
    first = configure_logging(logs_dir)
    second = configure_logging(logs_dir)
    assert first == second
    assert len(app_log_handlers("file")) == 1 and len(app_log_handlers("console")) == 1
    logging.getLogger("kiraos_desktop").error("once")
    flush_logs()
    assert (logs_dir / LOG_FILE_NAME).read_text(encoding="utf-8").count("once") == 1
    hook = sys.excepthook
    configure_logging(logs_dir)
    assert sys.excepthook is hook  # hooks are not wrapped a second time either


def test_the_file_rotates_at_a_megabyte_with_five_backups(logs_dir):
    configure_logging(logs_dir)
    (handler,) = app_log_handlers("file")
    assert isinstance(handler, logging.handlers.RotatingFileHandler)
    assert handler.maxBytes == 1024 * 1024 and handler.backupCount == 5
    assert handler.encoding == "utf-8" and handler.level == logging.INFO


def test_another_folder_replaces_the_file_handler(tmp_path):
    configure_logging(tmp_path / "a")
    configure_logging(tmp_path / "b")
    assert [h.baseFilename for h in app_log_handlers("file")] == [str(tmp_path / "b" / LOG_FILE_NAME)]


def test_without_stderr_it_configures_and_writes_the_file(logs_dir, monkeypatch):
    monkeypatch.setattr(sys, "stderr", None)
    path = configure_logging(logs_dir)
    logging.getLogger("kiraos_desktop").error("written with no console")
    flush_logs()
    assert app_log_handlers("console") == []
    assert "written with no console" in path.read_text(encoding="utf-8")


def test_a_console_that_goes_away_later_is_not_written_to(logs_dir, monkeypatch):
    configure_logging(logs_dir)
    monkeypatch.setattr(sys, "stderr", None)
    logging.getLogger("kiraos_desktop").error("after the console closed")  # must not raise
    flush_logs()
    assert "after the console closed" in (logs_dir / LOG_FILE_NAME).read_text(encoding="utf-8")


def test_an_unwritable_logs_dir_falls_back_to_the_console_and_says_so_once(tmp_path, capsys):
    blocker = tmp_path / "logs"
    blocker.write_text("a file where the folder should be", encoding="utf-8")  # works even as root
    assert configure_logging(blocker) is None
    assert configure_logging(blocker) is None
    assert app_log_handlers("file") == [] and len(app_log_handlers("console")) == 1
    logging.getLogger("kiraos_desktop").error("still reported")
    err = capsys.readouterr().err
    assert err.count("cannot write a log file in") == 1 and "logging to the console only" in err
    assert "still reported" in err


def test_an_unopenable_log_file_does_not_raise_without_a_console(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stderr", None)
    (tmp_path / "logs" / LOG_FILE_NAME).mkdir(parents=True)  # a folder where the file should be
    assert configure_logging(tmp_path / "logs") is None
    assert app_log_handlers("file") == [] and app_log_handlers("console") == []
    logging.getLogger("kiraos_desktop").error("nowhere to go")


def test_uncaught_exception_in_a_thread_is_logged_and_chained(logs_dir):
    seen = []
    threading.excepthook = lambda args: seen.append(args.exc_type)
    configure_logging(logs_dir)

    def fail():
        raise RuntimeError("thread went wrong")

    thread = threading.Thread(target=fail, name="kiraos-worker")
    thread.start()
    thread.join()
    flush_logs()
    text = (logs_dir / LOG_FILE_NAME).read_text(encoding="utf-8")
    assert "ERROR kiraos_desktop [kiraos-worker] uncaught exception in thread kiraos-worker" in text
    assert "RuntimeError: thread went wrong" in text
    assert seen == [RuntimeError]


def test_uncaught_exception_in_the_main_thread_is_logged_and_chained(logs_dir, capsys):
    seen = []
    sys.excepthook = lambda *info: seen.append(info[0])
    configure_logging(logs_dir)
    try:
        raise KeyError("main went wrong")
    except KeyError:
        sys.excepthook(*sys.exc_info())
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())
    flush_logs()
    text = (logs_dir / LOG_FILE_NAME).read_text(encoding="utf-8")
    assert "CRITICAL kiraos_desktop [MainThread] uncaught exception" in text
    assert "KeyError: 'main went wrong'" in text and "KeyboardInterrupt" not in text
    assert seen == [KeyError, KeyboardInterrupt]
    assert "main went wrong" not in capsys.readouterr().err  # the chained hook prints it, not our console


def test_the_root_logger_stays_usable(logs_dir, caplog):
    configure_logging(logs_dir)
    with caplog.at_level(logging.WARNING):
        logging.getLogger("kiraos_desktop.core.watcher").warning("seen by pytest too")
    assert "seen by pytest too" in caplog.text
