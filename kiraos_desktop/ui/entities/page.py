"""The entity list of a KiraOS 3.x tree (type filter, search) beside the chosen entity; read off the GUI thread."""
from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.memory.records import NotFoundError
from kiraos_desktop.core.storage.tree.tree import KINDS, EntityTree
from kiraos_desktop.ui.empty_state import EmptyState
from kiraos_desktop.ui.entities.detail import EntityDetailView
from kiraos_desktop.ui.entities.editing import TreeEditActions
from kiraos_desktop.ui.entities.refusal_texts import refusal_text
from kiraos_desktop.ui.entities.models import SORT_ROLE, EntityListModel
from kiraos_desktop.ui.tasks import TaskRunner
from kiraos_desktop.ui.views import setup_table

SEARCH_DELAY_MS = 300  # typing pauses this long before a search starts
WATCH_MS = 1000  # how often the tree's change stamp is looked at while the page is shown


class EntitiesPage(QWidget):
    """Lists the tree's entities; `listed` is emitted once a listing (or search) is shown."""

    listed = Signal()
    counted = Signal()  # the listed entities were read: their counts are the detail's

    def __init__(self, tree: EntityTree, parent: QWidget | None = None, actions: TreeEditActions | None = None) -> None:
        super().__init__(parent)
        self._tree = tree
        self._runner: TaskRunner | None = None
        self._counter: TaskRunner | None = None  # the reading pass after a quick listing
        self._listing: tuple = (None, None)  # (kind, search) of the listing asked for last
        self._searching = False  # the running listing has a search (its progress says so)
        self.kind = QComboBox()
        self.kind.setObjectName("entityKind")
        self.search = QLineEdit()
        self.search.setObjectName("entitySearch")
        self.search.setClearButtonEnabled(True)
        self.reload_button = QPushButton()
        self.status = QLabel()
        self.model = EntityListModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.view = QTableView()
        self.view.setObjectName("entityList")
        setup_table(self.view)
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the tree's order until a header is clicked
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.view.horizontalHeader().setStretchLastSection(False)
        self.empty = EmptyState(self.view)
        self.detail = EntityDetailView(tree, actions=actions)
        if actions is not None:  # after a write: the entity read again, the list's counts too
            actions.changed.connect(self._on_actions_changed)
        top = QHBoxLayout()
        top.addWidget(self.kind)
        top.addWidget(self.search, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.reload_button)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(top)
        left_layout.addWidget(self.view, 1)
        left_layout.addLayout(bottom)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([900, 1100])  # the detail's six tabs whole at 1024 pixels; the list scrolls sideways
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.reload)
        self.search.textChanged.connect(self._search_timer.start)
        self.kind.currentIndexChanged.connect(self.reload)
        self.reload_button.clicked.connect(self.reload)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Refresh), self, self.reload)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self, self.search.setFocus)
        self.view.selectionModel().currentRowChanged.connect(self._show_current)
        # The plugin's own writes appear without a reload: a few stats a second (EntityTree.change_stamp).
        self._stamp: tuple | None = None
        self._watch = QTimer(self)
        self._watch.setInterval(WATCH_MS)
        self._watch.timeout.connect(self._check_changes)
        self.retranslate()

    def retranslate(self) -> None:
        current = self.kind.currentIndex()
        self.kind.blockSignals(True)
        self.kind.clear()
        self.kind.addItem(self.tr("All"), None)
        for kind in KINDS:
            self.kind.addItem(self.model.kind_label(kind), kind)
        self.kind.setCurrentIndex(max(0, current))
        self.kind.blockSignals(False)
        self.search.setPlaceholderText(self.tr("Search profiles and memories (Ctrl+F)"))
        self.search.setToolTip(self.tr(
            "Each word must begin a word of a profile field, fact or reflection (teach finds teacher), "
            "Chinese words too; a single character is looked for anywhere"))
        self.reload_button.setText(self.tr("Reload"))
        self.reload_button.setToolTip(self.tr("Read the tree again (F5)"))
        self.detail.retranslate()
        self._update_empty()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._watch.start()

    def hideEvent(self, event) -> None:
        self._watch.stop()
        super().hideEvent(event)

    def _check_changes(self) -> None:
        if self._runner is not None and self._runner.is_running():
            return  # a listing is under way: it reads what changed
        stamp = self._tree.change_stamp(self._current_ref())
        if self._stamp is not None and stamp != self._stamp:
            self.reload()
        self._stamp = stamp

    def reload(self) -> None:
        """List again, with the type and search as they are now, on a worker thread."""
        self._stamp = self._tree.change_stamp(self._current_ref())
        kind, search = self.kind.currentData(), self.search.text().strip() or None
        self._searching = bool(search)
        self.status.setText(self.tr("Searching…") if search else self.tr("Reading the tree…"))
        tree = self._tree
        if self._runner is not None and self._runner.is_running():
            self._runner.cancel()  # replaced: it stops at its next entity
        if self._counter is not None and self._counter.is_running():
            self._counter.cancel()
        self._counter = None
        self._listing = (kind, search)
        # No parent: the runner keeps itself alive until its thread ends, so closing the window during a
        # long search deletes nothing that is running. Bound slots of the page are let go with the page.
        runner = TaskRunner(lambda progress, cancelled: tree.entities(kind=kind, search=search, progress=progress))
        runner.progressed.connect(self._on_runner_progressed)
        runner.succeeded.connect(self._on_runner_succeeded)
        runner.failed.connect(self._on_runner_failed)
        self._runner = runner
        runner.start()

    def _on_actions_changed(self, label: str) -> None:
        self.detail.refresh()
        self.reload()

    def _on_runner_progressed(self, done: int, total: int) -> None:
        if self.sender() is not self._runner or done >= total:
            return
        if self._searching:  # the first search reads every file: seconds on a large tree
            text = self.tr("Searching… {done} of {total} entities read")
        else:
            text = self.tr("Reading the tree… {done} of {total} entities")
        self.status.setText(text.format(done=f"{done:,}", total=f"{total:,}"))

    def _on_runner_succeeded(self, rows: list) -> None:
        if self.sender() is self._runner:  # a listing asked for later replaces this one
            self._listed(rows)
            kind, search = self._listing
            if not search:  # listed from names: the memories as the detail reads them, counted next
                self._count(kind)

    def _count(self, kind) -> None:
        """Read every listed entity on a worker thread and put its counts in the list (the quick
        listing counts files and profile.json's problems; a file that cannot be read is a problem,
        not a fact, as the detail says)."""
        tree = self._tree
        runner = TaskRunner(lambda progress, cancelled: tree.entities(kind=kind, read=True, progress=progress))
        runner.succeeded.connect(self._on_counter_succeeded)
        self._counter = runner
        runner.start()

    def _on_counter_succeeded(self, rows: list) -> None:
        if self.sender() is self._counter:
            self.model.update_counts(rows)
            self.counted.emit()

    def _on_runner_failed(self, message: str) -> None:
        if self.sender() is self._runner:
            self.status.setText(self.tr("The tree could not be read: {reason}").format(reason=message))

    def _listed(self, rows: list) -> None:
        current = self._current_ref()
        self.model.set_rows(rows)
        self.status.setText(self.tr("%n entities", "", len(rows)))
        self._update_empty()
        if current is not None:
            # Chosen again, which reads it again (the reset left no current row); gone from the list
            # (filtered out or removed), nothing is shown.
            rows_now = (self.proxy.mapToSource(self.proxy.index(row, 0)).row() for row in range(self.proxy.rowCount()))
            found = next((n for n, source in enumerate(rows_now) if self.model.row_at(source).ref == current), None)
            if found is None:
                self.detail.show_entity(None)
            else:
                self.view.selectRow(found)
        self.listed.emit()

    def _update_empty(self) -> None:
        text = self.tr("No entity matches the search") if self.search.text().strip() else self.tr(
            "The tree holds no entity yet: the plugin writes one when a user first talks to the bot")
        self.empty.update_state(self.model.rowCount(), text)

    def _current_ref(self):
        index = self.view.currentIndex()
        if not index.isValid():
            return None
        return self.model.row_at(self.proxy.mapToSource(index).row()).ref

    def _show_current(self, *_args) -> None:
        ref = self._current_ref()
        try:
            self.detail.show_entity(ref)
        except NotFoundError as exc:  # removed since it was listed
            QMessageBox.information(self, self.tr("Not found"), refusal_text(exc))
            self.reload()
