"""Helpers for core tests: engines on temporary data dirs, the plugin's own DDL, a clean root logger."""
from __future__ import annotations

import logging
import sqlite3
import sys
import threading
from pathlib import Path

import pytest

from kiraos_desktop.core import app_log
from kiraos_desktop.core.engine import Engine

# The KiraOS plugin 1.3 schema, as its documentation gives it.
PLUGIN_DDL = """
CREATE TABLE user_profiles (
    user_id TEXT NOT NULL,
    memory_key TEXT NOT NULL,
    memory_value TEXT NOT NULL,
    updated_at DATETIME DEFAULT CURRENT_TIMESTAMP,
    confidence REAL DEFAULT 0.5,
    category TEXT DEFAULT 'basic',
    expires_at DATETIME DEFAULT NULL,
    PRIMARY KEY (user_id, memory_key)
);
CREATE TABLE event_logs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    event_summary TEXT NOT NULL,
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX idx_event_logs_user ON event_logs (user_id, created_at DESC);
"""

# The tables as KiraOS plugin 2.0 creates them (its db.py at tag v2.0.0): INTEGER expiries, the event tag.
PLUGIN2_DDL = """
CREATE TABLE user_profiles (
    user_id      TEXT NOT NULL,
    memory_key   TEXT NOT NULL,
    memory_value TEXT NOT NULL,
    updated_at   DATETIME DEFAULT CURRENT_TIMESTAMP,
    confidence   REAL DEFAULT 0.5,
    category     TEXT DEFAULT 'basic',
    expires_at   INTEGER DEFAULT NULL,
    PRIMARY KEY (user_id, memory_key)
);
CREATE TABLE event_logs (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id       TEXT NOT NULL,
    event_summary TEXT NOT NULL,
    created_at    DATETIME DEFAULT CURRENT_TIMESTAMP,
    tag           TEXT DEFAULT NULL
);
CREATE INDEX idx_event_logs_user ON event_logs (user_id, created_at DESC);
"""

# Plugin versions before 1.2 had neither categories, confidence nor TTLs.
OLD_PLUGIN_DDL = """
CREATE TABLE user_profiles (
    user_id TEXT NOT NULL,
    memory_key TEXT NOT NULL,
    memory_value TEXT NOT NULL,
    updated_at DATETIME DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (user_id, memory_key)
);
CREATE TABLE event_logs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    event_summary TEXT NOT NULL,
    created_at DATETIME DEFAULT CURRENT_TIMESTAMP
);
"""


def make_engine(data_dir: Path, **settings) -> Engine:
    engine = Engine.open(data_dir=data_dir)
    if settings:
        engine.update_settings(engine.settings.replace(**settings))
    return engine


def plugin_db(path: Path, ddl: str = PLUGIN_DDL) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(ddl)
    conn.commit()
    return conn


@pytest.fixture(autouse=True)
def restore_logging(monkeypatch):
    """Take app_log's handlers off the root logger again, and put back its level and both excepthooks."""
    root = logging.getLogger()
    level = root.level
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    yield
    for handler in list(root.handlers):
        if getattr(handler, app_log._ROLE, None):
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def app_log_handlers(role: str) -> list[logging.Handler]:
    """The root logger's handlers that app_log installed in that role ("file" or "console")."""
    return [h for h in logging.getLogger().handlers if getattr(h, app_log._ROLE, None) == role]


def flush_logs() -> None:
    for handler in logging.getLogger().handlers:
        handler.flush()


class WriterHolder:
    """Another thread inside a store batch (it wrote `user_id`/`key` = "held") until release()."""

    def __init__(self, store, user_id: str = "holder", key: str = "k"):
        self._inside, self._release = threading.Event(), threading.Event()

        def hold():
            with store.batch("gui") as batch:
                batch.set_profile(user_id, key, "held")
                self._inside.set()
                self._release.wait(10)

        self._thread = threading.Thread(target=hold)

    def __enter__(self) -> "WriterHolder":
        self._thread.start()
        assert self._inside.wait(10), "the holding thread never got the write lock"
        return self

    def release(self) -> None:
        self._release.set()

    def __exit__(self, *exc) -> None:
        self._release.set()
        self._thread.join(10)


def run_threads(works) -> list[BaseException]:
    """Runs each callable on its own thread, waits for all, and returns what they raised."""
    errors: list[BaseException] = []

    def guarded(work):
        try:
            work()
        except BaseException as exc:  # reported by the caller's assertion
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(work,)) for work in works]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors
