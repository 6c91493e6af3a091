"""The Events tab: newest first, loaded page by page, with add, inline edit and multi-delete."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QPushButton, QWidget

from kiraos_desktop.core.memory.records import StoreUnavailable
from kiraos_desktop.core.storage.protocol import MemoryReader
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.entry_dialogs import AddEventDialog
from kiraos_desktop.ui.users.events_model import (
    ORIGIN,
    COL_DATE,
    COL_SUMMARY,
    COL_TAG,
    EVENT_ID_ROLE,
    EventDelegate,
    EventsModel,
)
from kiraos_desktop.core.memory.records import MAX_EVENT_CHARS
from kiraos_desktop.ui.users.field_validation import check_event_text
from kiraos_desktop.ui.users.table_tab import TableTab, add_delete_action, add_long_edit_action, build_table_tab
from kiraos_desktop.ui.users.text_dialog import TextEditDialog, open_text_dialog


class EventsTab(TableTab):
    ORIGIN = ORIGIN  # its writes' origin: the change refresh passes this tab over for them

    def __init__(self, store: MemoryReader, writer: UndoableWriter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._writer = writer
        self.add_dialog: AddEventDialog | None = None
        self.model = EventsModel(store, writer, self)
        self.add_button = QPushButton(self.tr("Add…"))
        self.delete_button = QPushButton(self.tr("Delete"))
        self.view, self.empty_state, self.count_label, self.message_label = build_table_tab(
            self, "eventsView", self.model, (self.add_button, self.delete_button), stretch_column=COL_SUMMARY,
            widths=((COL_DATE, 140), (COL_TAG, 110)), multi_select=True, editable=True)
        self.follow_reads()
        # KiraOS plugin 2.x data tags its events; other data has no tags to show.
        self.view.setColumnHidden(COL_TAG, not store.event_tags)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.delegate = EventDelegate(self.view.viewport(), self.view)
        self.view.setItemDelegate(self.delegate)
        self.delete_action = add_delete_action(self.view, self.tr("Delete selected events"))
        self.delete_action.triggered.connect(self._on_delete_action_triggered)
        self.text_dialog: TextEditDialog | None = None
        self.long_edit_action = add_long_edit_action(self.view, self.tr("Edit in a larger editor…"))
        self.long_edit_action.triggered.connect(self._on_long_edit_action_triggered)
        self.delegate.long_text_requested.connect(self._open_text_dialog)
        self.add_button.clicked.connect(self._on_add_button_clicked)
        self.delete_button.clicked.connect(self._on_delete_action_triggered)
        self.model.write_failed.connect(self._on_model_write_failed)
        self.delegate.input_refused.connect(self._on_model_write_failed)
        self.delegate.closeEditor.connect(self._on_delegate_close_editor)
        self.view.selectionModel().selectionChanged.connect(self._on_selection_changed)
        for signal in (self.model.rowsInserted, self.model.rowsRemoved, self.model.modelReset):
            signal.connect(self._on_model_rows_changed)
        self._update_state()

    def selected_event_ids(self) -> list[int]:
        return [index.data(EVENT_ID_ROLE) for index in self.view.selectionModel().selectedRows()]

    def _on_long_edit_action_triggered(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self._open_text_dialog(self.model.index(index.row(), COL_SUMMARY))

    def _open_text_dialog(self, index) -> None:
        """The event's text in a multi-line editor; saving goes through the model (undoable)."""
        self.text_dialog = open_text_dialog(self, self.model, index, self.tr("Edit event"), self.tr("Event"),
                                            MAX_EVENT_CHARS, check_event_text)
        self.text_dialog.destroyed.connect(self._on_text_dialog_destroyed)

    def _on_text_dialog_destroyed(self, *_args) -> None:
        self.text_dialog = None

    def _on_add_button_clicked(self) -> None:
        user_id = self.model.user_id
        if not user_id:
            return

        def submit(summary: str) -> None:
            self._writer.write(self.tr("Add event"), lambda batch: batch.add_event(user_id, summary), origin=ORIGIN)
            self.refresh()
            self.view.scrollToTop()

        self.add_dialog = AddEventDialog(user_id, submit, self)
        self.add_dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.add_dialog.destroyed.connect(self._on_add_dialog_destroyed)
        self.add_dialog.open()

    def _on_add_dialog_destroyed(self, *_args) -> None:
        self.add_dialog = None

    def _on_delete_action_triggered(self) -> None:
        user_id, ids = self.model.user_id, self.selected_event_ids()
        if not user_id or not ids:
            return
        text = self.tr("Delete event") if len(ids) == 1 else self.tr("Delete %n events", "", len(ids))
        try:
            deleted = self._writer.write(text, lambda batch: sum(1 for i in ids if batch.delete_event(user_id, i)),
                                         origin=ORIGIN)
        except StoreUnavailable:  # the writer reported it
            return
        self.refresh()
        self.status_message.emit(self.tr("Deleted %n events. Undo with Ctrl+Z.", "", deleted))

    def _on_model_write_failed(self, _field: str, message: str) -> None:
        self.message_label.setText(self.tr("Event not saved: {message}").format(message=message))
        self.message_label.show()

    def _update_state(self, *_args) -> None:
        user_id = self.model.user_id
        self.add_button.setEnabled(bool(user_id))
        self.delete_button.setEnabled(bool(user_id) and self.view.selectionModel().hasSelection())
        summary = self._store.user_summary(user_id) if user_id else None
        total = summary.event_count if summary else 0
        self.count_label.setText(self.tr("%n events", "", total) if user_id else "")
        hint = (self.tr("No events yet. Add one, or let the bot record them with memory_update.") if user_id
                else self.tr("Select a user to see their events."))
        self.empty_state.update_state(self.model.rowCount(), hint)
