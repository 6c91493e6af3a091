"""Problems panel: the engine's problems for the edited skill; a click jumps to the field or line."""
from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from kiraos_desktop.core.skills import Problem

from .theme import colors_for

SEVERITY, LOCATION, FIELD, MESSAGE = range(4)
PROBLEM_ROLE = Qt.ItemDataRole.UserRole + 1
NARROW_WIDTH = 420  # below this the Where and Field columns are hidden
_Index = QModelIndex | QPersistentModelIndex


class ProblemsModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._problems: list[Problem] = []
        self._colors = None

    def _headers(self) -> list[str]:
        """Column titles, translated when asked (a language switch only needs headerDataChanged)."""
        return [self.tr("Severity"), self.tr("Where"), self.tr("Field"), self.tr("Message")]

    def set_colors(self, colors) -> None:
        self._colors = colors

    def set_problems(self, problems: list[Problem]) -> None:
        problems = sorted(problems, key=lambda p: (not p.is_error,))
        if problems == self._problems:
            return
        self.beginResetModel()
        self._problems = list(problems)
        self.endResetModel()

    def problems(self) -> list[Problem]:
        return list(self._problems)

    def problem(self, row: int) -> Problem:
        return self._problems[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(self._problems)

    def _where(self, problem: Problem) -> str:
        where = problem.file or self.tr("folder")
        return f"{where}:{problem.line}" if problem.line is not None else where

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(self._headers())

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt override)
                   role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole \
                and 0 <= section < len(self._headers()):
            return self._headers()[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._problems):
            return None
        problem, column = self._problems[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == SEVERITY:
                return self.tr("✖ error") if problem.is_error else self.tr("⚠ warning")
            if column == LOCATION:
                return self._where(problem)
            if column == FIELD:
                return problem.field
            if column == MESSAGE:
                return problem.message
        if role == Qt.ItemDataRole.ToolTipRole:  # where and field too: a narrow panel hides their columns
            place = " · ".join(part for part in (self._where(problem), problem.field) if part)
            return f"{place}\n{problem.message}"
        if role == Qt.ItemDataRole.ForegroundRole and column == SEVERITY and self._colors is not None:
            return self._colors.error_fg if problem.is_error else self._colors.warning_fg
        if role == PROBLEM_ROLE:
            return problem
        return None


class ProblemsPanel(QWidget):
    """`problemActivated(problem)` when a row is clicked or activated."""

    problemActivated = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = ProblemsModel(self)
        self.model.set_colors(colors_for(self.palette()))
        self.summary = QLabel(self)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setTabKeyNavigation(False)
        self.view.verticalHeader().hide()
        self.view.setWordWrap(True)  # a long message wraps in its row instead of being cut
        header = self.view.horizontalHeader()
        for column in (SEVERITY, LOCATION, FIELD):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(MESSAGE, QHeaderView.ResizeMode.Stretch)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 1)
        layout.addStretch(0)  # keeps the summary at the top while the table is hidden
        self.view.clicked.connect(self._on_view_clicked)
        self.view.activated.connect(self._on_view_clicked)
        self.set_problems([])

    def set_problems(self, problems: list[Problem]) -> None:
        self.model.set_problems(problems)
        self.view.setVisible(bool(problems))  # "No problems." alone: the preview above gets the room
        self.view.resizeRowsToContents()
        errors = sum(1 for p in problems if p.is_error)
        warnings = len(problems) - errors
        if not problems:
            self.summary.setText(self.tr("No problems."))
        else:
            self.summary.setText(self.tr("{errors}, {warnings}. Click one to jump to it.").format(
                errors=self.tr("%n errors", "", errors), warnings=self.tr("%n warnings", "", warnings)))

    def set_colors(self, colors) -> None:
        self.model.set_colors(colors)
        self.view.viewport().update()

    def counts(self) -> tuple[int, int]:
        problems = self.model.problems()
        errors = sum(1 for p in problems if p.is_error)
        return errors, len(problems) - errors

    def _on_view_clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self.problemActivated.emit(self.model.problem(index.row()))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """Narrow (a small window): the message keeps the room; where and field move to the tooltip."""
        super().resizeEvent(event)
        narrow = self.width() < NARROW_WIDTH
        for column in (LOCATION, FIELD):
            self.view.setColumnHidden(column, narrow)
        self.view.resizeRowsToContents()  # the messages' wrapping follows the width
