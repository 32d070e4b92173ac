"""Insights screen."""

from __future__ import annotations

from app.ui.context import UiContext
from app.ui.screens.base import Screen, unavailable


class InsightsScreen(Screen):
    title = "Insights"

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        unavailable(self, "The insights service")
