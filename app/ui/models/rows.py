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
# The class of secondary words in that rich text ("Insight:", "· archived"): the delegate colours
# it for the row's state, since a fixed grey cannot be read on the selection's blue.
MUTED = "muted"
_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class Column(Generic[R]):
    title: str
    text: Callable[[R], str]
    tooltip: Callable[[R], str] | None = None
    html: Callable[[R], str] | None = None
    align_right: bool = False
    colour: Callable[[R], str | None] | None = None
    header_tooltip: str = ""  # what the column means, shown when hovering its header


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
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.columns):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section].title
        if role == Qt.ItemDataRole.ToolTipRole and self.columns[section].header_tooltip:
            return self.columns[section].header_tooltip
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


def keep_order(previous: Sequence[Any], rows: Sequence[R], key: Callable[[R], Any]) -> list[R]:
    """`rows` in the order of the `previous` keys; rows not shown before follow, in their own order.

    A refresh caused by a click (a view re-scores an insight) must not move rows under the cursor;
    the new order is shown when the user asks for it.
    """
    position = {k: i for i, k in enumerate(previous)}
    kept = sorted((r for r in rows if key(r) in position), key=lambda r: position[key(r)])
    return kept + [r for r in rows if key(r) not in position]
