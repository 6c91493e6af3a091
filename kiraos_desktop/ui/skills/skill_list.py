"""The list of skills: table model (name, command, enabled, problems badge) and search proxy."""
from __future__ import annotations

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)

from kiraos_desktop.core.skills import Skill

NAME, COMMAND, ENABLED, PROBLEMS = range(4)
FOLDER_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 2
# "kiraos" or "agent" (an Agent Skills SKILL.md folder): the name column shows a badge for the latter.
FORMAT_ROLE = Qt.ItemDataRole.UserRole + 3
_Index = QModelIndex | QPersistentModelIndex


class SkillListModel(QAbstractTableModel):
    """Rows are the router's skills in folder order (invalid ones included). Checking Enabled
    does not change the model: it emits `enabledToggled(name, enabled)` and the page writes the
    setting, then refreshes."""

    enabledToggled = Signal(str, bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._skills: list[Skill] = []
        self._colors = None

    def _headers(self) -> list[str]:
        """Column titles, translated when asked (a language switch only needs headerDataChanged)."""
        return [self.tr("Skill"), self.tr("Command"), self.tr("On"), "⚠"]

    def set_colors(self, colors) -> None:
        self._colors = colors

    def set_skills(self, skills: list[Skill]) -> None:
        self.beginResetModel()
        self._skills = list(skills)
        self.endResetModel()

    def skill(self, row: int) -> Skill:
        return self._skills[row]

    def row_of_folder(self, folder_name: str) -> int:
        for row, skill in enumerate(self._skills):
            if skill.folder.name == folder_name:
                return row
        return -1

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(self._skills)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(self._headers())

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt override)
                   role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._headers()):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._headers()[section]
        if role == Qt.ItemDataRole.ToolTipRole and section == ENABLED:
            return self.tr("Enabled: listed as a tool for hosts")
        if role == Qt.ItemDataRole.ToolTipRole and section == PROBLEMS:
            return self.tr("Problems: ✖ errors (hosts cannot call the skill), ⚠ warnings")
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == ENABLED:
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._skills):
            return None
        skill, column = self._skills[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == NAME:
                return skill.name
            if column == COMMAND:
                return skill.command or ""
            if column == PROBLEMS:
                return self._badge(skill)
            return None
        if role == Qt.ItemDataRole.CheckStateRole and column == ENABLED:
            return Qt.CheckState.Checked if skill.enabled else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(skill)
        if role == Qt.ItemDataRole.ForegroundRole and column == PROBLEMS and self._colors is not None:
            return self._colors.error_fg if skill.errors else self._colors.warning_fg
        if role == FOLDER_ROLE:
            return skill.folder.name
        if role == FORMAT_ROLE:
            return skill.format
        if role == SEARCH_ROLE:
            return " ".join((skill.name, skill.command or "", skill.description, skill.folder.name)).casefold()
        return None

    def setData(self, index: _Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if not index.isValid() or index.column() != ENABLED or role != Qt.ItemDataRole.CheckStateRole \
                or not 0 <= index.row() < len(self._skills):
            return False
        checked = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, 2, True)
        self.enabledToggled.emit(self._skills[index.row()].name, checked)
        return True

    def _badge(self, skill: Skill) -> str:
        if skill.errors:
            return self.tr("✖ {0}").format(len(skill.errors))
        if skill.warnings:
            return self.tr("⚠ {0}").format(len(skill.warnings))
        return ""

    def _tooltip(self, skill: Skill) -> str:
        lines = [self.tr("Folder: {0}").format(skill.folder.name)]
        if skill.is_agent_skill:
            lines.append(self.tr("Agent Skills format (SKILL.md): other agents can load this folder as it is."))
        if not skill.valid:
            lines.append(self.tr("Hosts cannot call this skill until its errors are fixed."))
        elif not skill.enabled:
            lines.append(self.tr("Disabled: hidden from hosts."))
        lines += [f"{p.severity}: {p.message}" for p in skill.problems[:5]]
        if len(skill.problems) > 5:
            lines.append(self.tr("… and {0} more").format(len(skill.problems) - 5))
        return "\n".join(lines)


class SkillFilterProxy(QSortFilterProxyModel):
    """Keeps the skills whose name, command, description or folder contains the search text."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._needle = ""

    def set_search(self, text: str) -> None:
        self.beginFilterChange()
        self._needle = text.strip().casefold()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:  # noqa: N802
        if not self._needle:
            return True
        model = self.sourceModel()
        haystack = model.data(model.index(source_row, NAME, source_parent), SEARCH_ROLE) or ""
        return self._needle in haystack
