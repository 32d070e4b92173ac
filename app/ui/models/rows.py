"""A generic read-only table model: a list of rows plus column definitions (title, getter)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

R = TypeVar("R")
RowRole = Qt.ItemDataRole.UserRole + 1  # the plain row object behind an index
HtmlRole = Qt.ItemDataRole.UserRole + 2  # rich text for the HTML delegate
_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class Column(Generic[R]):
    title: str
    text: Callable[[R], str]
    tooltip: Callable[[R], str] | None = None
    html: Callable[[R], str] | None = None
    align_right: bool = False
    colour: Callable[[R], str | None] | None = None


class RowsModel(QAbstractTableModel, Generic[R]):
    """Rows in, cells out. `set_rows` replaces everything; views keep their own selection logic."""

    def __init__(self, columns: Sequence[Column[R]], parent: Any = None) -> None:
        super().__init__(parent)
        self.columns = list(columns)
        self.rows: list[R] = []

    def set_rows(self, rows: Sequence[R]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def row_at(self, row: int) -> R | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def replace_row(self, row: int, value: R) -> None:
        """Swap one row in place (e.g. after pin/favorite) without resetting the view."""
        self.rows[row] = value
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.columns) - 1))

    def remove_row(self, row: int) -> None:
        self.beginRemoveRows(QModelIndex(), row, row)
        del self.rows[row]
        self.endRemoveRows()

    # --- Qt model API ----------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.columns[section].title
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        col = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return col.text(row)
        if role == RowRole:
            return row
        if role == HtmlRole:
            return col.html(row) if col.html else None
        if role == Qt.ItemDataRole.ToolTipRole and col.tooltip:
            return col.tooltip(row)
        if role == Qt.ItemDataRole.ForegroundRole and col.colour:
            colour = col.colour(row)
            return QColor(colour) if colour else None
        if role == Qt.ItemDataRole.TextAlignmentRole and col.align_right:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
