"""The History tab: this user's audit entries, each revertible (as an undoable step)."""
from __future__ import annotations

from PySide6.QtWidgets import QHeaderView, QPushButton, QWidget

from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.storage.protocol import MemoryReader
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
from kiraos_desktop.ui.users.table_tab import TableTab, build_table_tab


class HistoryTab(TableTab):
    def __init__(self, store: MemoryReader, writer: UndoableWriter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._writer = writer
        self.model = HistoryModel(store, self)
        self.revert_button = QPushButton(self.tr("Revert this change"))
        self.revert_button.setToolTip(self.tr("Write the opposite of the selected change (undoable with Ctrl+Z)"))
        self.view, self.empty_state, self.count_label, self.message_label = build_table_tab(
            self, "historyView", self.model, (self.revert_button,), stretch_column=COL_CHANGE,
            widths=((COL_TIME, 125), (COL_ACTION, 100), (COL_TARGET, 90)))
        # As wide as the actors shown: "bot (tool call)" was cut to "bot (to…" at 60 pixels.
        self.view.horizontalHeader().setSectionResizeMode(COL_ACTOR, QHeaderView.ResizeMode.ResizeToContents)
        self.follow_reads()
        self.revert_button.clicked.connect(self._on_revert_button_clicked)
        self.view.selectionModel().selectionChanged.connect(self._on_selection_changed)
        for signal in (self.model.rowsInserted, self.model.rowsRemoved, self.model.modelReset):
            signal.connect(self._on_model_rows_changed)
        self._update_state()

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

    def _update_state(self, *_args) -> None:
        rows = self.view.selectionModel().selectedRows()
        self.revert_button.setEnabled(bool(rows) and bool(rows[0].data(REVERTIBLE_ROLE)))
        count = self.model.rowCount()
        shown = (self.tr("%n+ changes", "", count) if self.model.canFetchMore()  # more are read on scrolling
                 else self.tr("%n changes", "", count))
        self.count_label.setText(shown if self.model.user_id else "")
        hint = (self.tr("No recorded changes for this user. Changes made from now on appear here.")
                if self.model.user_id else self.tr("Select a user to see their history."))
        self.empty_state.update_state(count, hint)
