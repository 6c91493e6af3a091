"""Dialogs that add a profile entry or an event; every error is shown under the field it concerns."""
from __future__ import annotations

from datetime import datetime
from typing import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.memory.records import StoreUnavailable
from kiraos_desktop.core.memory.records import (
    CATEGORIES,
    MAX_EVENT_CHARS,
    MAX_USER_ID_CHARS,
    MAX_VALUE_CHARS,
    LimitError,
    ValidationError,
)
from kiraos_desktop.core.timeutil import parse_timestamp
from kiraos_desktop.ui.users.expiry import ExpiryInputError, example_date, parse_expiry_input
from kiraos_desktop.ui.users.field_validation import (
    check_confidence_text,
    check_event_text,
    check_key_text,
    check_value_text,
    mark_invalid,
    parse_confidence_text,
)

ProfileSubmit = Callable[[str, str, str, float, str | None], None]
EventSubmit = Callable[[str], None]


def submit_on_ctrl_enter(dialog: QDialog, submit: Callable[[], None]) -> None:
    """Ctrl+Enter (either Enter key) submits a dialog whose text field takes plain Enter as a new line."""
    for keys in ("Ctrl+Return", "Ctrl+Enter"):
        shortcut = QShortcut(QKeySequence(keys), dialog)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(submit)


def _error_label() -> QLabel:
    label = QLabel()
    label.setObjectName("fieldError")
    label.setWordWrap(True)
    label.setStyleSheet("color: #d33;")
    label.hide()
    return label


def _fit_wrapped(dialog: QDialog, label: QLabel, width: int) -> None:
    """A wrapped label in a QFormLayout row gets one line's height (the form does not ask it for its
    height at its width): give it the height of all its lines at the field column's `width`, and
    let the dialog grow to hold it."""
    label.setMinimumHeight(label.heightForWidth(max(width, 1)) if label.text() else 0)
    dialog.layout().activate()
    dialog.resize(dialog.width(), max(dialog.height(), dialog.sizeHint().height()))


