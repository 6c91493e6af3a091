"""User picker of the preview: search the store's users, choose whose memory fills `<context>`."""
from __future__ import annotations


from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import QBoxLayout, QComboBox, QLineEdit, QWidget

from kiraos_desktop.ui.tasks import TaskLane, plain

#: How many matching users the picker lists (search narrows it down).
PICKER_LIMIT = 200
USER_ID_ROLE = Qt.ItemDataRole.UserRole + 1
_Index = QModelIndex | QPersistentModelIndex


class UserListModel(QAbstractListModel):
    """Row 0 is "no user" (an empty `<context>`); then users from `store.list_users`."""

    def __init__(self, store, parent: QObject | None = None):
        super().__init__(parent)
        self._store = store
        self._users: list = []
        self._search = ""

    def refresh(self, search: str | None = None) -> None:
        if search is not None:
            self._search = search
        self.set_users(self.read_users(self._store, self._search))

    @staticmethod
    def read_users(store, search: str) -> list:
        """The users the picker lists for `search`: the most recently active first, or, for a search,
        in id order (any thread: sorting every user by activity is a scan of the summary table, some
        100 ms on 100k users)."""
        if search:
            return store.list_users(search=search, order_by="user_id", limit=PICKER_LIMIT)
        return store.list_users(search=search, order_by="last_activity", descending=True, limit=PICKER_LIMIT)

    @property
    def search(self) -> str:
        return self._search

    def set_users(self, users: list) -> None:
        self.beginResetModel()
        self._users = users
        self.endResetModel()

    def user_id(self, row: int) -> str:
        return self._users[row - 1].user_id if 1 <= row <= len(self._users) else ""

    def row_of(self, user_id: str) -> int:
        for number, user in enumerate(self._users, start=1):
            if user.user_id == user_id:
                return number
        return 0 if not user_id else -1

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 (Qt override)
        return 0 if parent.isValid() else len(self._users) + 1

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() <= len(self._users):
            return None
        row = index.row()
        if row == 0:
            if role == Qt.ItemDataRole.DisplayRole:
                return self.tr("(no user: no <context>)")
            if role == USER_ID_ROLE:
                return ""
            return None
        user = self._users[row - 1]
        if role == Qt.ItemDataRole.DisplayRole:  # the id alone: a narrow pane cut the counts off
            return user.user_id
        if role == USER_ID_ROLE:
            return user.user_id
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tr("{0}: {1} profile entries, {2} events; last activity {3}").format(
                user.user_id, user.profile_count, user.event_count, user.last_activity or self.tr("never"))
        return None


# Narrower than this, the search field goes above the list (side by side it was ~60 px wide at 1024x700).
STACKED_BELOW = 300


