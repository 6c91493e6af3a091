"""A user's audit entries (newest first, paged by id) and a readable before → after for each."""
from __future__ import annotations

import json
from enum import Enum

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt

from kiraos_desktop.core.storage.revert import REVERTIBLE
from kiraos_desktop.core.memory.records import ChangeRecord
from kiraos_desktop.core.storage.protocol import MemoryReader
from kiraos_desktop.ui.keyed_model import KeyedTableModel
from kiraos_desktop.ui.row_reads import RowReads
from kiraos_desktop.ui.users.expiry import format_timestamp


class History(QObject):
    """Translation context of the change descriptions: `History.tr()` is what lupdate reads (plurals included)."""


PAGE_SIZE = 200
COL_TIME, COL_ACTOR, COL_ACTION, COL_TARGET, COL_CHANGE = range(5)
CHANGE_ID_ROLE = Qt.ItemDataRole.UserRole + 1
REVERTIBLE_ROLE = Qt.ItemDataRole.UserRole + 2
ARROW = " → "


def _short(text: str, limit: int | None = 60) -> str:
    """One line, cut to `limit` characters (None: whole)."""
    text = str(text).replace("\n", " ")
    return text if limit is None or len(text) <= limit else text[:limit - 1] + "…"


def _profile_text(entry: dict | None, limit: int | None = 60) -> str:
    if not entry:
        return "∅"
    extra = f" [{entry.get('category', 'basic')}, {float(entry.get('confidence') or 0):.2f}"
    if entry.get("expires_at"):
        extra += ", " + History.tr("expires {date}").format(date=format_timestamp(entry["expires_at"]))
    return _short(entry.get("value", ""), limit) + extra + "]"


def describe_change(change: ChangeRecord, limit: int | None = 60) -> str:
    """`小明 [basic, 0.90] → 小红 [basic, 0.90]`, `+ 完成半马`, `5 entries, 2 events → cleared`…; texts cut
    to `limit` characters (None: whole, for the tooltip)."""
    before, after = change.before, change.after
    action = change.action
    if action == "profile_set":
        return _profile_text(before, limit) + ARROW + _profile_text(after, limit)
    if action == "profile_delete":
        return _profile_text(before, limit) + ARROW + History.tr("deleted")
    if action == "event_add":
        return "+ " + _short((after or {}).get("summary", ""), limit)
    if action == "event_update":
        return (_short((before or {}).get("summary", ""), limit and 40) + ARROW
                + _short((after or {}).get("summary", ""), limit and 40))
    if action == "event_delete":
        return _short((before or {}).get("summary", ""), limit) + ARROW + History.tr("deleted")
    if action == "event_trim":
        trimmed = len((before or {}).get("events", []))
        return History.tr("%n oldest events", "", trimmed) + ARROW + History.tr("trimmed")
    if action == "user_clear":
        snapshot = before or {}
        counts = History.tr("{entries}, {events}").format(
            entries=History.tr("%n entries", "", len(snapshot.get("profiles", []))),
            events=History.tr("%n events", "", len(snapshot.get("events", []))))
        return counts + ARROW + History.tr("cleared")
    if action == "purge_expired":
        purged = len((before or {}).get("profiles", []))
        return History.tr("%n expired entries", "", purged) + ARROW + History.tr("purged")
    if action == "import":
        data = after or {}
        return History.tr("imported {entries}, {events}").format(
            entries=History.tr("%n entries", "", data.get("profiles", 0)),
            events=History.tr("%n events", "", data.get("events", 0)))
    return (_short(json.dumps(before, ensure_ascii=False), limit) + ARROW
            + _short(json.dumps(after, ensure_ascii=False), limit))


def target_label(change: ChangeRecord) -> str:
    """Profile key as is; event ids as `#123` (they mean little on their own)."""
    if not change.target:
        return ""
    return f"#{change.target}" if change.action.startswith("event_") else change.target


def action_label(action: str) -> str:
    return {
        "profile_set": History.tr("set entry"),
        "profile_delete": History.tr("delete entry"),
        "event_add": History.tr("add event"),
        "event_update": History.tr("edit event"),
        "event_delete": History.tr("delete event"),
        "event_trim": History.tr("trim events"),
        "user_clear": History.tr("clear memory"),
        "purge_expired": History.tr("purge expired"),
        "import": History.tr("import"),
    }.get(action, action)


def actor_label(actor: str) -> str:
    """Who made a change, in the window's language (the stored word for one not known here)."""
    return {
        "gui": History.tr("window"),
        "tool": History.tr("bot (tool call)"),
        "api": History.tr("API"),
        "cli": History.tr("command line"),
        "import": History.tr("import"),
    }.get(actor, actor)


