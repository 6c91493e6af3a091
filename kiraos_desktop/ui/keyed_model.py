"""A table model base holding keyed rows that syncs to a new row list without a reset.

Syncing removes, moves (as a layout change with persistent indexes remapped), inserts and
updates rows, so views keep their selection, current index, scroll position and open editors.
"""
from __future__ import annotations

from typing import Any, Hashable, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Signal


def _runs(indexes: Sequence[int]) -> list[tuple[int, int]]:
    """Contiguous (first, last) runs of sorted indexes."""
    runs: list[tuple[int, int]] = []
    for i in indexes:
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


class KeyedTableModel(QAbstractTableModel):
    """Subclasses define `row_key(row)`, `columnCount` and `data`; rows are immutable values."""

    #: Rows read from the store have arrived (a load, a refresh or a page; see ui/row_reads.py).
    rows_read = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []

    # ---- to implement --------------------------------------------------------------------

    def row_key(self, row: Any) -> Hashable:
        raise NotImplementedError

    # ---- common --------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def row_at(self, row: int) -> Any:
        return self._rows[row]

    def clear_until_read(self, reads) -> None:
        """Before another user's rows are read off the GUI thread (`reads`: the model's RowReads), show
        none meanwhile rather than the previous user's."""
        if not reads.inline and self._rows:
            self.set_rows_reset([])

    def rows(self) -> list[Any]:
        return list(self._rows)

    def row_of_key(self, key: Hashable) -> int:
        for i, row in enumerate(self._rows):
            if self.row_key(row) == key:
                return i
        return -1

    def set_rows_reset(self, rows: Sequence[Any]) -> None:
        """Replace everything (a different user, search or sort): views drop their selection."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def append_rows(self, rows: Sequence[Any]) -> None:
        known = {self.row_key(r) for r in self._rows}
        fresh = [r for r in rows if self.row_key(r) not in known]
        if not fresh:
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
        self._rows.extend(fresh)
        self.endInsertRows()

    def sync_rows(self, new_rows: Sequence[Any]) -> None:
        """Make the rows equal to `new_rows` (unique keys) with the smallest visible disturbance."""
        new_rows = list(new_rows)
        new_keys = [self.row_key(r) for r in new_rows]
        wanted = set(new_keys)
        # 1. rows that are gone
        gone = [i for i, r in enumerate(self._rows) if self.row_key(r) not in wanted]
        for first, last in reversed(_runs(gone)):
            self.beginRemoveRows(QModelIndex(), first, last)
            del self._rows[first:last + 1]
            self.endRemoveRows()
        # 2. survivors into the new relative order
        order = {k: i for i, k in enumerate(new_keys)}
        current = [self.row_key(r) for r in self._rows]
        target = sorted(range(len(current)), key=lambda i: order[current[i]])
        if target != list(range(len(current))):
            self._move_rows(target, current)
        # 3. new rows, in runs, at their final positions
        present = set(current)
        i = 0
        while i < len(new_rows):
            if i < len(self._rows) and self.row_key(self._rows[i]) == new_keys[i]:
                i += 1
                continue
            j = i
            while j < len(new_rows) and new_keys[j] not in present:
                j += 1
            self.beginInsertRows(QModelIndex(), i, j - 1)
            self._rows[i:i] = new_rows[i:j]
            self.endInsertRows()
            i = j
        # 4. changed values
        changed = [i for i, r in enumerate(new_rows) if self._rows[i] != r]
        for i in changed:
            self._rows[i] = new_rows[i]
        last_column = max(0, self.columnCount() - 1)
        for first, last in _runs(changed):
            self.dataChanged.emit(self.index(first, 0), self.index(last, last_column))

    def _move_rows(self, target: list[int], keys: list[Hashable]) -> None:
        self.layoutAboutToBeChanged.emit()
        new_position = {keys[old]: new for new, old in enumerate(target)}
        persistent = self.persistentIndexList()
        moved = [self.index(new_position[keys[p.row()]], p.column()) for p in persistent]
        self._rows = [self._rows[old] for old in target]
        self.changePersistentIndexList(persistent, moved)
        self.layoutChanged.emit()
