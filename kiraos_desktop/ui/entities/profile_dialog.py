"""The form for one field of a 3.x entity's profile.json: a text, a number, or a list or object as rows."""
from __future__ import annotations

import json
from typing import Any

from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.storage.tree.files import PROFILE_FIELDS

#: The fields an operator edits (entity_id and entity_type say what the file is; last_interaction is the plugin's).
EDITABLE_FIELDS = tuple(f for f in PROFILE_FIELDS if f not in ("entity_id", "entity_type", "last_interaction"))
_TEXT, _NUMBER, _ROWS = 0, 1, 2


def item_text(value: Any) -> str:
    """A list item or object value as a cell shows it: text as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def item_value(text: str) -> Any:
    """A cell back into a value: JSON where it reads as a number, list, object, true/false or null, else text."""
    stripped = text.strip()
    if stripped[:1] in ("[", "{") or stripped in ("true", "false", "null") or _is_number(stripped):
        try:
            return json.loads(stripped)
        except ValueError:
            pass
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class ProfileFieldDialog(QDialog):
    """Choose a field; edit it as a line, a number, or rows (one per list item, key and value per entry)."""

    def __init__(self, parent: QWidget | None, title: str, profile: dict[str, Any], field: str = "name") -> None:
        super().__init__(parent)
        self.setObjectName("profileFieldDialog")
        self.setWindowTitle(title)
        self.setMinimumSize(480, 360)
        self._profile = profile
        self.field = QComboBox()
        for name in EDITABLE_FIELDS:
            self.field.addItem(name, name)
        self.text = QLineEdit()
        self.number = QSpinBox()
        self.number.setRange(0, 2 ** 31 - 1)
        self.rows = QTableWidget(0, 1)
        self.rows.setObjectName("profileRows")
        self.rows.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.rows.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.add_row = QPushButton(self.tr("Add &row"))
        self.add_row.clicked.connect(self._on_add_row_clicked)
        self.remove_row = QPushButton(self.tr("&Remove row"))
        self.remove_row.clicked.connect(self._on_remove_row_clicked)
        rows_page = QWidget()
        rows_layout = QVBoxLayout(rows_page)
        rows_layout.setContentsMargins(0, 0, 0, 0)
        rows_layout.addWidget(self.rows, 1)
        buttons_row = QHBoxLayout()
        buttons_row.addWidget(self.add_row)
        buttons_row.addWidget(self.remove_row)
        buttons_row.addStretch(1)
        rows_layout.addLayout(buttons_row)
        self.pages = QStackedWidget()
        for page in (self.text, self.number, rows_page):
            self.pages.addWidget(page)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        form = QFormLayout()
        form.addRow(self.tr("&Field:"), self.field)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.hint)
        layout.addWidget(buttons)
        self.field.currentIndexChanged.connect(self._on_field_changed)
        self.field.setCurrentIndex(max(0, self.field.findData(field)))
        self._on_field_changed()

    def _kind(self) -> type:
        return PROFILE_FIELDS[self.field.currentData()][0]

    def _on_field_changed(self, *_args) -> None:
        name, kind = self.field.currentData(), self._kind()
        value = self._profile.get(name)
        if kind is str:
            self.pages.setCurrentIndex(_TEXT)
            self.text.setText(value if isinstance(value, str) else "")
            self.hint.setText("")
            return
        if kind is int:
            self.pages.setCurrentIndex(_NUMBER)
            self.number.setValue(value if isinstance(value, int) and not isinstance(value, bool) else 0)
            self.hint.setText("")
            return
        self.pages.setCurrentIndex(_ROWS)
        is_object = kind is dict
        self.rows.setColumnCount(2 if is_object else 1)
        self.rows.setHorizontalHeaderLabels([self.tr("Key"), self.tr("Value")] if is_object else [self.tr("Item")])
        entries = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value or []] \
            if isinstance(value, list) else []
        self.rows.setRowCount(0)
        for key, item in entries:
            self._append_row(key, item_text(item))
        self.hint.setText(self.tr("An object's value that reads as JSON (a number, [list], {object}, true, false) "
                                  "is kept as that, anything else as text; list items are texts. Rows with an "
                                  "empty key or item are left out.") if is_object else
                          self.tr("One item per row; rows left empty are left out."))

    def _append_row(self, key: str | None, text: str) -> None:
        row = self.rows.rowCount()
        self.rows.insertRow(row)
        if self.rows.columnCount() == 2:
            self.rows.setItem(row, 0, QTableWidgetItem(key or ""))
            self.rows.setItem(row, 1, QTableWidgetItem(text))
        else:
            self.rows.setItem(row, 0, QTableWidgetItem(text))

    def _on_add_row_clicked(self) -> None:
        self._append_row("", "")
        self.rows.setCurrentCell(self.rows.rowCount() - 1, 0)
        self.rows.editItem(self.rows.item(self.rows.rowCount() - 1, 0))

    def _on_remove_row_clicked(self) -> None:
        for row in sorted({index.row() for index in self.rows.selectedIndexes()}, reverse=True):
            self.rows.removeRow(row)

    def _cell(self, row: int, column: int) -> str:
        item = self.rows.item(row, column)
        return item.text() if item is not None else ""

    def value(self) -> tuple[str, Any]:
        """(the field, its new value)."""
        name, kind = self.field.currentData(), self._kind()
        if kind is str:
            return name, self.text.text().strip()
        if kind is int:
            return name, self.number.value()
        if kind is dict:
            return name, {self._cell(r, 0).strip(): item_value(self._cell(r, 1)) for r in range(self.rows.rowCount())
                          if self._cell(r, 0).strip()}
        # List items are texts: the plugin joins traits, facts and aliases as texts in its prompt.
        return name, [self._cell(r, 0).strip() for r in range(self.rows.rowCount()) if self._cell(r, 0).strip()]


def ask_profile_field(parent: QWidget | None, title: str, profile: dict[str, Any],
                      field: str = "name") -> tuple[str, Any] | None:
    dialog = ProfileFieldDialog(parent, title, profile, field)
    try:
        return dialog.value() if dialog.exec() == QDialog.DialogCode.Accepted else None
    finally:
        dialog.deleteLater()
