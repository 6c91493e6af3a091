"""RouteCountersModel: API requests per route, as a two-column table model."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt

from kiraos_desktop.api.counters import REJECTED, UNMATCHED


class RouteCountersModel(QAbstractTableModel):
    """Requests per route (two columns: route, count), sorted by route."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._rows: list[tuple[str, int]] = []

    def set_counts(self, by_route: dict[str, int]) -> None:
        rows = sorted((str(k), int(v)) for k, v in by_route.items())
        if [r[0] for r in rows] != [r[0] for r in self._rows]:
            self.beginResetModel()
            self._rows = rows
            self.endResetModel()
        elif rows != self._rows:
            self._rows = rows
            self.dataChanged.emit(self.index(0, 1), self.index(len(rows) - 1, 1),
                                  [Qt.ItemDataRole.DisplayRole])

    def _route_label(self, route: str) -> str:
        """A route as is; the server's labels for requests no route took, in the window's language."""
        if route == REJECTED:
            return self.tr("(rejected)")
        if route == UNMATCHED:
            return self.tr("(no route)")
        return route

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else 2

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        route, count = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._route_label(route) if index.column() == 0 else f"{count:,}"
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return (self.tr("Route"), self.tr("Requests"))[section] if 0 <= section < 2 else None
        return None
