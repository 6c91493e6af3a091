"""Table model of a skill's parameters (name, type, description, required, enum) and its type delegate."""
from __future__ import annotations

import copy

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QComboBox, QStyledItemDelegate, QWidget

from kiraos_desktop.core.skills.manifest_fields import PARAM_TYPES, ParamRow, enum_from_text, enum_to_text, type_to_text

NAME, TYPE, DESCRIPTION, REQUIRED, ENUM = range(5)
_Index = QModelIndex | QPersistentModelIndex


class ParametersModel(QAbstractTableModel):
    """Rows of ParamRow. Edits that would break the schema (an empty or repeated name, an enum
    value that does not fit the type) are refused: setData returns False."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list[ParamRow] = []

    def _headers(self) -> list[str]:
        """Column titles, translated when asked (a language switch only needs headerDataChanged)."""
        return [self.tr("Name"), self.tr("Type"), self.tr("Description"), self.tr("Required"), self.tr("Enum values")]

    # ------------------------------------------------------------------ content

    def rows(self) -> list[ParamRow]:
        return copy.deepcopy(self._rows)

    def set_rows(self, rows: list[ParamRow]) -> None:
        self.beginResetModel()
        self._rows = copy.deepcopy(rows)
        self.endResetModel()

    def names(self) -> list[str]:
        return [r.name for r in self._rows]

    def add_parameter(self, name: str | None = None, kind: str = "string") -> int:
        """Append a parameter (a free name like `param2` when none is given); returns its row."""
        if not name or name in self.names():
            base = name or "param"
            number = 1
            name = base if base not in self.names() else f"{base}{number + 1}"
            while name in self.names():
                number += 1
                name = f"{base}{number}"
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append(ParamRow(name, kind, ""))
        self.endInsertRows()
        return row

    def remove_parameter(self, row: int) -> bool:
        if not 0 <= row < len(self._rows):
            return False
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._rows[row]
        self.endRemoveRows()
        return True

    def move_parameter(self, row: int, delta: int) -> bool:
        target = row + delta
        if not (0 <= row < len(self._rows) and 0 <= target < len(self._rows)) or delta == 0:
            return False
        destination = target + 1 if delta > 0 else target
        self.beginMoveRows(QModelIndex(), row, row, QModelIndex(), destination)
        self._rows.insert(target, self._rows.pop(row))
        self.endMoveRows()
        return True

    def row_of(self, name: str) -> int:
        names = self.names()
        return names.index(name) if name in names else -1

    # ------------------------------------------------------------------ Qt model

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(self._headers())

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt override)
                   role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole \
                and 0 <= section < len(self._headers()):
            return self._headers()[section]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == REQUIRED:
            return base | Qt.ItemFlag.ItemIsUserCheckable
        return base | Qt.ItemFlag.ItemIsEditable

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row, column = self._rows[index.row()], index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if column == NAME:
                return row.name
            if column == TYPE:
                return type_to_text(row.type)
            if column == DESCRIPTION:
                return row.description
            if column == ENUM:
                return enum_to_text(row.enum)
            return None
        if role == Qt.ItemDataRole.CheckStateRole and column == REQUIRED:
            return Qt.CheckState.Checked if row.required else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == ENUM:
                return self.tr("Allowed values separated by commas; leave empty for any value.")
            if column == REQUIRED:
                return self.tr("A call without this argument is refused.")
            if column == DESCRIPTION:
                return row.description or None
        return None

    def setData(self, index: _Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return False
        row, column = self._rows[index.row()], index.column()
        if role == Qt.ItemDataRole.CheckStateRole and column == REQUIRED:
            checked = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, 2, True)
            if checked == row.required:
                return True
            row.required = checked
        elif role == Qt.ItemDataRole.EditRole and column != REQUIRED:
            if not self._set_text(row, column, "" if value is None else str(value)):
                return False
        else:
            return False
        self.dataChanged.emit(index.siblingAtColumn(0), index.siblingAtColumn(ENUM))
        return True

    def _set_text(self, row: ParamRow, column: int, text: str) -> bool:
        if column == NAME:
            name = text.strip()
            if not name or (name != row.name and name in self.names()):
                return False
            row.name = name
        elif column == TYPE:
            kind = text.strip()
            if kind not in PARAM_TYPES:
                return kind == type_to_text(row.type)  # an unusual type kept as it was
            row.type = kind
            if row.enum:
                try:
                    row.enum = enum_from_text(enum_to_text(row.enum), kind)
                except ValueError:
                    row.enum = None
        elif column == DESCRIPTION:
            row.description = text
        elif column == ENUM:
            try:
                row.enum = enum_from_text(text, row.type)
            except ValueError:
                return False
        return True


class TypeDelegate(QStyledItemDelegate):
    """Edits the Type column with a combo box of the four types the argument form supports."""

    def createEditor(self, parent: QWidget, option, index: QModelIndex) -> QWidget:  # noqa: N802
        combo = QComboBox(parent)
        combo.addItems(list(PARAM_TYPES))
        return combo

    def setEditorData(self, editor: QWidget, index: QModelIndex) -> None:  # noqa: N802
        current = index.data(Qt.ItemDataRole.EditRole)
        if isinstance(editor, QComboBox):
            if current not in PARAM_TYPES:
                editor.addItem(current)
            editor.setCurrentText(current)

    def setModelData(self, editor: QWidget, model, index: QModelIndex) -> None:  # noqa: N802
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)
