"""Helpers for the window tests: engines with sample memory, scripted prompts and database snapshots."""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from PySide6.QtCore import QSettings

from kiraos_desktop.core.engine import Engine

OFFSCREEN_NOTE = "This plugin does not support propagateSizeHints"


def open_engine(data_dir: Path) -> Engine:
    return Engine.open(data_dir=data_dir)


def seed(engine: Engine, users: int = 3) -> list[str]:
    """u1..uN with a few entries in several categories and a few events (actor cli: not undoable)."""
    ids = []
    store = engine.store
    for n in range(1, users + 1):
        uid = f"u{n}"
        with store.batch("cli") as batch:
            batch.set_profile(uid, "昵称", f"小明{n}", confidence=0.9, category="basic")
            batch.set_profile(uid, "城市", "北京", confidence=0.8, category="basic")
            batch.set_profile(uid, "喜欢猫", "是", confidence=0.6, category="preference")
            batch.set_profile(uid, "好友", "小红", confidence=0.4, category="social")
            batch.add_event(uid, "完成半马", created_at="2025-03-01T10:00:00")
            batch.add_event(uid, "通过面试", created_at="2025-02-28T09:00:00")
        ids.append(uid)
    return ids


def snapshot(db_path: Path) -> tuple[list, list]:
    """Every profile row and event row, read with plain sqlite3 (what undo must restore exactly)."""
    conn = sqlite3.connect(str(db_path))
    try:
        profiles = conn.execute("SELECT user_id, memory_key, memory_value, updated_at, confidence, category, "
                                "expires_at FROM user_profiles ORDER BY user_id, memory_key").fetchall()
        events = conn.execute("SELECT id, user_id, event_summary, created_at FROM event_logs "
                              "ORDER BY id").fetchall()
    finally:
        conn.close()
    return profiles, events


def ui_settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)


@contextmanager
def shown_window(qtbot, engine: Engine, tmp_path: Path, prompts=None) -> Iterator:
    """The main window on `engine`, shown and exposed; closed when the block ends.

    `prompts` None keeps the real message boxes (tests that drive them through the event loop)."""
    from kiraos_desktop.ui.main_window import MainWindow

    window = MainWindow(engine, None, ui_settings(tmp_path)) if prompts is None else \
        MainWindow(engine, None, ui_settings(tmp_path), prompts)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        yield window
    finally:
        window.close()


class ScriptedPrompts:
    """Stands in for ui.prompts.Prompts: answers are set by the test, questions are recorded."""

    def __init__(self, confirm: bool = False, save_path: str = "", folder: str = "") -> None:
        self.answer = confirm
        self.save_path = save_path
        self.folder_path = folder
        self.asked: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.infos: list[str] = []

    def confirm(self, parent, title, text, ok_text=""):
        self.asked.append((title, text))
        return self.answer

    def info(self, parent, title, text):
        self.infos.append(text)

    def error(self, parent, title, text):
        self.errors.append(text)

    def save_file(self, parent, caption, path, filters):
        return self.save_path

    def open_file(self, parent, caption, folder, filters):
        return self.save_path

    def folder(self, parent, caption, start):
        return self.folder_path


def contrast(fore, back) -> float:
    """WCAG's contrast ratio of two QColors (text wants 4.5:1 or more)."""
    def luminance(color) -> float:
        def channel(c: float) -> float:
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
        return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF())
    high, low = sorted((luminance(fore), luminance(back)), reverse=True)
    return (high + 0.05) / (low + 0.05)
