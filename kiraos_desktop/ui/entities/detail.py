"""One entity of a KiraOS 3.x tree: profile, memories, archive, problems, and what the bot sees for a message."""
from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.storage.tree.files import TreeMemory
from kiraos_desktop.core.storage.tree.layout import EntityRef
from kiraos_desktop.core.storage.tree.tree import EntityDetail, EntityTree
from kiraos_desktop.ui.empty_state import EmptyState
from kiraos_desktop.ui.entities.editing import TreeEditActions
from kiraos_desktop.ui.entities.models import SORT_ROLE, HistoryModel, MemoryModel, ProblemModel, ProfileModel
from kiraos_desktop.ui.views import setup_table


def _table(model, stretch: int, sortable: bool = False) -> tuple[QTableView, EmptyState]:
    view = QTableView()
    setup_table(view)
    if sortable:
        proxy = QSortFilterProxyModel(view)
        proxy.setSourceModel(model)
        proxy.setSortRole(SORT_ROLE)
        view.setModel(proxy)
        view.setSortingEnabled(True)
        view.sortByColumn(1, Qt.SortOrder.DescendingOrder)  # the most important first
    else:
        view.setModel(model)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    return view, EmptyState(view)


def _with_buttons(view: QWidget, *buttons: QPushButton) -> QWidget:
    holder = QWidget()
    row = QHBoxLayout()
    for button in buttons:
        row.addWidget(button)
    row.addStretch(1)
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(view, 1)
    layout.addLayout(row)
    return holder


def _button(name: str, slot) -> QPushButton:
    button = QPushButton()
    button.setObjectName(name)
    button.clicked.connect(slot)
    return button


