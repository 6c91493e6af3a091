"""Validators for typed fields and a small bubble that shows a field's error right under it."""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QLabel, QLineEdit, QWidget

from kiraos_desktop.core.memory.records import MAX_EVENT_CHARS, MAX_VALUE_CHARS
from kiraos_desktop.ui.users.expiry import ExpiryInputError, parse_expiry_input

Check = Callable[[str], str]  # returns "" when the text is acceptable, else the message


class CheckValidator(QValidator):
    """Acceptable when `check(text)` returns "", otherwise Intermediate (typing may continue)."""

    def __init__(self, check: Check, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._check = check

    def message(self, text: str) -> str:
        return self._check(text)

    def validate(self, text: str, pos: int):
        state = QValidator.State.Acceptable if not self._check(text) else QValidator.State.Intermediate
        return state, text, pos


def check_expiry_text(text: str) -> str:
    try:
        parse_expiry_input(text)
    except ExpiryInputError as exc:
        return str(exc)
    return ""


def _required(limit: int) -> Check:
    def check(text: str) -> str:
        if not text.strip():
            return QCoreApplication.translate("FieldValidation", "must not be empty")
        if len(text) > limit:
            return QCoreApplication.translate("FieldValidation", "at most {n} characters").format(n=limit)
        return ""
    return check


def parse_confidence_text(text: str) -> float | None:
    """`0.8`, `.8`, `1` -> the number; anything else, or a number outside [0, 1], -> None (never clamped)."""
    try:
        number = float(text.strip().replace(",", "."))
    except ValueError:
        return None
    return number if 0.0 <= number <= 1.0 else None


def check_confidence_text(text: str) -> str:
    if parse_confidence_text(text) is None:
        return QCoreApplication.translate("FieldValidation", "“{text}” is not a confidence: use a number "
                                          "between 0 and 1, such as 0.8").format(text=text.strip())
    return ""


check_value_text = _required(MAX_VALUE_CHARS)
check_event_text = _required(MAX_EVENT_CHARS)
check_key_text = _required(256)


class FieldErrorBubble(QLabel):
    """A red note placed under a field (an item editor or a form field) while its text is invalid."""

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self.setObjectName("fieldErrorBubble")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setStyleSheet("QLabel#fieldErrorBubble { background: #b3261e; color: white; padding: 4px 6px;"
                           " border-radius: 4px; }")
        self.hide()
        self._field: QWidget | None = None

    def show_for(self, field: QWidget, message: str) -> None:
        if self._field is not field:
            if self._field is not None:
                self._field.removeEventFilter(self)
            self._field = field
            field.installEventFilter(self)
            field.destroyed.connect(self._on_field_destroyed)
        if not message:
            self.hide()
            return
        self.setText(message)
        host = self.parentWidget()
        width = min(max(field.width(), 260), max(120, host.width() - 8))
        self.setFixedWidth(width)
        self.adjustSize()
        below = field.mapTo(host, QPoint(0, field.height() + 2))
        x = max(0, min(below.x(), host.width() - width))
        y = below.y()
        if y + self.height() > host.height():  # no room below: above the field
            y = field.mapTo(host, QPoint(0, 0)).y() - self.height() - 2
        self.move(x, max(0, y))
        self.show()
        self.raise_()

    def _on_field_destroyed(self, *_args) -> None:
        self._field = None
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._field and event.type() == QEvent.Type.Hide:
            self.hide()
        return False


def mark_invalid(field: QLineEdit, message: str) -> None:
    """Red frame and tooltip on an invalid field; cleared when the message is empty."""
    field.setProperty("invalid", bool(message))
    field.setToolTip(message)
    field.setStyleSheet("border: 1px solid #d33;" if message else "")
