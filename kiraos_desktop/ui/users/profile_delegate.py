"""Item editors for profile entries: value and expiry with validation at the field, category, confidence."""
from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import QComboBox, QLineEdit, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from kiraos_desktop.core.memory.records import CATEGORIES, MAX_VALUE_CHARS
from kiraos_desktop.ui.users.field_validation import (
    CheckValidator,
    FieldErrorBubble,
    check_confidence_text,
    check_expiry_text,
    check_value_text,
    mark_invalid,
    parse_confidence_text,
)
from kiraos_desktop.ui.users.expiry import example_date
from kiraos_desktop.ui.users.text_dialog import needs_dialog
from kiraos_desktop.ui.users.profile_model import COL_CATEGORY, COL_CONFIDENCE, COL_EXPIRES, COL_VALUE


class ProfileDelegate(QStyledItemDelegate):
    """Invalid text keeps the editor open on Enter (the validator refuses it) and is never written."""

    input_refused = Signal(str, str)  # field, message: an invalid edit was discarded
    long_text_requested = Signal(QModelIndex)  # a long or multi-line value: edit it in the dialog

    def __init__(self, bubble_host: QWidget, parent=None) -> None:
        super().__init__(parent)
        self._bubble = FieldErrorBubble(bubble_host)

    @property
    def bubble(self) -> FieldErrorBubble:
        return self._bubble

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem,
                     index: QModelIndex | QPersistentModelIndex) -> QWidget | None:
        column = index.column()
        if column == COL_VALUE and needs_dialog(index.data(Qt.ItemDataRole.EditRole)):
            self.long_text_requested.emit(QModelIndex(index))
            return None
        if column in (COL_VALUE, COL_EXPIRES, COL_CONFIDENCE):
            editor = QLineEdit(parent)
            editor.setFrame(False)
            if column == COL_VALUE:
                editor.setObjectName("valueEditor")
                editor.setMaxLength(MAX_VALUE_CHARS)
                editor.setValidator(CheckValidator(check_value_text, editor))
            elif column == COL_CONFIDENCE:
                editor.setObjectName("confidenceEditor")
                editor.setPlaceholderText(self.tr("0 to 1, e.g. 0.8"))
                editor.setValidator(CheckValidator(check_confidence_text, editor))
            else:
                editor.setObjectName("expiryEditor")
                editor.setPlaceholderText(self.tr("30d, 12h, {date} … empty = never").format(date=example_date()))
                editor.setValidator(CheckValidator(check_expiry_text, editor))
            editor.textEdited.connect(lambda _text, e=editor: self._on_editor_text_edited(e))
            return editor
        if column == COL_CATEGORY:
            combo = QComboBox(parent)
            combo.setObjectName("categoryEditor")
            combo.addItems(list(CATEGORIES))
            combo.activated.connect(lambda _i, c=combo: self._on_combo_activated(c))
            return combo
        return None

    def setEditorData(self, editor: QWidget, index: QModelIndex | QPersistentModelIndex) -> None:
        value = index.data(Qt.ItemDataRole.EditRole)
        if isinstance(editor, QLineEdit) and index.column() == COL_CONFIDENCE:
            editor.setText(f"{float(value or 0.0):.2f}")
        elif isinstance(editor, QLineEdit):
            editor.setText("" if value is None else str(value))
        elif isinstance(editor, QComboBox):
            editor.setCurrentIndex(max(0, editor.findText(str(value))))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel,
                     index: QModelIndex | QPersistentModelIndex) -> None:
        if isinstance(editor, QLineEdit):
            message = editor.validator().message(editor.text())
            if message:
                field = {COL_EXPIRES: "expires_at", COL_CONFIDENCE: "confidence"}.get(index.column(), "value")
                self.input_refused.emit(field, message)
                return
            if index.column() == COL_CONFIDENCE:
                model.setData(index, round(parse_confidence_text(editor.text()), 2))
            else:
                model.setData(index, editor.text())
        elif isinstance(editor, QComboBox):
            model.setData(index, editor.currentText())

    def destroyEditor(self, editor: QWidget, index: QModelIndex | QPersistentModelIndex) -> None:
        self._bubble.hide()
        super().destroyEditor(editor, index)

    def _on_editor_text_edited(self, editor: QLineEdit) -> None:
        message = editor.validator().message(editor.text())
        mark_invalid(editor, message)
        self._bubble.show_for(editor, message)

    def _on_combo_activated(self, combo: QComboBox) -> None:
        self.commitData.emit(combo)
        self.closeEditor.emit(combo, QStyledItemDelegate.EndEditHint.NoHint)
