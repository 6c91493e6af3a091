"""The user list: a lazy table model over the store's user summary, sorted and filtered in SQL."""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal, Slot

from kiraos_desktop.core.memory.records import UserSummary
from kiraos_desktop.core.storage.protocol import MemoryReader
from kiraos_desktop.ui.keyed_model import KeyedTableModel
from kiraos_desktop.ui.tasks import TaskLane, plain
from kiraos_desktop.ui.users.expiry import format_timestamp

PAGE_SIZE = 200
SYNC_LIMIT = 3000  # up to this many loaded rows, a refresh re-reads them all and syncs
USER_ID_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_KEYS = ("user_id", "profile_count", "event_count", "last_activity")
COL_USER, COL_PROFILES, COL_EVENTS, COL_ACTIVITY = range(4)


class UsersModel(KeyedTableModel):
    """Holds loaded `UserSummary` rows; `fetchMore` reads the next page of `store.list_users`.

    Plain searches (user id) run on the GUI thread: an indexed table, milliseconds. A search in
    keys, values and events (core/storage/user_search.py) runs on a worker thread: it gives the count and
    the first page; `fetchMore` reads the next page after the last id shown (in id order, from the
    index) or from the ordered ids the search gave at once (other orders). The refresh after
    writes reads on a worker thread too (counting 100k users takes some 50 ms, and writes come
    all the time while a bot is busy); its answer is applied on the GUI thread (`refreshed`).
    """

    reloaded = Signal()  # rows were replaced (new search or sort): views restore their selection
    refreshed = Signal()  # a refresh after writes was applied
    busy_changed = Signal(bool)  # a content search is running
    failed = Signal(str)

    def __init__(self, store: MemoryReader, parent=None) -> None:
        super().__init__(parent)
        self._store = store
        self._search = ""
        self._in_content = False
        self._order_by = "user_id"
        self._descending = False
        self._total = 0
        # A content search: every id in the list's order (None: pages are read after the last id),
        # how many of them were read into rows, and whether the pages after the last id ran out.
        self._found: list[str] | None = []
        self._next_found = 0
        self._pages_done = True
        self._worker = TaskLane("kiraos-user-search", self)
        self._worker.finished.connect(self._on_worker_finished)
        self._refresher = TaskLane("kiraos-user-refresh", self)
        self._refresher.finished.connect(self._on_refresher_finished)
        self._generation = 0  # a reload makes the answers of refreshes started before it stale
        self._refresh_seq = 0  # only the newest refresh's answer is applied
        self._changed: set[str] | None = set()  # users changed since the last refresh was applied
        self.syncing = False  # rows are being brought up to date (not a choice of the user)
        self._busy = False
        self.reload()

    # ---- Qt model ------------------------------------------------------------------------

    def row_key(self, row: UserSummary) -> str:
        return row.user_id

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else 4

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < 4:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return (self.tr("User"), self.tr("Entries"), self.tr("Events"), self.tr("Last activity"))[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and section in (COL_PROFILES, COL_EVENTS):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        row: UserSummary = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == COL_USER:
                return row.user_id
            if column == COL_PROFILES:
                return str(row.profile_count)
            if column == COL_EVENTS:
                return str(row.event_count)
            if column == COL_ACTIVITY:
                return format_timestamp(row.last_activity)
        elif role == Qt.ItemDataRole.ToolTipRole and column == COL_ACTIVITY:
            return row.last_activity
        elif role == Qt.ItemDataRole.TextAlignmentRole and column in (COL_PROFILES, COL_EVENTS):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        elif role == USER_ID_ROLE:
            return row.user_id
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:
        if parent.isValid():
            return False
        if self._in_content and self._found is not None:
            return self._next_found < len(self._found)
        if self._in_content:
            return not self._pages_done and len(self._rows) < self._total
        return len(self._rows) < self._total

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> None:
        if not self.canFetchMore(parent):
            return
        if self._in_content:
            self.append_rows(self._found_page())
            return
        page = self._list(offset=len(self._rows), limit=PAGE_SIZE)
        before = len(self._rows)
        self.append_rows(page)
        if len(page) < PAGE_SIZE or len(self._rows) == before:
            self._total = len(self._rows)  # the end was reached earlier than counted (rows went away)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(SORT_KEYS):
            return
        order_by, descending = SORT_KEYS[column], order == Qt.SortOrder.DescendingOrder
        if (order_by, descending) == (self._order_by, self._descending):
            return
        self._order_by, self._descending = order_by, descending
        self.reload()

    # ---- queries -------------------------------------------------------------------------

    @property
    def search_text(self) -> str:
        return self._search

    @property
    def in_content(self) -> bool:
        return self._in_content

    @property
    def total(self) -> int:
        """Users matching the current search (loaded or not)."""
        return self._total

    @property
    def busy(self) -> bool:
        return self._busy

    def set_search(self, text: str, in_content: bool = False) -> None:
        text = text.strip()
        in_content = in_content and bool(text)
        if (text, in_content) == (self._search, self._in_content):
            return
        self._search, self._in_content = text, in_content
        self.reload()

    def reload(self) -> None:
        """Read from the first page again, replacing the rows (the view restores its selection)."""
        self._generation += 1
        if self._in_content:
            self._start_content_query()
            return
        self._worker_cancel()
        total = self._store.count_users(self._search, False)
        rows = self._list(offset=0, limit=PAGE_SIZE)
        self._total = total
        self.set_rows_reset(rows)
        self.reloaded.emit()

    def refresh(self, changed_users: frozenset | None, wait: bool = False) -> None:
        """Bring loaded rows up to date after writes, keeping selection and scroll position.

        Up to SYNC_LIMIT loaded rows are read again and synced (new users appear, order follows
        the sort). Beyond that, and for a content search (a slow query that is not re-run on
        every write; Enter in the search box runs it again), changed rows are updated in place.
        Without a content search the rows and the count are read on a worker thread: the rows
        change when its answer arrives, then `refreshed` is emitted (`wait`: read here, now, for a
        write of the window's own that shows its result at once).
        """
        if self._in_content:
            self._apply_refresh(None, changed_users or ())
            return
        if changed_users is None or self._changed is None:
            self._changed = None
        else:
            self._changed.update(changed_users)
        store, search, order_by, descending = self._store, self._search, self._order_by, self._descending
        loaded = len(self._rows)
        limit = max(loaded, PAGE_SIZE) if loaded <= SYNC_LIMIT else 0
        self._refresh_seq += 1  # answers of refreshes started before this one are stale
        seq, generation = self._refresh_seq, self._generation

        def work() -> tuple:
            total = store.count_users(search, False)
            rows = store.list_users(search, False, order_by, descending, 0, limit) if limit else None
            return seq, generation, loaded, total, rows

        if wait:
            self._take_refresh(work())
        else:
            self._refresher.submit(plain(work))

    @Slot(int, object, object)
    def _on_refresher_finished(self, _ticket: int, result, error) -> None:
        if error is not None:
            self.failed.emit(str(error))
            return
        self._take_refresh(result)

    def _take_refresh(self, result: tuple) -> None:
        seq, generation, loaded, total, rows = result
        if seq != self._refresh_seq:
            return  # a newer refresh is on its way (or was applied)
        if generation != self._generation or self._in_content:
            return  # the list was read again meanwhile (new search or sort)
        if loaded != len(self._rows):  # more rows were loaded meanwhile: read them all again
            self.refresh(frozenset())
            return
        changed, self._changed = self._changed, set()
        self._apply_refresh(rows, changed, total)

    def _apply_refresh(self, rows: list[UserSummary] | None, changed_users, total: int | None = None) -> None:
        self.syncing = True
        try:
            if rows is not None:
                self.sync_rows(rows)
            else:  # the loaded rows of the users named, one indexed read each
                self._update_in_place(changed_users or ())
        finally:
            self.syncing = False
        if total is not None:  # after the rows: the count says whether more can be fetched
            self._total = total
        self.refreshed.emit()

    def _update_in_place(self, user_ids) -> None:
        position_of = {row.user_id: i for i, row in enumerate(self._rows)}
        gone = []
        for user_id in user_ids:
            position = position_of.get(user_id, -1)
            if position < 0:
                continue
            summary = self._store.user_summary(user_id)
            if summary is None:
                gone.append(position)
            elif summary != self._rows[position]:
                self._rows[position] = summary
                self.dataChanged.emit(self.index(position, 0), self.index(position, 3))
        for position in sorted(gone, reverse=True):
            self.beginRemoveRows(QModelIndex(), position, position)
            del self._rows[position]
            self.endRemoveRows()
        if self._in_content:
            self._total -= len(gone)

    def _found_page(self) -> list[UserSummary]:
        """The next page of a content search's users (those whose data went meanwhile are left out)."""
        if self._found is None:
            after = self._rows[-1].user_id if self._rows else ""
            page = self._store.search_users_after(self._search, self._descending, after, PAGE_SIZE)
            if len(page) < PAGE_SIZE:
                self._pages_done = True
                self._total = len(self._rows) + len(page)
            return page
        ids = self._found[self._next_found:self._next_found + PAGE_SIZE]
        self._next_found += len(ids)
        page = self._store.user_summaries(ids)
        self._total -= len(ids) - len(page)
        return page

    def _list(self, offset: int, limit: int) -> list[UserSummary]:
        return self._store.list_users(self._search, False, self._order_by, self._descending, offset, limit)

    def _start_content_query(self) -> None:
        store, search = self._store, self._search
        order_by, descending = self._order_by, self._descending

        def work() -> tuple[int, list[UserSummary], list[str] | None]:
            return store.search_users(search, order_by, descending, PAGE_SIZE)

        self._found, self._next_found = [], 0  # the rows shown meanwhile are the previous search's
        self._worker.submit(plain(work))
        self._set_busy(True)

    def _worker_cancel(self) -> None:
        # A content search still running is answered later; its answer is ignored (see the ticket check).
        self._set_busy(False)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    @Slot(int, object, object)
    def _on_worker_finished(self, ticket: int, result, error) -> None:
        if ticket != self._worker.latest_ticket or not self._in_content:
            return
        self._set_busy(False)
        if error is not None:
            self.failed.emit(str(error))
            return
        total, first_page, ids = result
        self._found = ids
        if ids is None:
            self._pages_done = total <= len(first_page)
            self._total = total
        else:
            self._next_found = min(len(ids), PAGE_SIZE)
            self._total = len(ids) - (self._next_found - len(first_page))
        self.set_rows_reset(first_page)
        self.reloaded.emit()

    def shutdown(self) -> None:
        self._worker.stop()
        self._refresher.stop()