class EntityDetailView(QWidget):
    """Shows the entity given to show_entity(); with `actions`, its memories can be edited."""

    def __init__(self, tree: EntityTree, parent: QWidget | None = None, actions: TreeEditActions | None = None) -> None:
        super().__init__(parent)
        self._tree = tree
        self._actions = actions
        self._ref: EntityRef | None = None
        self._preview_message = ""  # the message "What the bot sees" was last worked out for
        self.title = QLabel()
        self.title.setObjectName("entityTitle")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = QFont(self.title.font())
        font.setBold(True)
        self.title.setFont(font)
        self.profile_model, self.memory_model = ProfileModel(self), MemoryModel(self)
        self.archived_model, self.problem_model = MemoryModel(self), ProblemModel(self)
        self.profile_view, self._profile_empty = _table(self.profile_model, 1)
        self.memory_view, self._memory_empty = _table(self.memory_model, 0, sortable=True)
        self.archived_view, self._archived_empty = _table(self.archived_model, 0, sortable=True)
        self.problem_view, self._problem_empty = _table(self.problem_model, 1)
        self.history_model = HistoryModel(self)
        self.history_view, self._history_empty = _table(self.history_model, 4)
        self.add_button = _button("addMemory", self._on_add_clicked)
        self.edit_button = _button("editMemory", self._on_edit_clicked)
        self.archive_button = _button("archiveMemory", self._on_archive_clicked)
        self.restore_button = _button("restoreMemory", self._on_restore_clicked)
        self.delete_button = _button("deleteArchived", self._on_delete_clicked)
        self.revert_button = _button("revertChange", self._on_revert_clicked)
        self.reindex_button = _button("reindexMemories", self._on_reindex_clicked)
        self.profile_button = _button("editProfile", self._on_profile_clicked)
        self.profile_view.doubleClicked.connect(self._on_profile_clicked)
        self.stale_note = QLabel()
        self.stale_note.setObjectName("staleNote")
        self.stale_note.setWordWrap(True)
        self._stale = 0
        self.memory_view.doubleClicked.connect(self._on_edit_clicked)
        self.tabs = QTabWidget()
        self.tabs.addTab(_with_buttons(self.profile_view, self.profile_button), "")
        memories = _with_buttons(self.memory_view, self.add_button, self.edit_button, self.archive_button)
        stale_row = QHBoxLayout()
        stale_row.addWidget(self.stale_note, 1)
        stale_row.addWidget(self.reindex_button)
        memories.layout().insertLayout(0, stale_row)
        self.tabs.addTab(memories, "")
        self.tabs.addTab(_with_buttons(self.archived_view, self.restore_button, self.delete_button), "")
        self.tabs.addTab(self.problem_view, "")
        self.tabs.addTab(self._bot_sees_tab(), "")
        self.tabs.addTab(_with_buttons(self.history_view, self.revert_button), "")
        for button in (self.add_button, self.edit_button, self.archive_button, self.restore_button,
                       self.delete_button, self.revert_button, self.profile_button):
            button.setVisible(actions is not None)
        self.tabs.setTabVisible(5, actions is not None)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.tabs, 1)
        self.retranslate()

    def _bot_sees_tab(self) -> QWidget:
        tab = QWidget()
        self.message = QLineEdit()
        self.message.setObjectName("botSeesMessage")
        self.message.returnPressed.connect(self.show_injection)
        self.show_button = QPushButton()
        self.show_button.clicked.connect(self.show_injection)
        self.injection = QPlainTextEdit()
        self.injection.setObjectName("botSeesText")
        self.injection.setReadOnly(True)
        self.bot_sees_note = QLabel()
        self.bot_sees_note.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.message, 1)
        row.addWidget(self.show_button)
        layout = QVBoxLayout(tab)
        layout.addLayout(row)
        layout.addWidget(self.injection, 1)
        layout.addWidget(self.bot_sees_note)
        return tab

    def retranslate(self) -> None:
        for n, text in enumerate([self.tr("Profile"), self.tr("Memories"), self.tr("Archived"), self.tr("Problems"),
                                  self.tr("What the bot sees"), self.tr("History")]):
            self.tabs.setTabText(n, text)
        for button, text in ((self.add_button, self.tr("&Add…")), (self.edit_button, self.tr("&Edit…")),
                             (self.archive_button, self.tr("Ar&chive")), (self.restore_button, self.tr("&Restore")),
                             (self.delete_button, self.tr("&Delete for good…")),
                             (self.revert_button, self.tr("Re&vert this change")),
                             (self.reindex_button, self.tr("Re-&index")),
                             (self.profile_button, self.tr("Edit &field…"))):
            button.setText(text)
        self.retranslate_stale()
        self.message.setPlaceholderText(self.tr("A message this user might send, e.g. 最近吉他练得怎么样"))
        self.show_button.setText(self.tr("Show"))
        self.bot_sees_note.setText(self.tr(
            "What the bot adds to its prompt for this message: what it knows of the user, and the 5 facts and "
            "reflections it finds most related, chosen as the plugin chooses them. Words the plugin was "
            "taught by hand, and recall by meaning if it has it turned on, are not shown here. The bot does "
            "this for users only."))
        if self._ref is None:
            self.title.setText(self.tr("Choose an entity on the left"))
        self._update_empty_states()

    def show_entity(self, ref: EntityRef | None) -> None:
        """Show `ref` (None: nothing chosen), read from the tree now. Raises NotFoundError when the
        tree no longer has it. The same entity shown again (a reload, a write) keeps the chosen
        memories, the scroll and "What the bot sees", which is worked out again for its message."""
        same = ref is not None and ref == self._ref
        detail = self._tree.entity(ref) if ref is not None else None
        self._ref = ref
        kept = [_Position(view) for view in (self.memory_view, self.archived_view)] if same else []
        previewed = self._preview_message if same else ""
        self._fill(detail)
        for position in kept:
            position.restore()
        if previewed:
            self._show_injection_for(previewed)

    def _fill(self, detail: EntityDetail | None) -> None:
        if detail is None:
            self.title.setText(self.tr("Choose an entity on the left"))
        else:
            name = detail.profile.get("name") or ""
            self.title.setText(f"{detail.ref.label()}  {name}".rstrip())
        self.profile_model.set_profile(detail.profile if detail else {})
        memories = [m for folder in (detail.memories.values() if detail else []) for m in folder]
        self.memory_model.set_rows(memories)
        self.archived_model.set_rows(detail.archived if detail else [])
        self.problem_model.set_rows(detail.problems if detail else [])
        self.tabs.setTabText(3, self.tr("Problems (%n)", "", len(detail.problems)) if detail and detail.problems
                             else self.tr("Problems"))
        label = detail.ref.label() if detail else None
        entries = self._actions.journal.entries() if self._actions is not None and detail else []
        self.history_model.set_rows([e for e in reversed(entries) if e.change.ref == label])
        for button in (self.add_button, self.edit_button, self.archive_button, self.restore_button,
                       self.delete_button, self.revert_button):
            button.setEnabled(detail is not None)
        self.profile_button.setEnabled(detail is not None and not detail.ref.is_global)
        self._stale = len(self._actions.editor.stale(detail.ref)) if self._actions is not None and detail else 0
        self.stale_note.setVisible(bool(self._stale))
        self.reindex_button.setVisible(bool(self._stale))
        self.retranslate_stale()
        self.injection.clear()
        self._preview_message = ""
        can_inject = detail is not None and detail.ref.kind == "user"
        self.message.setEnabled(can_inject)
        self.show_button.setEnabled(can_inject)
        self._update_empty_states()

    def _update_empty_states(self) -> None:
        if self._ref is None:  # nothing is empty: nothing is chosen
            chosen = self.tr("Choose an entity on the left")
            for empty in (self._profile_empty, self._memory_empty, self._archived_empty, self._problem_empty,
                          self._history_empty):
                empty.update_state(0, chosen)
            return
        self._profile_empty.update_state(self.profile_model.rowCount(), self.tr("No profile yet"))
        self._memory_empty.update_state(self.memory_model.rowCount(), self.tr("No facts or reflections yet"))
        self._archived_empty.update_state(self.archived_model.rowCount(), self.tr("Nothing archived"))
        self._problem_empty.update_state(self.problem_model.rowCount(), self.tr("Every file could be read"))
        self._history_empty.update_state(self.history_model.rowCount(), self.tr("No change made here yet"))

    def show_injection(self) -> None:
        if self._ref is None or self._ref.kind != "user":
            return
        text = self.message.text().strip()
        if not text:
            self.injection.setPlainText(self.tr("Type a message first."))
            return
        self._show_injection_for(text)

    def _show_injection_for(self, text: str) -> None:
        scroll = self.injection.verticalScrollBar().value()
        injection = self._tree.injection(self._ref, text)
        self.injection.setPlainText(injection.text or self.tr("The bot adds nothing for this message."))
        self.injection.verticalScrollBar().setValue(scroll)
        self._preview_message = text

    # ---- editing (with actions) ------------------------------------------------------------

    def refresh(self) -> None:
        """Read the shown entity again (after a write)."""
        if self._ref is not None:
            self.show_entity(self._ref)

    def _chosen(self, view: QTableView, model) -> TreeMemory | None:
        index = view.currentIndex()
        if not index.isValid():
            return None
        return model.row_at(view.model().mapToSource(index).row())

    def _on_add_clicked(self) -> None:
        if self._actions is not None and self._ref is not None:
            self._actions.add(self._ref)

    def _on_edit_clicked(self, *_args) -> None:
        self._act_on_chosen(self.memory_view, self.memory_model, "edit")

    def _on_archive_clicked(self) -> None:
        self._act_on_chosen(self.memory_view, self.memory_model, "archive")

    def _on_restore_clicked(self) -> None:
        self._act_on_chosen(self.archived_view, self.archived_model, "restore")

    def _on_delete_clicked(self) -> None:
        self._act_on_chosen(self.archived_view, self.archived_model, "delete_archived")

    def _act_on_chosen(self, view, model, action: str) -> None:
        """Call the edit action named `action` on the memory chosen in `view`, if there is one."""
        memory = self._chosen(view, model)
        if self._actions is not None and self._ref is not None and memory is not None:
            getattr(self._actions, action)(self._ref, memory)

    def retranslate_stale(self) -> None:
        self.stale_note.setText(self.tr(
            "%n memory file(s) say something other than the bot's index (edited by hand, or never indexed): "
            "the running bot recalls what the index says until they are re-indexed.", "", self._stale))

    def _on_profile_clicked(self, *_args) -> None:
        if self._actions is None or self._ref is None or self._ref.is_global:
            return
        index = self.profile_view.currentIndex()
        row = self.profile_model.row_at(index.row())[0] if index.isValid() else "name"
        self._actions.edit_profile(self._ref, row.split("[")[0].split(".")[0])  # traits[0] -> traits

    def _on_reindex_clicked(self) -> None:
        if self._actions is not None and self._ref is not None:
            self._actions.reindex(self._ref)

    def _on_revert_clicked(self) -> None:
        index = self.history_view.currentIndex()
        if self._actions is not None and index.isValid():
            self._actions.revert_entry(self.history_model.row_at(index.row()))


class _Position:
    """A table's chosen row (by the memory id it shows) and scroll, put back after its model reset."""

    def __init__(self, view: QTableView) -> None:
        self._view = view
        index = view.currentIndex()
        source = view.model().mapToSource(index).row() if index.isValid() else -1
        model = view.model().sourceModel()
        self._id = getattr(model.row_at(source), "id", None) if source >= 0 else None
        self._scroll = view.verticalScrollBar().value()

    def restore(self) -> None:
        view, proxy = self._view, self._view.model()
        model = proxy.sourceModel()
        if self._id is not None:
            for row in range(model.rowCount()):
                if getattr(model.row_at(row), "id", None) == self._id:
                    view.setCurrentIndex(proxy.mapFromSource(model.index(row, 0)))
                    break
        view.verticalScrollBar().setValue(self._scroll)

