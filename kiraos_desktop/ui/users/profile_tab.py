"""The Profile tab: a user's entries with inline editing, add, multi-delete, expired filter and purge."""
from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtWidgets import QAbstractItemView, QCheckBox, QPushButton, QWidget

from kiraos_desktop.core.memory.records import StoreUnavailable
from kiraos_desktop.core.memory.records import MAX_VALUE_CHARS
from kiraos_desktop.core.storage.protocol import MemoryReader
from kiraos_desktop.ui.users.field_validation import check_value_text
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.entry_dialogs import AddProfileDialog
from kiraos_desktop.ui.users.profile_delegate import ProfileDelegate
from kiraos_desktop.ui.users.profile_model import (
    ORIGIN,
    COL_CATEGORY,
    COL_CONFIDENCE,
    COL_EXPIRES,
    COL_KEY,
    COL_UPDATED,
    COL_VALUE,
    KEY_ROLE,
    ProfileFilterProxy,
    ProfileModel,
)
from kiraos_desktop.ui.users.table_tab import TableTab, add_delete_action, add_long_edit_action, build_table_tab
from kiraos_desktop.ui.users.text_dialog import TextEditDialog, open_text_dialog


class ProfileTab(TableTab):
    ORIGIN = ORIGIN  # its writes' origin: the change refresh passes this tab over for them

    def __init__(self, store: MemoryReader, writer: UndoableWriter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._writer = writer
        self.add_dialog: AddProfileDialog | None = None
        self.model = ProfileModel(store, writer, self)
        self.proxy = ProfileFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.add_button = QPushButton(self.tr("Add…"))
        self.delete_button = QPushButton(self.tr("Delete"))
        self.show_expired_box = QCheckBox(self.tr("Show expired"))
        self.purge_button = QPushButton(self.tr("Purge expired"))
        self.view, self.empty_state, self.count_label, self.message_label = build_table_tab(
            self, "profileView", self.proxy,
            (self.add_button, self.delete_button, self.show_expired_box, self.purge_button),
            stretch_column=COL_VALUE, widths=((COL_KEY, 110), (COL_CATEGORY, 85), (COL_CONFIDENCE, 80),
                                              (COL_EXPIRES, 125), (COL_UPDATED, 85)),
            multi_select=True, editable=True)
        self.follow_reads()
        self.view.horizontalHeader().setMinimumSectionSize(40)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed
                                  | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(COL_CATEGORY, Qt.SortOrder.AscendingOrder)
        self.delegate = ProfileDelegate(self.view.viewport(), self.view)
        self.view.setItemDelegate(self.delegate)

        self.delete_action = add_delete_action(self.view, self.tr("Delete selected entries"))
        self.delete_action.triggered.connect(self._on_delete_action_triggered)
        self.text_dialog: TextEditDialog | None = None
        self.long_edit_action = add_long_edit_action(self.view, self.tr("Edit the value in a larger editor…"))
        self.long_edit_action.triggered.connect(self._on_long_edit_action_triggered)
        self.delegate.long_text_requested.connect(self._open_text_dialog)
        self.add_button.clicked.connect(self._on_add_button_clicked)
        self.delete_button.clicked.connect(self._on_delete_action_triggered)
        self.purge_button.clicked.connect(self._on_purge_button_clicked)
        self.show_expired_box.toggled.connect(self._on_show_expired_box_toggled)
        self.model.write_failed.connect(self._on_model_write_failed)
        self.delegate.input_refused.connect(self._on_delegate_input_refused)
        self.delegate.closeEditor.connect(self._on_delegate_close_editor)
        self.view.selectionModel().selectionChanged.connect(self._on_selection_changed)
        for signal in (self.proxy.rowsInserted, self.proxy.rowsRemoved, self.proxy.modelReset,
                       self.proxy.layoutChanged, self.model.dataChanged):
            signal.connect(self._on_model_rows_changed)
        self._expiry_timer = QTimer(self)
        self._expiry_timer.setInterval(30_000)
        self._expiry_timer.timeout.connect(self._on_expiry_timer_timeout)
        self._expiry_timer.start()
        self._update_state()

    # ---- public --------------------------------------------------------------------------

    def selected_keys(self) -> list[str]:
        rows = self.view.selectionModel().selectedRows()
        return [index.data(KEY_ROLE) for index in sorted(rows, key=lambda i: i.row())]

    def select_key(self, key: str) -> None:
        source_row = self.model.row_of_key(key)
        if source_row < 0:
            return
        index = self.proxy.mapFromSource(self.model.index(source_row, 0))
        if index.isValid():
            self.view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)

    # ---- slots ---------------------------------------------------------------------------

    def _on_add_button_clicked(self) -> None:
        user_id = self.model.user_id
        if not user_id:
            return
        existing = {entry.key for entry in self._store.get_profiles(user_id, include_expired=False)}

        def submit(key: str, value: str, category: str, confidence: float, expires_at: str | None) -> None:
            self._writer.write(self.tr("Add {key}").format(key=key),
                               lambda batch: batch.set_profile(user_id, key, value, confidence=confidence,
                                                               category=category, expires_at=expires_at),
                               origin=ORIGIN)
            self.refresh()
            self.select_key(key)

        self.add_dialog = AddProfileDialog(user_id, submit, existing, self)
        self.add_dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.add_dialog.destroyed.connect(self._on_add_dialog_destroyed)
        self.add_dialog.open()

    def _on_long_edit_action_triggered(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self._open_text_dialog(index.siblingAtColumn(COL_VALUE))

    def _open_text_dialog(self, index) -> None:
        """A long or multi-line value in a multi-line editor; saving goes through the model (undoable)."""
        key = index.data(KEY_ROLE)
        self.text_dialog = open_text_dialog(self, self.model, index, self.tr("Edit {key}").format(key=key),
                                            self.tr("Value of {key}").format(key=key), MAX_VALUE_CHARS,
                                            check_value_text)
        self.text_dialog.destroyed.connect(self._on_text_dialog_destroyed)

    def _on_text_dialog_destroyed(self, *_args) -> None:
        self.text_dialog = None

    def _on_add_dialog_destroyed(self, *_args) -> None:
        self.add_dialog = None

    def _on_delete_action_triggered(self) -> None:
        user_id, keys = self.model.user_id, self.selected_keys()
        if not user_id or not keys:
            return
        text = (self.tr("Delete {key}").format(key=keys[0]) if len(keys) == 1
                else self.tr("Delete %n entries", "", len(keys)))
        try:
            deleted = self._writer.write(text, lambda batch: sum(1 for k in keys if batch.delete_profile(user_id, k)),
                                         origin=ORIGIN)
        except StoreUnavailable:  # the writer reported it
            return
        self.refresh()
        self.status_message.emit(self.tr("Deleted %n entries. Undo with Ctrl+Z.", "", deleted))

    def _on_purge_button_clicked(self) -> None:
        user_id = self.model.user_id
        if not user_id:
            return
        try:
            purged = self._writer.write(self.tr("Purge expired entries"), lambda batch: batch.purge_expired(user_id),
                                        origin=ORIGIN)
        except StoreUnavailable:  # the writer reported it
            return
        self.refresh()
        self.status_message.emit(self.tr("Purged %n expired entries.", "", purged))

    def _on_show_expired_box_toggled(self, checked: bool) -> None:
        self.proxy.set_show_expired(checked)
        self._update_state()

    def _on_model_write_failed(self, field: str, message: str) -> None:
        self._show_message(self.tr("{field} not saved: {message}").format(
            field=self._field_name(field), message=message))

    def _on_delegate_input_refused(self, field: str, message: str) -> None:
        self._show_message(self.tr("{field} not changed: {message}").format(
            field=self._field_name(field), message=message))

    def _after_refresh(self) -> None:
        self.proxy.recheck_expiry()

    def _on_expiry_timer_timeout(self) -> None:
        if self.model.rowCount() and self.view.state() != QAbstractItemView.State.EditingState:
            self.proxy.recheck_expiry()
            self._update_state()

    def _field_name(self, field: str) -> str:
        return {"value": self.tr("Value"), "category": self.tr("Category"), "confidence": self.tr("Confidence"),
                "expires_at": self.tr("Expires"), "key": self.tr("Key")}.get(field, field)

    def _show_message(self, text: str) -> None:
        self.message_label.setText(text)
        self.message_label.show()

    def _update_state(self, *_args) -> None:
        has_user = self.model.user_id is not None
        total, expired = self.model.rowCount(), self.model.expired_count()
        self.add_button.setEnabled(has_user)
        self.delete_button.setEnabled(has_user and self.view.selectionModel().hasSelection())
        self.purge_button.setEnabled(has_user and expired > 0)
        if not has_user:
            self.count_label.setText("")
        elif expired and not self.proxy.show_expired:
            self.count_label.setText(self.tr("{entries} · {n} expired hidden").format(
                entries=self.tr("%n entries", "", total - expired), n=expired))
        elif expired:
            self.count_label.setText(self.tr("{entries} · {n} expired").format(
                entries=self.tr("%n entries", "", total), n=expired))
        else:
            self.count_label.setText(self.tr("%n entries", "", total))
        if not has_user:
            hint = self.tr("Select a user to see what the bot remembers about them.")
        elif total:
            hint = self.tr("Every entry of this user has expired. Tick “Show expired” to see them.")
        else:
            hint = self.tr("No profile entries yet. Add one, or let the bot learn with memory_update.")
        self.empty_state.update_state(self.proxy.rowCount(), hint)
