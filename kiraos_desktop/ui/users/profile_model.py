"""A user's profile entries as an editable table model, and the proxy that hides expired ones."""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QApplication

from kiraos_desktop.core.memory.records import StoreUnavailable
from kiraos_desktop.core.memory.records import CATEGORY_RANK, LimitError, ProfileEntry, ValidationError
from kiraos_desktop.core.storage.protocol import MemoryReader
from kiraos_desktop.core.timeutil import now_iso
from kiraos_desktop.ui.keyed_model import KeyedTableModel
from kiraos_desktop.ui.row_reads import RowReads
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.expiry import ExpiryInputError, describe_remaining, format_timestamp, parse_expiry_input

COL_KEY, COL_VALUE, COL_CATEGORY, COL_CONFIDENCE, COL_EXPIRES, COL_UPDATED = range(6)
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
EXPIRED_ROLE = Qt.ItemDataRole.UserRole + 2
KEY_ROLE = Qt.ItemDataRole.UserRole + 3
EDITABLE_COLUMNS = (COL_VALUE, COL_CATEGORY, COL_CONFIDENCE, COL_EXPIRES)
FIELD_OF_COLUMN = {COL_VALUE: "value", COL_CATEGORY: "category", COL_CONFIDENCE: "confidence",
                   COL_EXPIRES: "expires_at"}


def confidence_mark(confidence: float) -> str:
    return "✓" if confidence >= 0.8 else "?" if confidence >= 0.5 else "~"


#: The Profile tab, as the origin of its writes (ChangeEvent.origin): it shows them as it makes them.
ORIGIN = "profile"

