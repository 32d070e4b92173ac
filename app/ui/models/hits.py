"""Search results as a table: who (avatar), the matched text, where, when (relative, exact on hover).

The text column carries the answer; the metadata columns are compact (initials avatar, the
conversation's short name, a relative time) so the text keeps the width at every window size.
Markers (pinned, archived, flagged as instructions to an AI model) are SVG icons, not emoji.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QIcon, QPixmap

from app.core.domain import SearchHit
from app.ui.formatting import channel_label, plain_markdown, platform_name, source_label
from app.ui.highlight import highlight_html, snippet
from app.ui.icons import avatar, icon, icon_img, platform_icon
from app.ui.models.rows import MUTED, Column, RowsModel
from app.ui.when import exact, relative_time

KIND_LABELS = {
    "message": "",
    "summary": "Summary",
    "chunk": "Document",
    "memory_file": "Memory page",
    "insight": "Insight",
}
# Kinds that are not somebody's message: no avatar, an icon and a label instead.
KIND_ICONS = {"chunk": "document", "memory_file": "files"}
FLAG_TEXT = "Reads like instructions to an AI model (flagged, shown as data)"
AVATAR_SIZE = 26
PLACE_ICON_SIZE = 18
SNIPPET_CHARS = 200
SORTS = {"relevance": "Best match", "newest": "Newest first", "oldest": "Oldest first"}


def who(hit: SearchHit) -> str:
    if hit.kind in KIND_ICONS:
        return KIND_LABELS[hit.kind]
    return hit.person or KIND_LABELS.get(hit.kind, "") or ""


def where(hit: SearchHit) -> str:
    """The conversation's short name ("#launch", "Direct message with lena") or the document."""
    if hit.kind == "chunk":
        return str(hit.extra.get("file_name") or hit.channel or "Document")
    if hit.kind == "memory_file":
        return str(hit.extra.get("title") or hit.extra.get("path") or "Memory page")
    return channel_label(hit.platform, hit.channel) or platform_name(hit.platform)


def where_tooltip(hit: SearchHit) -> str:
    if hit.kind == "chunk":
        return f"Document: {where(hit)}"
    if hit.kind == "memory_file":
        return f"Memory page {hit.extra.get('path') or ''} (Files screen)".replace("  ", " ")
    label = source_label(hit.platform, hit.channel)
    if hit.kind == "summary":
        return f"Summary of {label}"
    return f"Insight from {label}" if hit.kind == "insight" else label


def readable(hit: SearchHit) -> str:
    """The hit's text as shown: documents and memory pages without their markdown syntax."""
    text = hit.content or ""
    return plain_markdown(text) if hit.kind in KIND_ICONS else text


def _marks(hit: SearchHit) -> str:
    """Leading icons for the text cell: flagged, pinned; a trailing word for archived."""
    marks = []
    if hit.extra.get("flags"):
        marks.append(icon_img("warning") + " ")
    if hit.extra.get("is_pinned"):
        marks.append(icon_img("pin") + " ")
    if label := kind_label(hit):
        marks.append(f"<span class='{MUTED}'>{html.escape(label)}:</span> ")
    return "".join(marks)


def kind_label(hit: SearchHit) -> str:
    """ "Summary", "Insight", or an insight's kind ("Decision") for the message it was drawn from."""
    if hit.kind in ("summary", "insight"):
        return KIND_LABELS[hit.kind]
    return insight_label(hit)  # the message an insight was drawn from: one row, named as both


def insight_label(hit: SearchHit) -> str:
    """ "Decision", "Action item" … for a message hit that an insight was drawn from; "" otherwise."""
    note = hit.extra.get("insight")
    kind = note.get("insight_kind") if isinstance(note, dict) else None
    return str(kind).replace("_", " ").capitalize() if kind else ""


def _unselected_look(pix: QPixmap) -> QIcon:
    """The same picture in selected rows (Qt would tint it with the selection colour)."""
    result = QIcon(pix)
    result.addPixmap(pix, QIcon.Mode.Selected)
    return result


