"""What the Profile, Events and History tabs share: a toolbar over a table, a count and a message line."""
from __future__ import annotations

from typing import Iterable, NamedTuple

from PySide6.QtCore import QAbstractItemModel, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from kiraos_desktop.ui.empty_state import EmptyState
from kiraos_desktop.ui.views import setup_table


class TableTabParts(NamedTuple):
    view: QTableView
    empty_state: EmptyState
    count_label: QLabel
    message_label: QLabel


def build_table_tab(tab: QWidget, view_name: str, model: QAbstractItemModel, tools: Iterable[QWidget], *,
                    stretch_column: int, widths: Iterable[tuple[int, int]] = (), multi_select: bool = False,
                    editable: bool = False) -> TableTabParts:
    """Lay out `tab`: `tools` then a count label on the right, under them the table `view_name` showing
    `model` (columns sized by `widths`, `stretch_column` taking the rest), under it a hidden red message line.

    Edit triggers, sorting and delegates stay with the caller.
    """
    view = QTableView()
    view.setObjectName(view_name)
    view.setModel(model)
    setup_table(view, multi_select=multi_select, editable=editable)
    header = view.horizontalHeader()
    for column, width in widths:
        header.resizeSection(column, width)
    header.setSectionResizeMode(stretch_column, QHeaderView.ResizeMode.Stretch)
    empty_state = EmptyState(view)
    count_label = QLabel()
    message_label = QLabel()
    message_label.setObjectName("messageLabel")
    message_label.setStyleSheet("color: #d33;")
    message_label.setWordWrap(True)
    message_label.hide()
    toolbar = QHBoxLayout()
    for widget in tools:
        toolbar.addWidget(widget)
    toolbar.addStretch(1)
    toolbar.addWidget(count_label)
    layout = QVBoxLayout(tab)
    layout.addLayout(toolbar)
    layout.addWidget(view, 1)
    layout.addWidget(message_label)
    return TableTabParts(view, empty_state, count_label, message_label)


def add_delete_action(view: QTableView, text: str) -> QAction:
    """A Delete-key action of `view`, active while the view or one of its children (an open editor) has focus."""
    action = QAction(text, view)
    action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
    action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    view.addAction(action)
    return action