class ProfileModel(KeyedTableModel):
    """Rows are `ProfileEntry` values of one user, in the store's order (category, confidence, recency).

    `setData` writes through the undoable writer; a refused write emits `write_failed(field, message)`
    and changes nothing.
    """

    write_failed = Signal(str, str)

    def __init__(self, store: MemoryReader, writer: UndoableWriter, parent=None) -> None:
        super().__init__(parent)
        self._store = store
        self._writer = writer
        self._user_id: str | None = None
        self.reads = RowReads(store, "kiraos-profile-rows", self)

    @property
    def user_id(self) -> str | None:
        return self._user_id

    def row_key(self, row: ProfileEntry) -> str:
        return row.key

    def load(self, user_id: str | None) -> None:
        self._user_id = user_id
        if not user_id:
            self.set_rows_reset([])
            self.rows_read.emit()
            return
        self.clear_until_read(self.reads)
        store = self._store
        self.reads.read(lambda: store.get_profiles(user_id), self._loaded)

    def refresh(self) -> None:
        user_id, store = self._user_id, self._store
        if user_id:
            self.reads.read(lambda: store.get_profiles(user_id), self._refreshed)

    def _loaded(self, rows: list[ProfileEntry]) -> None:
        self.set_rows_reset(rows)
        self.rows_read.emit()

    def _refreshed(self, rows: list[ProfileEntry]) -> None:
        self.sync_rows(rows)
        self.rows_read.emit()

    def expired_count(self) -> int:
        now = now_iso()
        return sum(1 for row in self._rows if row.is_expired(now))

    # ---- Qt model ------------------------------------------------------------------------

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else 6

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if (orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole
                and section == COL_CONFIDENCE):
            return self.tr("How sure the bot is, from 0 to 1. The mark after it is the one the bot's memory "
                           "block shows: ✓ 0.8 or more, ? 0.5 or more, ~ below 0.5. Higher comes first.")
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole or not 0 <= section < 6:
            return None
        return (self.tr("Key"), self.tr("Value"), self.tr("Category"), self.tr("Confidence"),
                self.tr("Expires"), self.tr("Updated"))[section]

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
        if index.column() in EDITABLE_COLUMNS:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        entry: ProfileEntry = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(entry, column)
        if role == Qt.ItemDataRole.EditRole:
            return self._edit_value(entry, column)
        if role == SORT_ROLE:
            return self._sort_value(entry, column)
        if role == EXPIRED_ROLE:
            return entry.is_expired(now_iso())
        if role == KEY_ROLE:
            return entry.key
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(entry, column)
        if role == Qt.ItemDataRole.ForegroundRole and entry.is_expired(now_iso()):
            return QApplication.palette().brush(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        if role == Qt.ItemDataRole.FontRole and entry.is_expired(now_iso()):
            font = QFont()
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and column == COL_CONFIDENCE:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _display(self, entry: ProfileEntry, column: int):
        if column == COL_KEY:
            return entry.key
        if column == COL_VALUE:
            return entry.value.replace("\n", " ⏎ ")
        if column == COL_CATEGORY:
            return entry.category
        if column == COL_CONFIDENCE:
            return f"{entry.confidence:.2f} {confidence_mark(entry.confidence)}"
        if column == COL_EXPIRES:
            if not entry.expires_at:
                return self.tr("never")
            hint = describe_remaining(entry.expires_at)
            date = format_timestamp(entry.expires_at, with_time=False)
            return f"{date} ({hint})" if hint else date
        if column == COL_UPDATED:
            return format_timestamp(entry.updated_at, with_time=False)
        return None

    @staticmethod
    def _edit_value(entry: ProfileEntry, column: int):
        return {COL_KEY: entry.key, COL_VALUE: entry.value, COL_CATEGORY: entry.category,
                COL_CONFIDENCE: entry.confidence, COL_EXPIRES: entry.expires_at or "",
                COL_UPDATED: entry.updated_at or ""}.get(column)

    @staticmethod
    def _sort_value(entry: ProfileEntry, column: int):
        if column == COL_CATEGORY:
            return CATEGORY_RANK.get(entry.category, len(CATEGORY_RANK))
        if column == COL_CONFIDENCE:
            return entry.confidence
        if column == COL_EXPIRES:
            return entry.expires_at or "9999"  # "never" sorts last
        return {COL_KEY: entry.key, COL_VALUE: entry.value, COL_UPDATED: entry.updated_at or ""}.get(column)

    def _tooltip(self, entry: ProfileEntry, column: int):
        if column == COL_VALUE:
            return entry.value
        if column == COL_EXPIRES and entry.expires_at:
            return self.tr("Expires {when}").format(when=format_timestamp(entry.expires_at))
        if column == COL_UPDATED:
            return entry.updated_at
        if column == COL_CONFIDENCE:
            return self.tr("✓ at least 0.8, ? at least 0.5, ~ below 0.5")
        return None

    def setData(self, index: QModelIndex | QPersistentModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or index.column() not in EDITABLE_COLUMNS:
            return False
        if self._user_id is None or index.row() >= len(self._rows):
            return False
        entry: ProfileEntry = self._rows[index.row()]
        column = index.column()
        field = FIELD_OF_COLUMN[column]
        changes = {"value": entry.value, "confidence": entry.confidence, "category": entry.category,
                   "expires_at": entry.expires_at}
        try:
            if column == COL_EXPIRES:
                changes["expires_at"] = parse_expiry_input(str(value or ""))
            elif column == COL_CONFIDENCE:
                changes["confidence"] = float(value)
            else:
                changes[field] = value
            if changes == {"value": entry.value, "confidence": entry.confidence, "category": entry.category,
                           "expires_at": entry.expires_at}:
                return True  # nothing changed: no write, no undo step
            user_id, key = self._user_id, entry.key
            updated = self._writer.write(
                self.tr("Edit {key}").format(key=key),
                lambda batch: batch.set_profile(user_id, key, changes["value"], confidence=changes["confidence"],
                                                category=changes["category"], expires_at=changes["expires_at"]),
                origin=ORIGIN)
        except StoreUnavailable:  # the writer reported it
            return False
        except (ValidationError, ExpiryInputError, LimitError, ValueError, TypeError) as exc:
            message = exc.message if isinstance(exc, ValidationError) else str(exc)
            self.write_failed.emit(getattr(exc, "field", field), message)
            return False
        self._rows[index.row()] = updated
        self.dataChanged.emit(self.index(index.row(), 0), self.index(index.row(), 5))
        return True


class ProfileFilterProxy(QSortFilterProxyModel):
    """Hides expired entries unless `show_expired`; sorts by each column's natural order."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._show_expired = False
        self.setSortRole(SORT_ROLE)

    @property
    def show_expired(self) -> bool:
        return self._show_expired

    def set_show_expired(self, show: bool) -> None:
        if show != self._show_expired:
            self.beginFilterChange()
            self._show_expired = show
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def recheck_expiry(self) -> None:
        """Entries expire with time, not with writes: re-run the filter now and then."""
        self.beginFilterChange()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        if self._show_expired:
            return True
        index = self.sourceModel().index(source_row, 0, source_parent)
        return not index.data(EXPIRED_ROLE)
