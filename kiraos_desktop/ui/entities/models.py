"""Qt models of a KiraOS 3.x tree: the entity list, one entity's memories, its profile as rows, its problems."""
from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from kiraos_desktop.core.storage.tree.files import Problem, TreeMemory
from kiraos_desktop.core.storage.tree.journal import JournalEntry, change_text
from kiraos_desktop.core.storage.tree.tree import EntitySummary
from kiraos_desktop.ui.entities.problem_texts import problem_text

_Index = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole
#: What sorting compares (numbers as numbers): UserRole on every model here.
SORT_ROLE = Qt.ItemDataRole.UserRole


class _RowsModel(QAbstractTableModel):
    """Immutable rows shown in columns; subclasses give the headers and each cell's text and sort key."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []

    def headers(self) -> list[str]:
        raise NotImplementedError

    def cell(self, row: Any, column: int) -> tuple[str, Any]:
        """(the text shown, the value sorted on)."""
        raise NotImplementedError

    def set_rows(self, rows: list[Any]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row_at(self, row: int) -> Any:
        return self._rows[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.headers())

    def data(self, index: _Index, role: int = _DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        if role in (_DISPLAY, SORT_ROLE):
            text, key = self.cell(self._rows[index.row()], index.column())
            return key if role == SORT_ROLE else text
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(self._rows[index.row()], index.column())
        return None

    def tooltip(self, row: Any, column: int) -> str:
        """The whole of a cell a narrow column cuts (its text, unless a subclass says more)."""
        return self.cell(row, column)[0]

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == _DISPLAY and 0 <= section < len(self.headers()):
            return self.headers()[section]
        return None


class EntityListModel(_RowsModel):
    """EntitySummary rows: type, id, name, memories per folder, archived, problems."""

    def headers(self) -> list[str]:
        return [self.tr("Type"), self.tr("ID"), self.tr("Name"), self.tr("Facts"), self.tr("Reflections"),
                self.tr("Archived"), self.tr("Problems")]

    def update_counts(self, rows: list[EntitySummary]) -> bool:
        """Take the counts of a reading pass over the same entities (the quick listing counts files
        and profile problems; the detail, the memories it could read): no reset, so the selection
        and the scroll stay. False (nothing changed) when the list is another one by now."""
        if [row.ref for row in rows] != [row.ref for row in self._rows]:
            return False
        self._rows = list(rows)
        if rows:
            self.dataChanged.emit(self.index(0, 3), self.index(len(rows) - 1, self.columnCount() - 1))
        return True

    def kind_label(self, kind: str) -> str:
        return {"user": self.tr("user"), "group": self.tr("group"), "channel": self.tr("channel"),
                "global": self.tr("bot (shared)"), "self": self.tr("bot (self)")}.get(kind, kind)

    def cell(self, row: EntitySummary, column: int) -> tuple[str, Any]:
        if column == 0:
            return self.kind_label(row.ref.kind), row.ref.kind
        if column == 1:
            return row.ref.id, row.ref.id
        if column == 2:
            return row.name, row.name
        number = [row.counts.get("facts", 0), row.counts.get("reflections", 0), row.archived, row.problems][column - 3]
        return str(number), number


class MemoryModel(_RowsModel):
    """TreeMemory rows: text, importance, tags, kind, time; the id and the source session in the text's
    tooltip (as columns they left the text no room at 1024 pixels)."""

    def headers(self) -> list[str]:
        return [self.tr("Text"), self.tr("Importance"), self.tr("Tags"), self.tr("Kind"), self.tr("Time")]

    def cell(self, row: TreeMemory, column: int) -> tuple[str, Any]:
        folder = {"facts": self.tr("fact"), "reflections": self.tr("reflection"), "skills": self.tr("skill")}
        values = [(row.text, row.text), (str(row.importance), row.importance), (", ".join(row.tags), ", ".join(row.tags)),
                  (folder.get(row.folder, row.folder), row.folder), (row.time[:16].replace("T", " "), row.time)]
        return values[column]

    def tooltip(self, row: TreeMemory, column: int) -> str:
        if column != 0:
            return self.cell(row, column)[0]
        lines = [row.text, self.tr("ID: {id}").format(id=row.id)]
        if row.session:
            lines.append(self.tr("Session: {session}").format(session=row.session))
        return "\n".join(lines)


class ProfileModel(_RowsModel):
    """profile.json as (field, value) rows: a list one row per item, an object one row per key."""

    def headers(self) -> list[str]:
        return [self.tr("Field"), self.tr("Value")]

    def set_profile(self, profile: dict[str, Any]) -> None:
        """Rows (field path as profile.json has it, value text); shown with the field's name in the
        window's language and times as dates (cell())."""
        rows = []
        for name, value in profile.items():
            if name in ("entity_id", "entity_type"):
                continue
            if isinstance(value, list):
                rows.extend((f"{name}[{n}]", _text(item)) for n, item in enumerate(value))
            elif isinstance(value, dict):
                rows.extend((f"{name}.{key}", _text(item)) for key, item in value.items())
            elif value not in ("", None):
                rows.append((name, _time_text(value) if name in _TIME_FIELDS else _text(value)))
        self.set_rows(rows)

    def field_label(self, path: str) -> str:
        """`traits[0]` -> "Traits 1", `preferences.饮料` -> "Preferences: 饮料", `name` -> "Name"."""
        labels = {"name": self.tr("Name"), "nickname": self.tr("Nickname"), "description": self.tr("Description"),
                  "platform": self.tr("Platform"), "traits": self.tr("Traits"), "preferences": self.tr("Preferences"),
                  "relationships": self.tr("Relationships"), "facts": self.tr("Facts"), "aliases": self.tr("Aliases"),
                  "interaction_count": self.tr("Conversations"), "last_interaction": self.tr("Last conversation"),
                  "metadata": self.tr("Other data")}
        name, bracket, rest = path.partition("[")
        if bracket:
            return f"{labels.get(name, name)} {int(rest.rstrip(']')) + 1}"
        name, dot, key = path.partition(".")
        return self.tr("{field}: {key}").format(field=labels.get(name, name), key=key) if dot else labels.get(name, name)

    def cell(self, row: tuple[str, str], column: int) -> tuple[str, Any]:
        if column == 0:
            return self.field_label(row[0]), row[0]
        return row[column], row[column]


