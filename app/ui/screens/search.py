"""Search screen."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit

from app.ui.context import UiContext
from app.ui.screens.base import Screen


class SearchScreen(Screen):
    title = "Search"

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        self.query_edit = QLineEdit()
        self.query_edit.setPlaceholderText("Search messages, summaries and documents  (Ctrl+K)")
        self.outer.addWidget(self.query_edit)
        self.outer.addStretch(1)

    def focus_query(self, text: str | None = None) -> None:
        if text is not None:
            self.query_edit.setText(text)
        self.query_edit.setFocus()
        self.query_edit.selectAll()
