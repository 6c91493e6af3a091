"""A window on a KiraOS plugin 3.x data folder: its entity tree, read only (editing is to come)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

from kiraos_desktop.core.storage.tree import open_tree
from kiraos_desktop.core.storage.tree.tree import EntityTree
from kiraos_desktop.ui.entities.page import EntitiesPage

_open_windows: set["TreeWindow"] = set()  # windows opened beside the main one, kept until closed


def open_tree_window(folder: str) -> "TreeWindow":
    """A window on the 3.x tree of `folder` (a plugin's data folder), shown beside the others;
    StoreError or OSError when it holds none."""
    resolved = str(Path(folder).expanduser().resolve())
    window = TreeWindow(open_tree(resolved), resolved)
    window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    _open_windows.add(window)
    window.destroyed.connect(lambda *_: _open_windows.discard(window))
    window.resize(1280, 800)
    window.show()
    return window


class TreeWindow(QMainWindow):
    def __init__(self, tree: EntityTree, folder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("treeWindow")
        self._folder = folder
        self.page = EntitiesPage(tree)
        self.note = QLabel()
        self.note.setObjectName("treeReadOnlyNote")
        self.note.setWordWrap(True)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 8, 8, 0)
        layout.addWidget(self.note)
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
        self.retranslate()
        self.page.reload()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("KiraOS 3.x data — {folder}").format(folder=self._folder))
        self.note.setText(self.tr(
            "KiraOS plugin 3.x data (a tree of files), shown read only: this version lists and searches it "
            "and shows what the bot sees; editing it comes in a later version. The plugin's own writes appear "
            "within a second; Reload (F5) reads files edited by hand."))
        self.file_menu.setTitle(self.tr("&File"))
        self.reload_action.setText(self.tr("&Reload"))
        self.close_action.setText(self.tr("&Close"))
        self.page.retranslate()
