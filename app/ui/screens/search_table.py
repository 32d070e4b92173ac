"""The results table: the text column takes the width; who, where and when stay compact.

Column widths follow the table's width on every resize: metadata columns get a share with a
cap, and below COMPACT_WIDTH the Who column shows only the initials avatar (name on hover),
so from 800×560 to 4K the matched text has most of the row.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from app.ui.delegates import HtmlDelegate
from app.ui.models.hits import HitsModel

COMPACT_WIDTH = 640
# (share of the table width, cap in px) for Who, Where, When.
WHO, WHERE, WHEN = (0.16, 150), (0.2, 190), (0.11, 96)
AVATAR_ONLY = 40


class ResultsTable(QTableView):
    def __init__(self, model: HitsModel) -> None:
        super().__init__()
        self.hits = model
        self.setModel(model)
        self.delegate = HtmlDelegate(self, max_lines=4)
        self.setItemDelegateForColumn(HitsModel.TEXT_COLUMN, self.delegate)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        self.setIconSize(QSize(26, 26))
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.horizontalHeader()
        header.setMinimumSectionSize(32)
        header.setStretchLastSection(False)
        for column in range(model.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(HitsModel.TEXT_COLUMN, QHeaderView.ResizeMode.Stretch)
        self.compact = False
        self.fit_columns()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def fit_columns(self) -> None:
        width = self.viewport().width()
        compact = width < COMPACT_WIDTH

        def share(spec: tuple[float, int]) -> int:
            return min(int(width * spec[0]), spec[1])

        self.setColumnWidth(HitsModel.WHO_COLUMN, AVATAR_ONLY if compact else max(share(WHO), 90))
        self.setColumnWidth(HitsModel.WHERE_COLUMN, max(share(WHERE), 96))
        self.setColumnWidth(HitsModel.WHEN_COLUMN, max(share(WHEN), 70))
        if compact != self.compact:
            self.compact = compact
            self.hits.set_compact(compact)