#: profile.json fields the plugin keeps as epoch seconds.
_TIME_FIELDS = ("last_interaction",)


def _time_text(value: Any) -> str:
    """Epoch seconds as the local date and time an operator reads (0: never); anything else as text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value <= 0:
            return "—"
        try:
            return datetime.fromtimestamp(value).strftime("%Y-%m-%d %H:%M")
        except (OverflowError, OSError, ValueError):
            pass
    return _text(value)


class HistoryModel(_RowsModel):
    """The tree's history (JournalEntry rows), newest first: change number, time, who, what, which memory."""

    _texts: dict[int, str] = {}  # entry id -> its memory's text (set_rows)

    def headers(self) -> list[str]:
        return [self.tr("No."), self.tr("Time"), self.tr("By"), self.tr("Change"), self.tr("Memory")]

    def cell(self, row: JournalEntry, column: int) -> tuple[str, Any]:
        actions = {"add": self.tr("added"), "edit": self.tr("edited"), "archive": self.tr("archived"),
                   "restore": self.tr("restored"), "delete": self.tr("deleted for good"),
                   "profile": self.tr("profile"), "revert": self.tr("reverted"), "reindex": self.tr("re-indexed"),
                   "clear": self.tr("all archived (memory_clear)")}
        actors = {"gui": self.tr("window"), "cli": self.tr("command line"), "tool": self.tr("bot host")}
        action = actions.get(row.change.action, row.change.action)
        if row.reverts:
            action = self.tr("{action} (change {n})").format(action=action, n=row.reverts)
        values = [(str(row.id), row.id), (row.at.replace("T", " "), row.at), (actors.get(row.actor, row.actor), row.actor),
                  (action, row.change.action), self._memory(row)]
        return values[column]

    def set_rows(self, rows: list[Any]) -> None:
        # Each change's memory text parsed once here, not at every paint of its cell.
        self._texts = {row.id: change_text(row.change) for row in rows}
        super().set_rows(rows)

    def _memory(self, row: JournalEntry) -> tuple[str, Any]:
        """The memory's text (what the operator knows it by), not its file's id, which may end in a hash."""
        text = self._texts.get(row.id) or row.change.memory_id
        return (text, row.change.memory_id)

    def tooltip(self, row: JournalEntry, column: int) -> str:
        if column == 4:
            return self.tr("{text}\n(memory {id})").format(text=self.cell(row, 4)[0], id=row.change.memory_id) \
                if row.change.memory_id else self.cell(row, 4)[0]
        return super().tooltip(row, column)


class ProblemModel(_RowsModel):
    def headers(self) -> list[str]:
        return [self.tr("File"), self.tr("Why it cannot be read")]

    def cell(self, row: Problem, column: int) -> tuple[str, Any]:
        value = row.path if column == 0 else problem_text(row)
        return value, value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