class ChangeField(Enum):
    """What a column of an audit table shows (the History tab, the Overview feed)."""

    TIME = "time"
    ACTOR = "actor"
    USER = "user"
    ACTION = "action"
    TARGET = "target"
    CHANGE = "change"
    SUMMARY = "summary"  # action, profile key and change on one line


def change_text(change: ChangeRecord, field: ChangeField) -> str:
    """One cell of an audit row, formatted the same wherever audit rows are listed."""
    if field is ChangeField.TIME:
        return format_timestamp(change.at)
    if field is ChangeField.ACTOR:
        return actor_label(change.actor)
    if field is ChangeField.USER:
        return change.user_id
    if field is ChangeField.ACTION:
        return action_label(change.action)
    if field is ChangeField.TARGET:
        return target_label(change)
    if field is ChangeField.CHANGE:
        return describe_change(change)
    # The summary names the profile key but leaves out event ids (they mean little on their own).
    target = "" if not change.target or change.action.startswith("event_") else f" {change.target}"
    return f"{action_label(change.action)}{target}: {describe_change(change)}"


def change_tooltip(change: ChangeRecord, field: ChangeField) -> str | None:
    """The stored timestamp behind the short time; the full before and after behind the change."""
    if field is ChangeField.TIME:
        return change.at
    if field is ChangeField.CHANGE:  # the whole change, which the column may cut: wrapped, then the records
        return (describe_change(change, limit=None) + "\n\n" + json.dumps(change.before, ensure_ascii=False, indent=1)
                + "\n→\n" + json.dumps(change.after, ensure_ascii=False, indent=1))
    if field is ChangeField.ACTOR:
        return change.actor  # the stored word, for the command line and the API
    return None


class HistoryModel(KeyedTableModel):
    """Rows are `ChangeRecord`s of one user (or of everyone when user_id is None), newest first."""

    FIELDS = (ChangeField.TIME, ChangeField.ACTOR, ChangeField.ACTION, ChangeField.TARGET, ChangeField.CHANGE)

    def __init__(self, store: MemoryReader, parent=None, page_size: int = PAGE_SIZE) -> None:
        super().__init__(parent)
        self._store = store
        self._user_id: str | None = None
        self._all_users = False
        self._page = page_size
        self._has_more = False
        self.reads = RowReads(store, "kiraos-history-rows", self)

    def row_key(self, row: ChangeRecord) -> int:
        return row.id

    @property
    def user_id(self) -> str | None:
        return self._user_id

    def load(self, user_id: str | None, all_users: bool = False) -> None:
        self._user_id, self._all_users = user_id, all_users
        self._has_more = False
        self.clear_until_read(self.reads)
        read, limit = self._reader(self._page), self._page
        self.reads.read(read, lambda rows: self._arrived(rows, limit, self.set_rows_reset))

    def refresh(self) -> None:
        limit = max(len(self._rows), self._page)
        self.reads.read(self._reader(limit), lambda rows: self._arrived(rows, limit, self.sync_rows))

    def _arrived(self, rows: list[ChangeRecord], limit: int, put) -> None:
        self._has_more = len(rows) == limit
        put(rows)
        self.rows_read.emit()

    def _reader(self, limit: int, before_id: int | None = None):
        """The read of the rows asked for, as a call that needs nothing of this model (it may run on a lane)."""
        store, user_id, all_users = self._store, self._user_id, self._all_users
        if not all_users and not user_id:
            return lambda: []
        return lambda: store.list_changes(None if all_users else user_id, limit=limit, before_id=before_id)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else 5

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole or not 0 <= section < 5:
            return None
        return (self.tr("Time"), self.tr("Actor"), self.tr("Action"), self.tr("Target"),
                self.tr("Before → after"))[section]

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        change: ChangeRecord = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return change_text(change, self.FIELDS[index.column()])
        if role == Qt.ItemDataRole.ToolTipRole:
            return change_tooltip(change, self.FIELDS[index.column()])
        if role == CHANGE_ID_ROLE:
            return change.id
        if role == REVERTIBLE_ROLE:
            return change.action in REVERTIBLE
        return None

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:
        return not parent.isValid() and self._has_more

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> None:
        if not self.canFetchMore(parent) or not self._rows:
            return
        limit = self._page
        self._has_more = False  # until the page arrives
        self.reads.read(self._reader(limit, before_id=self._rows[-1].id),
                        lambda page: self._arrived(page, limit, self.append_rows))