class UserPicker(QWidget):
    """Search field + combo box. `userChanged(user_id)` ("" for no user); `memoryChanged` when the
    store reports a write (the preview then rebuilds its `<context>`)."""

    userChanged = Signal(str)
    memoryChanged = Signal()

    def __init__(self, store, store_changed, parent: QWidget | None = None):
        """`store_changed`: the window's coalesced change signal (store_signals.ChangeCoalescer.triggered),
        the one source of refreshes for every page."""
        super().__init__(parent)
        self._store = store
        self._store_changed = store_changed
        self.model = UserListModel(store, self)
        self.search_edit = QLineEdit(self)
        self.search_edit.setPlaceholderText(self.tr("Search users"))
        self.search_edit.setClearButtonEnabled(True)
        self.combo = QComboBox(self)
        self.combo.setModel(self.model)
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(16)
        layout = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search_edit, 1)
        layout.addWidget(self.combo, 2)
        self._layout = layout
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(200)
        self._search_timer.timeout.connect(self._on_search_timer_timeout)
        self.search_edit.textChanged.connect(self._on_search_edit_text_changed)
        self.search_edit.returnPressed.connect(self._on_search_edit_return_pressed)
        self.combo.currentIndexChanged.connect(self._on_combo_current_index_changed)
        store_changed.connect(self._on_store_changed)  # already coalesced: at most one per 300 ms
        self._detached = False
        self._current = ""
        # After a write the list is read on this thread, off the GUI thread (the newest read wins).
        self._worker = TaskLane("kiraos-user-picker", self)
        self._worker.finished.connect(self._on_worker_finished)
        self.model.refresh()

    def detach(self) -> None:
        """Stop following the store (safe to call more than once); a change already queued is dropped,
        so nothing reads the store after the page is closed (its data dir may be gone)."""
        if not self._detached:
            self._store_changed.disconnect(self._on_store_changed)
        self._detached = True
        self._search_timer.stop()
        self._worker.stop()

    def current_user(self) -> str:
        return self._current

    def set_user(self, user_id: str) -> bool:
        """Choose a user (searching for it when it is not listed); False when it does not exist."""
        row = self.model.row_of(user_id)
        if row < 0:
            self.search_edit.setText(user_id)
            self._on_search_timer_timeout()
            row = self.model.row_of(user_id)
        if row < 0:
            return False
        self.combo.setCurrentIndex(row)
        self._select(user_id)
        return True

    def first_user_with_memory(self) -> str:
        """The most recently active user who has profile entries or events ("" when none)."""
        for user in self._store.list_users(order_by="last_activity", descending=True, limit=50):
            if user.profile_count or user.event_count:
                return user.user_id
        return ""

    def _select(self, user_id: str) -> None:
        if user_id != self._current:
            self._current = user_id
            self.userChanged.emit(user_id)

    def _on_search_edit_text_changed(self, _text: str) -> None:
        self._search_timer.start()

    def _on_search_timer_timeout(self) -> None:
        self._search_timer.stop()
        self._reload(self.search_edit.text().strip())
        self._pick_match(keep_current=True)

    def _on_search_edit_return_pressed(self) -> None:
        """Enter picks: the user whose id is the text, else the first match."""
        self._on_search_timer_timeout()
        self._pick_match(keep_current=False)

    def _pick_match(self, keep_current: bool) -> None:
        """The field filters and picks: a user whose id is the typed text, else (unless the current
        user is still listed and `keep_current`) the first match in id order."""
        text = self.search_edit.text().strip()
        if not text or self.model.rowCount() < 2:
            return
        row = self.model.row_of(text)
        if row < 1:
            if keep_current and self.model.row_of(self._current) >= 1:
                return
            row = 1
        self.combo.setCurrentIndex(row)

    def _reload(self, search: str | None = None, users: list | None = None) -> None:
        """Read the list again (`users`: read already, for the model's current search)."""
        current = self._current
        self.combo.blockSignals(True)
        try:
            if users is None:
                self.model.refresh(search)
            else:
                self.model.set_users(users)
            row = self.model.row_of(current)
            self.combo.setCurrentIndex(row if row >= 0 else 0)
        finally:
            self.combo.blockSignals(False)
        if self.model.row_of(current) < 0 and self.combo.currentIndex() == 0 and search is None:
            self._select("")  # the chosen user was deleted

    def _on_combo_current_index_changed(self, row: int) -> None:
        self._select(self.model.user_id(row) if row >= 0 else "")

    def _on_store_changed(self, _user_ids=None) -> None:
        if self._detached:
            return
        store, search = self._store, self.model.search
        self._worker.submit(plain(lambda: (search, UserListModel.read_users(store, search))))
        self.memoryChanged.emit()

    def _on_worker_finished(self, ticket: int, result, error) -> None:
        if self._detached or ticket != self._worker.latest_ticket or error is not None:
            return  # a failed read leaves the list as it was; the next write reads it again
        search, users = result
        if search == self.model.search:  # not a list for a search typed since
            self._reload(users=users)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        direction = QBoxLayout.Direction.TopToBottom if self.width() < STACKED_BELOW else \
            QBoxLayout.Direction.LeftToRight
        if self._layout.direction() != direction:
            self._layout.setDirection(direction)
