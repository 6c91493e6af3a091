"""Left side of the Skills page: search, the skill table (a folder or archive dropped on it is imported)
and the New/Duplicate/Rename/Delete/Import/Export buttons."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHeaderView,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.skills.archive import is_archive
from kiraos_desktop.core.skills.problems import AGENT_FORMAT
from kiraos_desktop.ui.empty_state import EmptyState

from .badge_delegate import AgentBadgeDelegate
from .skill_list import COMMAND, ENABLED, FOLDER_ROLE, FORMAT_ROLE, NAME, PROBLEMS, SkillFilterProxy, SkillListModel
from .theme import colors_for


def dropped_source(mime) -> str:
    """The one local folder or .zip/.skill archive a drag carries, else ""."""
    if mime is None or not mime.hasUrls():
        return ""
    urls = [url for url in mime.urls() if url.isLocalFile()]
    if len(urls) != 1:
        return ""
    path = Path(urls[0].toLocalFile())
    return str(path) if path.is_dir() or (path.is_file() and is_archive(path)) else ""


class SkillTableView(QTableView):
    """The skill table; a folder or .zip/.skill archive dropped on it emits `sourceDropped(path)`."""

    sourceDropped = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt override)
        if dropped_source(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802 (Qt override)
        if dropped_source(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt override)
        source = dropped_source(event.mimeData())
        if not source:
            event.ignore()
            return
        event.acceptProposedAction()
        self.sourceDropped.emit(source)


# The skill list's width: what is left at 1024x700 beside the editor and the sample call, which
# need the rest; the names are shown whole, the commands take what remains.
MIN_LIST_WIDTH = 256  # a long name and the whole Command title side by side
MAX_LIST_WIDTH = 300  # what the list may ask for so that its names and commands are whole (1024x700)


class SkillListPanel(QWidget):
    """Emits `currentFolderChanged(folder_name)` when the user selects another skill ("" for none)
    and `<action>Requested` for the buttons; the page does the work."""

    currentFolderChanged = Signal(str)
    newRequested = Signal()
    duplicateRequested = Signal()
    renameRequested = Signal()
    deleteRequested = Signal()
    importRequested = Signal(str)  # a dropped folder or archive; "" for the Import... button
    exportRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._silent = False
        self.model = SkillListModel(self)
        self.model.set_colors(colors_for(self.palette()))
        self.proxy = SkillFilterProxy(self)
        self.proxy.setSourceModel(self.model)

        self.search_edit = QLineEdit(self)
        self.search_edit.setPlaceholderText(self.tr("Search skills"))
        self.search_edit.setClearButtonEnabled(True)
        self.view = SkillTableView(self)
        self.view.setModel(self.proxy)
        self.badges = AgentBadgeDelegate(colors_for(self.palette()), self.view)
        self.view.setItemDelegateForColumn(NAME, self.badges)
        self.view.setToolTip(self.tr("Drop an Agent Skills folder or .zip/.skill archive here to import it"))
        self.view.setTabKeyNavigation(False)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().hide()
        self.view.setShowGrid(False)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.setAlternatingRowColors(True)
        header = self.view.horizontalHeader()
        # Names whole; the command (most often "/" and the name again) takes what is left, and loses
        # its end first when the list is narrow (1024x700).
        header.setSectionResizeMode(COMMAND, QHeaderView.ResizeMode.Stretch)
        for column in (NAME, ENABLED, PROBLEMS):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setHighlightSections(False)
        self.empty_state = EmptyState(self.view)

        self.new_button = QPushButton(self.tr("New"), self)
        self.new_button.setToolTip(self.tr("New skill from a template (Ctrl+N)"))
        self.duplicate_button = QPushButton(self.tr("Duplicate"), self)
        self.rename_button = QPushButton(self.tr("Rename"), self)
        self.delete_button = QPushButton(self.tr("Delete"), self)
        self.delete_button.setToolTip(self.tr("Move the skill folder to the backups area"))
        self.import_button = QPushButton(self.tr("Import…"), self)
        self.import_button.setToolTip(self.tr("Import an Agent Skill: a folder with SKILL.md or a .zip/.skill "
                                              "archive (you can also drop it on the list)"))
        self.export_button = QPushButton(self.tr("Export…"), self)
        self.export_button.setToolTip(self.tr("Write the skill as an Agent Skills folder (SKILL.md) that other "
                                              "agents can load"))
        buttons = QGridLayout()
        buttons.addWidget(self.new_button, 0, 0)
        buttons.addWidget(self.duplicate_button, 0, 1)
        buttons.addWidget(self.rename_button, 1, 0)
        buttons.addWidget(self.delete_button, 1, 1)
        buttons.addWidget(self.import_button, 2, 0)
        buttons.addWidget(self.export_button, 2, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search_edit)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)

        self.search_edit.textChanged.connect(self._on_search_edit_text_changed)
        self.view.selectionModel().currentRowChanged.connect(self._on_selection_current_row_changed)
        self.new_button.clicked.connect(self.newRequested)
        self.duplicate_button.clicked.connect(self.duplicateRequested)
        self.rename_button.clicked.connect(self.renameRequested)
        self.delete_button.clicked.connect(self.deleteRequested)
        self.import_button.clicked.connect(self._on_import_button_clicked)
        self.export_button.clicked.connect(self.exportRequested)
        self.view.sourceDropped.connect(self.importRequested)
        self.setMinimumWidth(MIN_LIST_WIDTH)
        self._update_buttons()
        self._update_empty_state()

    def set_colors(self, colors) -> None:
        self.model.set_colors(colors)
        self.badges.set_colors(colors)
        self.view.viewport().update()

    # ------------------------------------------------------------------ content

    def set_skills(self, skills, keep_folder: str = "") -> None:
        """Show these skills and select `keep_folder` again (silently) when it is still there."""
        self._silent = True
        try:
            self.model.set_skills(skills)
            self._select(keep_folder)
        finally:
            self._silent = False
        self._update_buttons()
        self._update_empty_state()
        self._fit_width()

    def _fit_width(self) -> None:
        """As wide as the longest name and command need (up to MAX_LIST_WIDTH): at 1024x700 the
        command column ("/persona…") was cut while the editor beside it had room to spare."""
        view = self.view
        wanted = sum(max(view.sizeHintForColumn(column), view.horizontalHeader().sectionSizeHint(column))
                     for column in range(self.model.columnCount()))
        wanted += view.verticalScrollBar().sizeHint().width() + 2 * view.frameWidth() + 4
        self.setMinimumWidth(max(MIN_LIST_WIDTH, min(MAX_LIST_WIDTH, wanted)))

    def current_folder(self) -> str:
        index = self.view.currentIndex()
        return index.data(FOLDER_ROLE) or "" if index.isValid() else ""

    def select_folder(self, folder_name: str, silent: bool = False) -> bool:
        """Select a skill by folder name; `silent` does not emit currentFolderChanged."""
        self._silent = silent
        try:
            found = self._select(folder_name)
        finally:
            self._silent = False
        self._update_buttons()
        return found

    def first_folder(self) -> str:
        index = self.proxy.index(0, NAME)
        return index.data(FOLDER_ROLE) or "" if index.isValid() else ""

    def _select(self, folder_name: str) -> bool:
        row = self.model.row_of_folder(folder_name) if folder_name else -1
        selection = self.view.selectionModel()
        if row < 0:
            selection.clearCurrentIndex()
            selection.clearSelection()
            return False
        index = self.proxy.mapFromSource(self.model.index(row, NAME))
        if not index.isValid():  # filtered out: clear the search so the skill can be shown
            self.search_edit.clear()
            index = self.proxy.mapFromSource(self.model.index(row, NAME))
        selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                  | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(index)
        return True

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._update_empty_state()

    def _update_empty_state(self) -> None:
        """What an empty list means: no skill in the folder, or none matching the search."""
        search = self.search_edit.text().strip()
        if self.model.rowCount() and search:
            hint = self.tr("No skill matches “{text}”.").format(text=search)
        else:
            hint = self.tr("No skills yet.\nNew (Ctrl+N) starts one from a template; Import… brings in an "
                           "Agent Skill (a folder with SKILL.md or a .zip/.skill archive, also by dropping it here).")
        self.empty_state.update_state(self.proxy.rowCount(), hint)

    def _update_buttons(self) -> None:
        has = bool(self.current_folder())
        for button in (self.delete_button, self.export_button):
            button.setEnabled(has)
        agent = has and self.view.currentIndex().siblingAtColumn(NAME).data(FORMAT_ROLE) == AGENT_FORMAT
        for button in (self.duplicate_button, self.rename_button):
            button.setEnabled(has and not agent)
            button.setToolTip(self.tr("Not available for an Agent Skills folder (SKILL.md)") if agent else "")

    # ------------------------------------------------------------------ slots

    def _on_import_button_clicked(self) -> None:
        self.importRequested.emit("")

    def _on_search_edit_text_changed(self, text: str) -> None:
        current = self.current_folder()
        self._silent = True
        try:
            self.proxy.set_search(text)
            if current:
                row = self.model.row_of_folder(current)
                index = self.proxy.mapFromSource(self.model.index(row, NAME))
                if index.isValid():
                    self.view.selectionModel().setCurrentIndex(
                        index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                        | QItemSelectionModel.SelectionFlag.Rows)
        finally:
            self._silent = False
        self._update_empty_state()

    def _on_selection_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._update_buttons()
        if not self._silent and current.isValid():
            self.currentFolderChanged.emit(current.data(FOLDER_ROLE) or "")
