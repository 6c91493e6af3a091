"""The Users page: search and the lazy user list on the left, the selected user's detail on the right."""
from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.context.builder import ContextBuilder
from kiraos_desktop.core.storage.protocol import MemoryReader
from kiraos_desktop.ui.empty_state import EmptyState
from kiraos_desktop.ui.views import setup_table
from kiraos_desktop.ui.prompts import Prompts
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.entry_dialogs import AddProfileDialog
from kiraos_desktop.ui.users.user_detail import UserDetail
from kiraos_desktop.ui.users.users_model import COL_ACTIVITY, COL_EVENTS, COL_PROFILES, COL_USER, USER_ID_ROLE, UsersModel

SEARCH_DELAY_MS = 250
ID_SAMPLE = "qq_1000000000"


class UsersPage(QWidget):
    status_message = Signal(str)

    def __init__(self, store: MemoryReader, writer: UndoableWriter, context: ContextBuilder, prompts: Prompts,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._writer = writer
        self.new_user_dialog: AddProfileDialog | None = None
        self._stale: frozenset | None = frozenset()
        self._has_stale = False
        self.model = UsersModel(store, self)
        self.search_edit = QLineEdit()
        self.search_edit.setObjectName("userSearch")
        self.search_edit.setPlaceholderText(self.tr("Search user id…  (Ctrl+F)"))
        self.search_edit.setClearButtonEnabled(True)
        self.content_box = QCheckBox(self.tr("Also search in keys, values and events"))
        self.content_box.setToolTip(self.tr(
            "Also lists users who have every word of the search in their keys, values or events (each word "
            "may be in a different one). Chinese is split into words (橘猫, 面试); each word matches the start "
            "of a word in any case (teach finds teacher); particles and punctuation (的, the, !) are left out. "
            "A single character, or a search of particles only, is looked for as written, anywhere (slower "
            "on a big database)."))
        self.count_label = QLabel()
        self.count_label.setObjectName("userCount")
        self.view = QTableView()
        self.view.setObjectName("usersView")
        self.view.setModel(self.model)
        setup_table(self.view)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(COL_USER, Qt.SortOrder.AscendingOrder)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(COL_USER, QHeaderView.ResizeMode.Stretch)
        # Fixed widths from the font, not ResizeToContents: that asks the model for every loaded row
        # on each layout pass (tens of thousands of data() calls while the window is built).
        metrics = self.view.fontMetrics()
        fixed = 0
        for column, sample in ((COL_PROFILES, "Entries00"), (COL_EVENTS, "Events00"),
                               (COL_ACTIVITY, "2026-12-31 23:59 ")):
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 12)
            fixed += header.sectionSize(column)
        # Ids stay readable however narrow the window: the list keeps room for a typical id (a QQ
        # number with a prefix), and a longer one loses its middle, not its distinguishing end.
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        scrollbar = self.view.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        # In a small window the Last activity column goes (it is the user's detail header too), so the
        # detail keeps room for its tables.
        self._id_width = metrics.horizontalAdvance(ID_SAMPLE) + 16
        self._full_width = self._id_width + fixed
        self._scrollbar = scrollbar
        self._list_min_width = self._full_width - header.sectionSize(COL_ACTIVITY) + scrollbar + 4
        self.empty_state = EmptyState(self.view)
        self.detail = UserDetail(store, writer, context, prompts)
        left = QWidget()
        left.setMinimumWidth(self._list_min_width)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.search_edit)
        options = QHBoxLayout()
        options.addWidget(self.content_box)
        options.addStretch(1)
        left_layout.addLayout(options)
        left_layout.addWidget(self.view, 1)
        self.new_user_button = QPushButton(self.tr("New user…"))
        self.new_user_button.setToolTip(self.tr("Create a user's memory with a first profile entry (Ctrl+Shift+N)"))
        bottom = QHBoxLayout()
        bottom.addWidget(self.count_label, 1)
        bottom.addWidget(self.new_user_button)
        left_layout.addLayout(bottom)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("usersSplitter")
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([360, 760])
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.splitter)

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self._on_search_timer_timeout)
        self.search_edit.textChanged.connect(self._on_search_edit_text_changed)
        self.search_edit.returnPressed.connect(self._on_search_edit_return_pressed)
        self.content_box.toggled.connect(self._on_content_box_toggled)
        writer.stack.indexChanged.connect(self._on_undo_stack_index_changed)
        self.view.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.model.reloaded.connect(self._on_model_reloaded)
        self.model.refreshed.connect(self._on_model_refreshed)
        self.model.busy_changed.connect(self._on_model_busy_changed)
        self.model.failed.connect(self._on_model_failed)
        for signal in (self.model.rowsInserted, self.model.rowsRemoved, self.model.modelReset):
            signal.connect(self._on_model_rows_changed)
        self._syncing = False
        self.model.rowsInserted.connect(self._on_model_rows_inserted)
        self.detail.status_message.connect(self.status_message)
        find = QAction(self.tr("Find user"), self)
        find.setShortcut(QKeySequence(QKeySequence.StandardKey.Find))
        find.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        find.triggered.connect(self._on_find_action_triggered)
        self.addAction(find)
        # Ctrl+Tab / Ctrl+Shift+Tab switch the user's tabs wherever the focus is on this page.
        for keys, step in ((QKeySequence.StandardKey.NextChild, 1), (QKeySequence.StandardKey.PreviousChild, -1)):
            switch = QShortcut(QKeySequence(keys), self)
            switch.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            switch.activated.connect(lambda step=step: self._switch_tab(step))
        new_user = QShortcut(QKeySequence("Ctrl+Shift+N"), self)
        new_user.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        new_user.activated.connect(self.new_user)
        self.new_user_button.clicked.connect(self.new_user)
        open_user = QShortcut(QKeySequence(Qt.Key.Key_Return), self.view)
        open_user.setContext(Qt.ShortcutContext.WidgetShortcut)
        open_user.activated.connect(self._on_open_user_shortcut_activated)
        self.search_edit.installEventFilter(self)
        self.view.installEventFilter(self)
        self._update_count()

    # ---- public --------------------------------------------------------------------------

    def selected_user_id(self) -> str | None:
        rows = self.view.selectionModel().selectedRows()
        return rows[0].data(USER_ID_ROLE) if rows else None

    def select_user(self, user_id: str) -> bool:
        for row in range(self.model.rowCount()):
            if self.model.row_at(row).user_id == user_id:
                self._select_row(row)
                return True
        return False

    def select_first_user(self) -> bool:
        if self.model.rowCount() == 0:
            return False
        self._select_row(0)
        return True

    def new_user(self) -> None:
        """Ask for an id and a first profile entry; write them (undoable) and show the new user."""
        def submit(key: str, value: str, category: str, confidence: float, expires_at: str | None) -> None:
            user_id = dialog.user_id()
            self._writer.write(self.tr("New user {user}").format(user=user_id),
                               lambda batch: batch.set_profile(user_id, key, value, confidence=confidence,
                                                               category=category, expires_at=expires_at))
            self.model.refresh(frozenset([user_id]), wait=True)  # the new row, to select it now
            if not self.select_user(user_id):
                self.detail.set_user(user_id)
            self.status_message.emit(self.tr("Created {user}.").format(user=user_id))

        dialog = AddProfileDialog(None, submit, set(), self,
                                  user_exists=lambda uid: self._store.user_summary(uid) is not None)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.destroyed.connect(self._on_new_user_dialog_destroyed)
        self.new_user_dialog = dialog
        dialog.open()

    def _on_new_user_dialog_destroyed(self, *_args) -> None:
        self.new_user_dialog = None

    def refresh(self, changed_users: frozenset | None, origins: dict[str, str | None] | None = None) -> None:
        """Apply a coalesced change now if the page is visible, else when it is shown. The list
        follows when the model's reads arrive (`_on_model_refreshed`)."""
        if not self.isVisible():
            self._merge_stale(changed_users)
            return
        self.model.refresh(changed_users)
        self.detail.refresh(changed_users, origins)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._has_stale:
            stale, self._stale, self._has_stale = self._stale, frozenset(), False
            self.refresh(stale)

    def shutdown(self) -> None:
        self.model.shutdown()

    # ---- internals -----------------------------------------------------------------------

    def _merge_stale(self, changed_users: frozenset | None) -> None:
        if changed_users is None or self._stale is None:
            self._stale = None
        else:
            self._stale = self._stale | changed_users
        self._has_stale = True

    def _select_row(self, row: int) -> None:
        index = self.model.index(row, 0)
        self.view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(index)

    def _on_model_rows_inserted(self, *_args) -> None:
        """The user on display came back (an undone clear): select them again."""
        user_id = self.detail.user_id
        if user_id is not None and not self.view.selectionModel().hasSelection():
            row = self.model.row_of_key(user_id)
            if row >= 0:
                self._select_row(row)

    def _on_model_refreshed(self) -> None:
        if self.detail.user_id is not None and self.model.row_of_key(self.detail.user_id) < 0:
            self._syncing = True
            try:
                self.view.selectionModel().clearSelection()  # the user on display left the list (cleared)
            finally:
                self._syncing = False
        self._update_count()

    def _on_selection_changed(self, *_args) -> None:
        if self._syncing or self.model.syncing:  # a row removed under the selection is not a choice of another user
            return
        user_id = self.selected_user_id()
        # An empty selection (the row went away, or a new search) keeps the detail on screen.
        if user_id is not None and user_id != self.detail.user_id:
            self.detail.set_user(user_id)

    def _on_model_reloaded(self) -> None:
        user_id = self.detail.user_id
        if user_id is not None:
            for row in range(self.model.rowCount()):
                if self.model.row_at(row).user_id == user_id:
                    self._select_row(row)
                    break
        self._update_count()

    def _on_undo_stack_index_changed(self, _index: int) -> None:
        """A write, undo or redo of this window: a search in keys, values and events is run again
        (other writes only update the rows it found), so the list follows what the user just did."""
        if self.model.in_content and self.isVisible():
            self.model.reload()

    def _on_search_edit_text_changed(self, _text: str) -> None:
        self._search_timer.start()

    def _on_search_edit_return_pressed(self) -> None:
        self._search_timer.stop()
        if (self.search_edit.text().strip(), self.content_box.isChecked()) == (self.model.search_text,
                                                                             self.model.in_content):
            self.model.reload()  # Enter runs the same search again (a content search is not live)
        else:
            self._on_search_timer_timeout()
        if self.model.rowCount():
            self.view.setFocus()
            if not self.view.selectionModel().hasSelection():
                self._select_row(0)

    def _on_content_box_toggled(self, _checked: bool) -> None:
        self._search_timer.stop()
        self._on_search_timer_timeout()

    def _on_search_timer_timeout(self) -> None:
        self.model.set_search(self.search_edit.text(), self.content_box.isChecked())
        self._update_count()

    def _on_open_user_shortcut_activated(self) -> None:
        """Enter on a user: go to the open tab of the detail (Ctrl+F or a click comes back)."""
        page = self.detail.tabs.currentWidget()
        view = getattr(page, "view", None) or getattr(page, "text_view", None) or page
        view.setFocus()

    def _switch_tab(self, step: int) -> None:
        tabs = self.detail.tabs
        tabs.setCurrentIndex((tabs.currentIndex() + step) % tabs.count())

    def _on_find_action_triggered(self) -> None:
        self.search_edit.setFocus()
        self.search_edit.selectAll()

    def _on_model_failed(self, message: str) -> None:
        self.status_message.emit(self.tr("Search failed: {message}").format(message=message))

    def eventFilter(self, watched, event) -> bool:
        from PySide6.QtCore import QEvent

        if watched is self.search_edit and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Down:
            self.view.setFocus()
            if not self.view.selectionModel().hasSelection() and self.model.rowCount():
                self._select_row(0)
            return True
        if watched is self.view and event.type() == QEvent.Type.Resize:
            room = event.size().width() - self._scrollbar - 4  # the viewport is resized after this event
            self.view.setColumnHidden(COL_ACTIVITY, room < self._full_width)
        return super().eventFilter(watched, event)

    def _on_model_busy_changed(self, _busy: bool) -> None:
        self._update_count()

    def _on_model_rows_changed(self, *_args) -> None:
        self._update_count()

    def _update_count(self, *_args) -> None:
        model = self.model
        if model.busy:
            self.count_label.setText(self.tr("Searching keys, values and events…"))
        elif model.search_text:
            self.count_label.setText(self.tr("%Ln users match “{text}”", "", model.total).format(
                text=model.search_text))
        else:
            self.count_label.setText(self.tr("%Ln users", "", model.total))
        if model.busy:
            hint = self.tr("Searching…")
        elif model.search_text:
            hint = self.tr("No user matches “{text}”.").format(text=model.search_text)
            if not self.content_box.isChecked():
                hint += "\n" + self.tr("Tick “Also search in keys, values and events” to look inside memories.")
        else:
            hint = self.tr("No users yet.\nMemory appears here as soon as the bot stores something "
                           "(memory_update, or the API).\nHelp > Guide (F1) explains how a bot connects.")
        self.empty_state.update_state(model.rowCount(), hint)