def sort_hits(hits: list[SearchHit], order: str) -> list[SearchHit]:
    """Relevance keeps the engine's order; newest/oldest sort by time (undated hits last)."""
    if order == "relevance":
        return list(hits)
    if order not in SORTS:
        raise ValueError(f"unknown sort {order!r}; one of {', '.join(SORTS)}")
    dated = [h for h in hits if h.timestamp is not None]
    undated = [h for h in hits if h.timestamp is None]
    dated.sort(key=lambda h: h.timestamp or 0, reverse=order == "newest")
    return dated + undated


class HitsModel(RowsModel[SearchHit]):
    WHO_COLUMN = 0
    TEXT_COLUMN = 1
    WHERE_COLUMN = 2
    WHEN_COLUMN = 3

    def __init__(self, parent: Any = None, now_ms: Callable[[], int] | None = None) -> None:
        self.terms: list[str] = []
        self.colour = "#fff1a8"
        self.now_ms = now_ms
        self.compact = False  # narrow table: the Who column shows the avatar only
        super().__init__(
            [
                Column("Who", who, tooltip=lambda h: h.person or who(h)),
                Column(
                    "Message",
                    lambda h: snippet(readable(h), self.terms, SNIPPET_CHARS),
                    tooltip=self._text_tooltip,
                    html=self._text_html,
                ),
                Column("Where", where, tooltip=where_tooltip),
                Column("When", self._when, tooltip=lambda h: exact(h.timestamp)),
            ],
            parent,
        )

    def set_view(self, terms: list[str], colour: str) -> None:
        """Terms to highlight (set before `set_rows`, which resets the view)."""
        self.terms = terms
        self.colour = colour

    def set_compact(self, compact: bool) -> None:
        self.compact = compact
        if self.rows:
            self.dataChanged.emit(
                self.index(0, self.WHO_COLUMN), self.index(len(self.rows) - 1, self.WHO_COLUMN)
            )

    def _when(self, hit: SearchHit) -> str:
        if hit.timestamp is None:
            return ""
        now = self.now_ms() if self.now_ms is not None else hit.timestamp
        return relative_time(hit.timestamp, now)

    def _text_html(self, hit: SearchHit) -> str:
        text = highlight_html(snippet(readable(hit), self.terms, SNIPPET_CHARS), self.terms, self.colour)
        archived = f" <span class='{MUTED}'>· archived</span>" if hit.extra.get("archived_at") else ""
        return _marks(hit) + text + archived

    def _text_tooltip(self, hit: SearchHit) -> str:
        notes = [FLAG_TEXT] if hit.extra.get("flags") else []
        if hit.extra.get("is_pinned"):
            notes.append("Pinned: never archived")
        body = html.escape((hit.content or "")[:1000])
        return "<br>".join([*(f"<b>{html.escape(n)}</b>" for n in notes), body])

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DecorationRole and index.isValid():
            hit = self.rows[index.row()]
            if index.column() == self.WHO_COLUMN:
                if hit.kind in KIND_ICONS:
                    return icon(KIND_ICONS[hit.kind]).pixmap(AVATAR_SIZE, AVATAR_SIZE)
                return _unselected_look(avatar(hit.person or who(hit) or "?", AVATAR_SIZE))
            if index.column() == self.WHERE_COLUMN:
                mark = icon(KIND_ICONS[hit.kind]) if hit.kind in KIND_ICONS else platform_icon(hit.platform)
                return mark.pixmap(PLACE_ICON_SIZE, PLACE_ICON_SIZE)
            return None
        if role == Qt.ItemDataRole.DisplayRole and self.compact and index.column() == self.WHO_COLUMN:
            return ""
        if (
            role == Qt.ItemDataRole.TextAlignmentRole
            and index.isValid()
            and index.column() != self.TEXT_COLUMN
        ):
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        return super().data(index, role)