class AddProfileDialog(QDialog):
    """`submit(key, value, category, confidence, expires_at)` writes; it raises to refuse.

    With `user_exists` instead of a user id it is the New user dialog: the id is asked first (one
    that has memory already is refused) and read by `submit` from `user_id()`.
    """

    def __init__(self, user_id: str | None, submit: ProfileSubmit, existing_keys: set[str],
                 parent: QWidget | None = None, *, user_exists: Callable[[str], bool] | None = None) -> None:
        super().__init__(parent)
        if user_id is None:
            self.setWindowTitle(self.tr("New user"))
        else:
            self.setWindowTitle(self.tr("Add profile entry for {user}").format(user=user_id))
        self._submit = submit
        self._existing = existing_keys
        self._user_exists = user_exists
        self.user_edit = QLineEdit(user_id or "")
        self.user_edit.setObjectName("newUserId")
        self.user_edit.setMaxLength(MAX_USER_ID_CHARS)
        self.user_edit.setPlaceholderText(self.tr("the id the bot uses, e.g. qq_123456"))
        self.key_edit = QLineEdit()
        self.key_edit.setMaxLength(256)
        self.value_edit = QLineEdit()
        self.value_edit.setMaxLength(MAX_VALUE_CHARS)
        self.category_combo = QComboBox()
        self.category_combo.addItems(list(CATEGORIES))
        self.confidence_edit = QLineEdit("0.80")
        self.confidence_edit.setPlaceholderText(self.tr("0 to 1, e.g. 0.8"))
        self.expiry_edit = QLineEdit()
        self.expiry_edit.setPlaceholderText(
            self.tr("empty = never; or 30m, 12h, 7d, 2w, 1d12h, {date}").format(date=example_date()))
        self.errors = {name: _error_label()
                       for name in ("user_id", "key", "value", "category", "confidence", "expires_at")}
        self.general_error = _error_label()
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        if user_id is None:
            form.addRow(self.tr("User id"), self.user_edit)
            form.addRow("", self.errors["user_id"])
            form.addRow("", QLabel(self.tr("and the first thing to remember about them:")))
        for label, field, name in ((self.tr("Key"), self.key_edit, "key"),
                                   (self.tr("Value"), self.value_edit, "value"),
                                   (self.tr("Category"), self.category_combo, "category"),
                                   (self.tr("Confidence"), self.confidence_edit, "confidence"),
                                   (self.tr("Expires"), self.expiry_edit, "expires_at")):
            form.addRow(label, field)
            form.addRow("", self.errors[name])
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Add"))
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.general_error)
        layout.addWidget(self.buttons)
        self.resize(460, self.sizeHint().height())
        for edit in (self.user_edit, self.key_edit, self.value_edit, self.confidence_edit, self.expiry_edit):
            edit.textEdited.connect(self._on_field_text_edited)

    def show_error(self, field: str, message: str) -> None:
        label = self.errors.get(field, self.general_error)
        label.setText(message)
        label.setVisible(bool(message))
        if message:
            _fit_wrapped(self, label, self.key_edit.width())
        edit = {"user_id": self.user_edit, "key": self.key_edit, "value": self.value_edit,
                "confidence": self.confidence_edit,
                "expires_at": self.expiry_edit}.get(field)
        if edit is not None:
            mark_invalid(edit, message)
            if message:
                edit.setFocus()

    def _clear_errors(self) -> None:
        for name in self.errors:
            self.show_error(name, "")
        self.general_error.hide()

    def _on_field_text_edited(self, _text: str) -> None:
        self._clear_errors()

    def user_id(self) -> str:
        return self.user_edit.text().strip()

    def _on_buttons_accepted(self) -> None:
        self._clear_errors()
        if self._user_exists is not None:
            user_id = self.user_id()
            if not user_id:
                self.show_error("user_id", QCoreApplication.translate("FieldValidation", "must not be empty"))
                return
            if self._user_exists(user_id):
                self.show_error("user_id", self.tr("{user} already has memory: select them in the list and "
                                                   "add the entry there").format(user=user_id))
                return
        key, value = self.key_edit.text().strip(), self.value_edit.text()
        confidence_text = self.confidence_edit.text()
        for field, message in (("key", check_key_text(key)), ("value", check_value_text(value)),
                               ("confidence", check_confidence_text(confidence_text))):
            if message:
                self.show_error(field, message)
                return
        if key in self._existing:
            self.show_error("key", self.tr("this user already has “{key}”; edit it in the table").format(key=key))
            return
        try:
            expires_at = parse_expiry_input(self.expiry_edit.text())
        except ExpiryInputError as exc:
            self.show_error("expires_at", str(exc))
            return
        if expires_at is not None and parse_timestamp(expires_at) <= datetime.now():
            # An entry born expired is hidden at once and reaches no bot: surely not what was meant.
            self.show_error("expires_at", self.tr("“{text}” is in the past: the entry would expire at once. "
                                                  "Use a later date or a TTL such as 7d, or leave it empty "
                                                  "for “never”.").format(text=self.expiry_edit.text().strip()))
            return
        try:
            self._submit(key, value, self.category_combo.currentText(), round(parse_confidence_text(confidence_text), 2),
                         expires_at)
        except ValidationError as exc:
            self.show_error(exc.field, exc.message)
            return
        except StoreUnavailable:  # the window says why; the dialog stays open with what was typed
            return
        except LimitError as exc:
            message = str(exc)
            if exc.limit:
                message = self.tr("This user already has %n profile entries, the limit. Delete an entry, or raise "
                                  "“Profile entries per user” in Settings.", "", exc.limit)
            self.show_error("", message)
            return
        self.accept()


class AddEventDialog(QDialog):
    """`submit(summary)` writes; it raises ValidationError to refuse."""

    def __init__(self, user_id: str, submit: EventSubmit, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Add event for {user}").format(user=user_id))
        self._submit = submit
        self.summary_edit = QPlainTextEdit()
        self.summary_edit.setPlaceholderText(self.tr("What happened, in one or two sentences"))
        self.summary_edit.setTabChangesFocus(True)
        self.counter = QLabel()
        self.counter.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.error = _error_label()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Add"))
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(self.tr("Event")))
        layout.addWidget(self.summary_edit)
        layout.addWidget(self.counter)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.summary_edit.textChanged.connect(self._on_summary_text_changed)
        submit_on_ctrl_enter(self, self._on_buttons_accepted)
        self._on_summary_text_changed()
        self.resize(460, 240)

    def _on_summary_text_changed(self) -> None:
        length = len(self.summary_edit.toPlainText())
        self.counter.setText(self.tr("{n} / {max} characters").format(n=length, max=MAX_EVENT_CHARS))
        self.error.hide()

    def _on_buttons_accepted(self) -> None:
        text = self.summary_edit.toPlainText()
        message = check_event_text(text)
        if not message:
            try:
                self._submit(text)
            except ValidationError as exc:
                message = exc.message
            except StoreUnavailable:  # the window says why; the dialog stays open with the text
                return
        if message:
            self.error.setText(message)
            self.error.show()
            return
        self.accept()
