"""Common set-up of the window's table views (row height, selection, headers)."""
from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QTableView


def setup_table(view: QTableView, *, multi_select: bool = False, editable: bool = False) -> None:
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection if multi_select
                          else QAbstractItemView.SelectionMode.SingleSelection)
    if not editable:
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setTabKeyNavigation(False)  # Tab moves on to the next control; arrows move between cells
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 10)
    view.setWordWrap(False)
    view.setAlternatingRowColors(True)
    view.horizontalHeader().setHighlightSections(False)
