"""A user's events, newest first, read page by page, with the summary (and, on data that has them,
the tag) editable in place."""
from __future__ import annotations

from typing import cast

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import QLineEdit, QStyledItemDelegate, QWidget

from kiraos_desktop.core.memory.records import (
    MAX_EVENT_CHARS,
    MAX_TAG_CHARS,
    EventEntry,
    StoreUnavailable,
    ValidationError,
)
from kiraos_desktop.core.storage.protocol import MemoryReader
from kiraos_desktop.core.storage.protocol import KEEP_TAG
from kiraos_desktop.ui.keyed_model import KeyedTableModel
from kiraos_desktop.ui.row_reads import RowReads
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.expiry import format_timestamp
from kiraos_desktop.ui.users.field_validation import CheckValidator, FieldErrorBubble, check_event_text, mark_invalid
from kiraos_desktop.ui.users.text_dialog import needs_dialog

PAGE_SIZE = 200
COL_DATE, COL_SUMMARY, COL_TAG = range(3)
EVENT_ID_ROLE = Qt.ItemDataRole.UserRole + 1


#: The Events tab, as the origin of its writes (ChangeEvent.origin): it shows them as it makes them.
ORIGIN = "events"

class EventsModel(KeyedTableModel):
    write_failed = Signal(str, str)  # field, message

    def __init__(self, store: MemoryReader, writer: UndoableWriter, parent=None) -> None:
        super().__init__(parent)
        self._store = store
        self._writer = writer
        self._user_id: str | None = None
        self._has_more = False
        self.reads = RowReads(store, "kiraos-event-rows", self)

    @property
    def user_id(self) -> str | None:
        return self._user_id

    def row_key(self, row: EventEntry) -> int:
        return row.id

    def load(self, user_id: str | None) -> None:
        self._user_id = user_id
        self._has_more = False
        if not user_id:
            self._loaded([], 0)
            return
        self.clear_until_read(self.reads)
        store = self._store
        self.reads.read(lambda: store.get_events(user_id, limit=PAGE_SIZE), lambda rows: self._loaded(rows, PAGE_SIZE))

    def refresh(self) -> None:
        user_id, store = self._user_id, self._store
        if not user_id:
            return
        limit = max(len(self._rows), PAGE_SIZE)
        self.reads.read(lambda: store.get_events(user_id, limit=limit), lambda rows: self._refreshed(rows, limit))

    def _loaded(self, rows: list[EventEntry], limit: int) -> None:
        self._has_more = bool(limit) and len(rows) == limit
        self.set_rows_reset(rows)
        self.rows_read.emit()

    def _refreshed(self, rows: list[EventEntry], limit: int) -> None:
        self._has_more = len(rows) == limit
        self.sync_rows(rows)
        self.rows_read.emit()

    # ---- Qt model ------------------------------------------------------------------------

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else 3

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole or not 0 <= section < 3:
            return None
        return (self.tr("When"), self.tr("Event"), self.tr("Tag"))[section]

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
        if index.column() == COL_SUMMARY or (index.column() == COL_TAG and self._store.event_tags):
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        event: EventEntry = self._rows[index.row()]
        if index.column() == COL_TAG:
            return event.tag or "" if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole) else (
                event.id if role == EVENT_ID_ROLE else None)
        if role == Qt.ItemDataRole.DisplayRole:
            return format_timestamp(event.created_at) if index.column() == COL_DATE else event.summary.replace("\n", " ")
        if role == Qt.ItemDataRole.EditRole:
            return event.created_at if index.column() == COL_DATE else event.summary
        if role == Qt.ItemDataRole.ToolTipRole:
            return event.created_at if index.column() == COL_DATE else event.summary
        if role == EVENT_ID_ROLE:
            return event.id
        return None

    def setData(self, index: QModelIndex | QPersistentModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if (role != Qt.ItemDataRole.EditRole or not index.isValid() or index.column() not in (COL_SUMMARY, COL_TAG)
                or self._user_id is None or index.row() >= len(self._rows)):
            return False
        user_id, event = self._user_id, self._rows[index.row()]
        if index.column() == COL_TAG:
            summary, tag = event.summary, (value.strip() or None) if isinstance(value, str) else value
            title, written_tag = self.tr("Edit event tag"), tag
        else:  # the text: the tag is kept as stored
            summary, tag = value, event.tag
            title, written_tag = self.tr("Edit event"), KEEP_TAG
        if (summary, tag) == (event.summary, event.tag):
            return True
        try:
            found = self._writer.write(
                title, lambda batch: batch.update_event(user_id, event.id, summary, written_tag), origin=ORIGIN)
        except ValidationError as exc:
            self.write_failed.emit(exc.field, exc.message)
            return False
        except StoreUnavailable:  # the writer reported it
            return False
        if not found:
            self.write_failed.emit("event_summary", self.tr("this event no longer exists"))
            return False
        self._rows[index.row()] = EventEntry(event.id, event.user_id, summary, event.created_at, tag)
        self.dataChanged.emit(self.index(index.row(), 0), self.index(index.row(), COL_TAG))
        return True

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:
        return not parent.isValid() and self._has_more

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> None:
        if not self.canFetchMore(parent) or not self._user_id:
            return
        user_id, store, offset = self._user_id, self._store, len(self._rows)
        self._has_more = False  # until the page arrives
        self.reads.read(lambda: store.get_events(user_id, limit=PAGE_SIZE, offset=offset), self._paged)

    def _paged(self, page: list[EventEntry]) -> None:
        self._has_more = len(page) == PAGE_SIZE
        self.append_rows(page)
        self.rows_read.emit()


class EventDelegate(QStyledItemDelegate):
    """Single-line editor for a summary; empty or too long text is refused at the field."""

    input_refused = Signal(str, str)
    long_text_requested = Signal(QModelIndex)  # a long or multi-line text: edit it in the dialog

    def __init__(self, bubble_host: QWidget, parent=None) -> None:
        super().__init__(parent)
        self.bubble = FieldErrorBubble(bubble_host)

    def createEditor(self, parent, option, index):
        if index.column() == COL_TAG:
            editor = QLineEdit(parent)
            editor.setObjectName("eventTagEditor")
            editor.setFrame(False)
            editor.setMaxLength(MAX_TAG_CHARS)
            editor.setPlaceholderText(self.tr("milestone, daily, mood…"))
            return editor
        if index.column() != COL_SUMMARY:
            return None
        if needs_dialog(index.data(Qt.ItemDataRole.EditRole)):
            self.long_text_requested.emit(QModelIndex(index))
            return None
        editor = QLineEdit(parent)
        editor.setObjectName("eventEditor")
        editor.setFrame(False)
        editor.setMaxLength(MAX_EVENT_CHARS)
        editor.setValidator(CheckValidator(check_event_text, editor))
        editor.textEdited.connect(lambda _t, e=editor: self._on_editor_text_edited(e))
        return editor

    def setEditorData(self, editor, index) -> None:
        editor.setText(index.data(Qt.ItemDataRole.EditRole) or "")

    def setModelData(self, editor, model, index) -> None:
        if index.column() == COL_TAG:
            model.setData(index, editor.text())
            return
        message = cast(CheckValidator, editor.validator()).message(editor.text())
        if message:
            self.input_refused.emit("event_summary", message)
            return
        model.setData(index, editor.text())

    def destroyEditor(self, editor, index) -> None:
        self.bubble.hide()
        super().destroyEditor(editor, index)

    def _on_editor_text_edited(self, editor: QLineEdit) -> None:
        message = cast(CheckValidator, editor.validator()).message(editor.text())
        mark_invalid(editor, message)
        self.bubble.show_for(editor, message)
