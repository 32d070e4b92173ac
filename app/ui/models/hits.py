"""Search results as a table: source, person, time, tier, and the text with highlighted terms."""

from __future__ import annotations

from typing import Any

from app.core.domain import SearchHit
from app.ui.formatting import TIER_COLOURS, local_time, source_label
from app.ui.highlight import highlight_html, snippet
from app.ui.models.rows import Column, RowsModel

KIND_LABELS = {"message": "", "summary": "summary", "chunk": "document", "insight": "insight"}


def _source(hit: SearchHit) -> str:
    # Text that reads like instructions to an AI model is marked, never hidden.
    mark = "⚠ " if hit.extra.get("flags") else ""
    return mark + _place(hit)


def _place(hit: SearchHit) -> str:
    if hit.kind == "chunk":
        return f"📄 {hit.extra.get('file_name') or hit.channel or 'document'}"
    label = source_label(hit.platform, hit.channel)
    return f"{label} · {hit.kind}" if hit.kind in ("summary", "insight") else label


def _tier(hit: SearchHit) -> str:
    tier = hit.tier or ""
    if hit.extra.get("archived_at") is not None:
        tier = f"{tier} · archived" if tier else "archived"
    return f"{tier} 📌" if hit.extra.get("is_pinned") else tier


def _exact_time(hit: SearchHit) -> str:
    return local_time(hit.timestamp, with_seconds=True)


class HitsModel(RowsModel[SearchHit]):
    TIER_COLUMN = 3
    TEXT_COLUMN = 4

    def __init__(self, parent: Any = None) -> None:
        self.terms: list[str] = []
        self.colour = "#fff1a8"
        super().__init__(
            [
                Column("Source", _source),
                Column("Person", lambda h: h.person or ""),
                Column("Time", lambda h: local_time(h.timestamp), tooltip=_exact_time),
                Column("Tier", _tier, colour=lambda h: TIER_COLOURS.get(h.tier or "")),
                Column(
                    "Text",
                    lambda h: snippet(h.content or "", self.terms),
                    tooltip=lambda h: (h.content or "")[:1000],
                    html=lambda h: highlight_html(
                        snippet(h.content or "", self.terms), self.terms, self.colour
                    ),
                ),
            ],
            parent,
        )

    def set_view(self, terms: list[str], colour: str) -> None:
        """Terms to highlight (set before `set_rows`, which resets the view)."""
        self.terms = terms
        self.colour = colour
