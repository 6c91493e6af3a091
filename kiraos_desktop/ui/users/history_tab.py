"""The History tab: this user's audit entries, each revertible (as an undoable step)."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.records import StoreError
from kiraos_desktop.core.store import MemoryStore
from kiraos_desktop.ui.empty_state import EmptyState
from kiraos_desktop.ui.views import setup_table
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.history_model import (
    CHANGE_ID_ROLE,
    COL_ACTION,
    COL_ACTOR,
    COL_CHANGE,
    COL_TARGET,
    COL_TIME,
    REVERTIBLE_ROLE,
    HistoryModel,
    action_label,
)


class HistoryTab(QWidget):
    status_message = Signal(str)

    def __init__(self, store: MemoryStore, writer: UndoableWriter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._writer = writer
        self.model = HistoryModel(store, self)
        self.view = QTableView()
        self.view.setObjectName("historyView")
        self.view.setModel(self.model)
        setup_table(self.view)
        header = self.view.horizontalHeader()
        for column, width in ((COL_TIME, 130), (COL_ACTOR, 60), (COL_ACTION, 100), (COL_TARGET, 90)):
            header.resizeSection(column, width)
        header.setSectionResizeMode(COL_CHANGE, QHeaderView.ResizeMode.Stretch)
        self.empty_state = EmptyState(self.view)
        self.revert_button = QPushButton(self.tr("Revert this change"))
        self.revert_button.setToolTip(self.tr("Write the opposite of the selected change (undoable with Ctrl+Z)"))
        self.count_label = QLabel()
        self.message_label = QLabel()
        self.message_label.setStyleSheet("color: #d33;")
        self.message_label.setWordWrap(True)
        self.message_label.hide()
        tools = QHBoxLayout()
        tools.addWidget(self.revert_button)
        tools.addStretch(1)
        tools.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.addLayout(tools)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.message_label)
        self.revert_button.clicked.connect(self._on_revert_button_clicked)
        self.view.selectionModel().selectionChanged.connect(self._on_selection_changed)
        for signal in (self.model.rowsInserted, self.model.rowsRemoved, self.model.modelReset):
            signal.connect(self._on_model_rows_changed)
        self._update_state()

    def set_user(self, user_id: str | None) -> None:
        self.model.load(user_id)
        self.message_label.hide()
        self._update_state()

    def refresh(self) -> None:
        self.model.refresh()
        self._update_state()

    def selected_change(self):
        rows = self.view.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def _on_revert_button_clicked(self) -> None:
        rows = self.view.selectionModel().selectedRows()
        if not rows or not rows[0].data(REVERTIBLE_ROLE):
            return
        change = self.model.row_at(rows[0].row())
        try:
            self._writer.revert(self.tr("Revert {action} {target}").format(
                action=action_label(change.action), target=change.target or ""), [rows[0].data(CHANGE_ID_ROLE)])
        except StoreError as exc:
            self.message_label.setText(self.tr("Could not revert: {message}").format(message=str(exc)))
            self.message_label.show()
            return
        self.message_label.hide()
        self.refresh()
        self.status_message.emit(self.tr("Reverted. Undo with Ctrl+Z."))

    def _on_selection_changed(self, *_args) -> None:
        self._update_state()

    def _on_model_rows_changed(self, *_args) -> None:
        self._update_state()

    def _update_state(self, *_args) -> None:
        rows = self.view.selectionModel().selectedRows()
        self.revert_button.setEnabled(bool(rows) and bool(rows[0].data(REVERTIBLE_ROLE)))
        count = self.model.rowCount()
        more = "+" if self.model.canFetchMore() else ""
        self.count_label.setText(self.tr("{n}{more} changes").format(n=count, more=more) if self.model.user_id else "")
        hint = (self.tr("No recorded changes for this user. Changes made from now on appear here.")
                if self.model.user_id else self.tr("Select a user to see their history."))
        self.empty_state.update_state(count, hint)
