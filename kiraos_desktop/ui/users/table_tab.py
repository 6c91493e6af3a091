"""What the Profile, Events and History tabs share: the layout (a toolbar over a table, a count and a message
line) and the refresh (deferred while a cell is being edited)."""
from __future__ import annotations

from typing import Iterable, NamedTuple

from PySide6.QtCore import QAbstractItemModel, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

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


def add_long_edit_action(view: QTableView, text: str) -> QAction:
    """Ctrl+E (and the context menu) of `view`: edit the current text in the multi-line dialog."""
    action = QAction(text, view)
    action.setShortcut(QKeySequence("Ctrl+E"))
    action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    view.addAction(action)
    view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
    return action


class TableTab(QWidget):
    """A tab listing one user's rows. A subclass builds `model` (with `load(user_id)`, `refresh()`
    and `user_id`), `view` and `message_label` (build_table_tab), and implements `_update_state()`.

    A change event refreshes the tab; while a cell editor is open the refresh waits until the editor
    closes (connect the delegate's `closeEditor` to `_on_delegate_close_editor`), so typing is never lost.
    """

    status_message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pending_refresh = False

    def follow_reads(self) -> None:
        """Call once `model` and `message_label` exist: rows read off the GUI thread (ui/row_reads.py)
        update the tab when they arrive, and a failed read says why."""
        self.model.rows_read.connect(self._on_model_rows_read)
        self.model.reads.failed.connect(self._on_model_read_failed)

    def set_user(self, user_id: str | None) -> None:
        self._pending_refresh = False
        self.message_label.hide()
        self.model.load(user_id)
        self._update_state()

    def refresh(self) -> None:
        """Re-read this user's rows, or remember to once the open editor closes."""
        if self.view.state() == QAbstractItemView.State.EditingState:
            self._pending_refresh = True
            return
        self._pending_refresh = False
        self.model.refresh()

    def _on_model_rows_read(self) -> None:
        self._after_refresh()
        self._update_state()

    def _on_model_read_failed(self, message: str) -> None:
        self.message_label.setText(self.tr("Could not read this user's memory: {message}").format(message=message))
        self.message_label.show()
        # Not "no entries yet": the table is empty because nothing could be read (until the next read).
        self.count_label.setText("")
        self.empty_state.update_state(0, self.tr("Not read: the reason is below. It is read again on the "
                                                 "next change, or when you choose the user again."))

    @property
    def refresh_pending(self) -> bool:
        return self._pending_refresh

    def _after_refresh(self) -> None:
        """Anything a subclass recomputes after the model re-read its rows."""

    def _update_state(self, *_args) -> None:
        raise NotImplementedError

    def _on_delegate_close_editor(self, *_args) -> None:
        if self._pending_refresh:
            QTimer.singleShot(0, self.refresh)

    def _on_selection_changed(self, *_args) -> None:
        self._update_state()

    def _on_model_rows_changed(self, *_args) -> None:
        self._update_state()
