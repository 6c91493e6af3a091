"""Answers real modal boxes from a QTimer while the code under test sits in its nested event loops."""
from __future__ import annotations

import time
from typing import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QProgressDialog, QWidget


def busy_boxes() -> list[QProgressDialog]:
    """Every progress dialog that still exists (shown, hidden or waiting to show itself)."""
    return [w for w in QApplication.allWidgets() if isinstance(w, QProgressDialog) or w.objectName() == "busyBox"]


def visible_busy_boxes() -> list[QProgressDialog]:
    return [w for w in busy_boxes() if w.isVisible()]


class ModalDriver(QObject):
    """Every `interval_ms`, looks at the active modal widget and answers message boxes.

    A message box is left up for `linger_ms` (long enough for any delayed busy box to show
    itself over it), then answered with the button whose text is in `press` (else its default or
    escape button). While a message box is up, it records any busy box still existing or visible
    (`seen_alive`, `seen_over`). After `give_up_s` it closes every modal widget (so that a lock-up
    fails the test instead of hanging it) and sets `stuck`.
    """

    def __init__(self, press: tuple[str, ...] = (), linger_ms: int = 0, interval_ms: int = 10,
                 give_up_s: float = 20.0, on_box: Callable[[QMessageBox], None] | None = None) -> None:
        super().__init__()
        self.press = press
        self.linger_s = linger_ms / 1000
        self.on_box = on_box
        self.boxes: list[str] = []  # the text of every message box answered, in order
        self.seen_alive: list[str] = []
        self.seen_over: list[str] = []
        self.stuck = False
        self._deadline = time.monotonic() + give_up_s
        self._current: QWidget | None = None
        self._since = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _on_timer_timeout(self) -> None:
        if time.monotonic() > self._deadline:
            self.stuck = True
            for widget in QApplication.topLevelWidgets():
                if isinstance(widget, QDialog) and widget.isVisible():
                    widget.done(0)
            return
        box = next((w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()),
                   None)
        if box is None:
            self._current = None
            return
        if box is not self._current:
            self._current, self._since = box, time.monotonic()
        if busy_boxes():
            self.seen_alive.append(box.text())
        if visible_busy_boxes():
            self.seen_over.append(box.text())
        if time.monotonic() - self._since < self.linger_s:
            return
        self._current = None
        self.boxes.append(box.text())
        if self.on_box is not None:
            self.on_box(box)
        button = next((b for b in box.buttons() if b.text().replace("&", "") in self.press), None)
        button = button or box.defaultButton() or box.escapeButton()
        button.click()
