"""A window on a KiraOS plugin 3.x data folder: its entity tree, its memories edited with undo."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QSize, Qt
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

from kiraos_desktop.core.paths import resolve_paths
from kiraos_desktop.core.storage.tree.edits import TreeEdits
from kiraos_desktop.core.storage.tree.journal import journal_path
from kiraos_desktop.core.storage.tree.tree import EntityTree
from kiraos_desktop.ui.entities.editing import TreeEditActions
from kiraos_desktop.ui.entities.page import EntitiesPage
from kiraos_desktop.ui.prompts import Prompts, prompts as default_prompts
from kiraos_desktop.ui.window_size import place_window, remember_window

DEFAULT_SIZE = QSize(1280, 800)  # on a screen that has room for it and no size remembered for it
_open_windows: set["TreeWindow"] = set()  # windows opened beside the main one, kept until closed


def tree_folder(engine) -> str:
    """The plugin data folder whose tree the engine's memory is (the folder holding memory/)."""
    return str(Path(engine.store.entity_tree.root).parent)


def open_tree_window(engine) -> "TreeWindow":
    """A window on the engine's 3.x tree (`engine.store.entity_tree`), shown beside the others; it
    closes the engine when it is closed."""
    window = TreeWindow(engine.store.entity_tree, tree_folder(engine), edits=engine.store.edits)
    window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    _open_windows.add(window)

    def closed(*_args) -> None:
        _open_windows.discard(window)
        engine.close()

    window.destroyed.connect(closed)
    window.show()
    return window


class TreeWindow(QMainWindow):
    """The tree's entities and memories, editable with undo (Edit menu) and a history per entity;
    `edits`: the tree's one editor and history (the engine's, shared with its API; default: one of
    its own, the history in our data dir)."""

    def __init__(self, tree: EntityTree, folder: str, parent: QWidget | None = None,
                 edits: TreeEdits | None = None, prompts: Prompts = default_prompts,
                 ui_settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("treeWindow")
        self._ui_settings = ui_settings if ui_settings is not None else QSettings()
        self._folder = folder
        self.undo_stack = QUndoStack(self)
        if edits is None:  # the engine's were settled when it opened the tree; these are new
            edits = TreeEdits(tree.root, journal_path(resolve_paths(kira_data=folder).data_dir, tree.root))
            edits.recover()  # an edit a stopped process left half done: finished or rolled back
        self.edit_actions = TreeEditActions(edits, self.undo_stack, prompts, self)
        self.page = EntitiesPage(tree, actions=self.edit_actions)
        self.note = QLabel()
        self.note.setObjectName("treeReadOnlyNote")
        self.note.setWordWrap(True)
        self.api_state = QLabel()
        self.api_state.setObjectName("treeApiState")
        self.api_state.setWordWrap(True)
        self.api_state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.api_state.hide()
        self._api = ("", "")
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 8, 8, 0)
        layout.addWidget(self.note)
        layout.addWidget(self.api_state)
        layout.addWidget(self.page, 1)
        self.setCentralWidget(central)
        self.file_menu = self.menuBar().addMenu("")
        self.reload_action = QAction(self)
        self.reload_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Refresh))
        self.reload_action.triggered.connect(self.page.reload)
        self.close_action = QAction(self)
        self.close_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Close))
        self.close_action.triggered.connect(self.close)
        self.file_menu.addAction(self.reload_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.close_action)
        self.edit_menu = self.menuBar().addMenu("")
        self.undo_action = self.undo_stack.createUndoAction(self)
        self.undo_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Undo))
        self.redo_action = self.undo_stack.createRedoAction(self)
        self.redo_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Redo))
        self.edit_menu.addAction(self.undo_action)
        self.edit_menu.addAction(self.redo_action)
        self.retranslate()
        place_window(self, self._ui_settings, "treeWindow", DEFAULT_SIZE)
        self.page.reload()

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        remember_window(self, self._ui_settings, "treeWindow")
        super().closeEvent(event)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("KiraOS 3.x data — {folder}").format(folder=self._folder))
        self.note.setText(self.tr(
            "KiraOS plugin 3.x data (a tree of files). Edits are written as the plugin writes them, each file "
            "with its index row, so the running bot uses them on its next reply; every edit can be undone "
            "(Ctrl+Z) or reverted from the History tab. The plugin's own writes appear within a second; "
            "Reload (F5) reads files edited by hand."))
        self.file_menu.setTitle(self.tr("&File"))
        self.edit_menu.setTitle(self.tr("&Edit"))
        self._show_api_text()
        self.reload_action.setText(self.tr("&Reload"))
        self.close_action.setText(self.tr("&Close"))
        self.page.retranslate()

    def show_api_state(self, url: str, error: str) -> None:
        """Where the API serves the tree to bot hosts (`url`), or why it does not (`error`)."""
        self._api = (url, error)
        self.api_state.setVisible(bool(url or error))
        self._show_api_text()

    def _show_api_text(self) -> None:
        url, error = self._api
        if url:
            self.api_state.setText(self.tr("Bot hosts get this memory from the API at {url} (/v1/context, MCP at "
                                           "{url}/mcp), with the token of `kiraos-desktop token`.").format(url=url))
        elif error:
            self.api_state.setText(self.tr("The API is not serving this memory: {reason}").format(reason=error))
