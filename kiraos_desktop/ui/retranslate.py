"""After a language switch: table headers and cells asked again, since models translate when asked."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QTableView, QTreeView, QWidget


def refresh_item_views(root: QWidget) -> None:
    """Every model shown under `root` re-announces its headers; every view repaints (cells re-read)."""
    announced = set()
    for view in root.findChildren(QAbstractItemView):
        model = view.model()
        header = view.horizontalHeader() if isinstance(view, QTableView) else \
            view.header() if isinstance(view, QTreeView) else None
        if model is not None and header is not None and header.count() and id(model) not in announced:
            announced.add(id(model))
            model.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, header.count() - 1)
        view.viewport().update()
