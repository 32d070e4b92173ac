"""The search screen's Filter menu: pickers of stored people, conversations and platforms, dates.

Known values are read with `MemoryService.facets()` in a background op the first time a picker
opens (the screen keeps them until messages change);
a custom date range is checked before it becomes a chip (the dialog shows what is wrong).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDate
from PySide6.QtWidgets import QMenu

from app.ui.icons import icon
from app.ui.screens.search_filters import (
    DateRangeDialog,
    PickerDialog,
    channel_choices,
    person_choices,
    platform_choices,
)
from app.ui.search_state import ARCHIVED_INCLUDED, DATE_PRESETS, date_bounds

if TYPE_CHECKING:
    from app.ui.screens.search import SearchScreen

TITLES = {"person": "Only messages from…", "channel": "Only the conversation…", "platform": "Only from…"}
CHOICES = {"person": person_choices, "channel": channel_choices, "platform": platform_choices}


class FilterMenu(QMenu):
    def __init__(self, screen: SearchScreen) -> None:
        super().__init__(screen)
        self.screen = screen
        self.picker: PickerDialog | None = None  # the open dialogs, for tests to drive
        self.date_dialog: DateRangeDialog | None = None
        self.addAction(icon("person"), "Person…", lambda: self.pick("person"))
        self.addAction(icon("channel"), "Conversation…", lambda: self.pick("channel"))
        self.addAction(icon("message"), "Platform…", lambda: self.pick("platform"))
        dates = self.addMenu(icon("calendar"), "Date")
        for preset in DATE_PRESETS:
            dates.addAction(preset.capitalize(), lambda p=preset: screen.add_chip("date", p))
        dates.addAction("Custom range…", self.ask_date_range)
        self.addAction(
            icon("archive"),
            "Include archived messages",
            lambda: screen.add_chip("archived", ARCHIVED_INCLUDED),
        )

    def pick(self, key: str) -> None:
        """Load the known values off the GUI thread, then offer them in a picker."""
        self.screen.with_facets(lambda facets: self._show_picker(key, facets))

    def _show_picker(self, key: str, facets: Any) -> None:
        dialog = PickerDialog(
            TITLES[key], "Pick from what is stored:", CHOICES[key](facets), key, self.screen
        )
        self.picker = dialog
        if dialog.exec() == PickerDialog.DialogCode.Accepted and dialog.value():
            self.screen.add_chip(key, dialog.value() or "")

    def ask_date_range(self) -> None:
        now = self.screen.ctx.clock.now_ms()
        today = datetime.fromtimestamp(now / 1000)
        dialog = DateRangeDialog(
            lambda v: date_bounds(v, now), QDate(today.year, today.month, today.day), self.screen
        )
        self.date_dialog = dialog
        if dialog.exec() == DateRangeDialog.DialogCode.Accepted:
            self.screen.add_chip("date", dialog.value())
