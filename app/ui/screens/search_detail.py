"""The search detail pane: a hit in its conversation context, its summary if archived, pin, delete."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from app.core.domain import MessageRecord, SearchHit
from app.core.errors import NotFound
from app.ui.events import MESSAGES
from app.ui.formatting import local_time, source_label
from app.ui.highlight import highlight_html
from app.ui.theme import is_dark, term_highlight_colour

if TYPE_CHECKING:
    from app.ui.screens.search import SearchScreen
    from forgetting.summaries import StoredSummary

CONTEXT_BEFORE = 4
CONTEXT_AFTER = 4


class DetailPane(QWidget):
    def __init__(self, screen: SearchScreen) -> None:
        super().__init__(screen)
        self.screen = screen
        self.hit: SearchHit | None = None
        self.record: MessageRecord | None = None
        self._seq = 0
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 0, 0, 0)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        layout.addWidget(self.heading)
        self.view = QTextBrowser()
        self.view.setOpenExternalLinks(False)
        layout.addWidget(self.view, 1)
        buttons = QHBoxLayout()
        self.pin_button = QPushButton("Pin")
        self.pin_button.setToolTip("Pinned messages are never archived by the forgetting engine")
        self.pin_button.clicked.connect(self.toggle_pin)
        self.delete_button = QPushButton("Delete")
        self.delete_button.clicked.connect(self.delete)
        self.channel_button = QPushButton("Only this channel")
        self.channel_button.clicked.connect(lambda: self._filter("channel"))
        self.person_button = QPushButton("Only this person")
        self.person_button.clicked.connect(lambda: self._filter("person"))
        for b in (self.pin_button, self.delete_button, self.channel_button, self.person_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.show_nothing()

    # --- showing -------------------------------------------------------------------------------
    def show_nothing(self) -> None:
        self._seq += 1
        self.hit, self.record = None, None
        self.heading.setText("")
        self.view.setHtml("<p style='color:gray'>Select a result to see it in its conversation.</p>")
        self._enable(False)

    def _enable(self, message: bool) -> None:
        for b in (self.pin_button, self.delete_button, self.channel_button, self.person_button):
            b.setEnabled(message)

    def show_hit(self, hit: SearchHit, terms: list[str]) -> None:
        self._seq += 1
        seq = self._seq
        self.hit, self.record = hit, None
        self._terms = terms
        self.heading.setText(f"<b>{html.escape(source_label(hit.platform, hit.channel) or hit.kind)}</b>")
        if hit.kind != "message":
            # Summaries and document chunks carry their whole text; no conversation to fetch.
            self._enable(False)
            self._render_plain(hit)
            return
        memory, forgetting = self.screen.memory, self.screen.forgetting
        record_id = int(hit.id)

        def load() -> tuple[Any, Any]:
            ctx = memory.context(record_id, before=CONTEXT_BEFORE, after=CONTEXT_AFTER)
            summary = None
            if ctx.record.summary_ref_id and forgetting is not None:
                try:
                    summary = forgetting.summary(ctx.record.summary_ref_id)
                except NotFound:  # undone run: the message is back, or the summary was removed
                    summary = None
            return ctx, summary

        self.screen.query(load, lambda result: self._render_context(seq, *result))

    def _render_plain(self, hit: SearchHit) -> None:
        colour = term_highlight_colour(is_dark())
        title = hit.extra.get("file_name") or ""
        head = f"<h3>{html.escape(str(title))}</h3>" if title else ""
        label = {"summary": "Summary", "chunk": "Document excerpt"}.get(hit.kind, hit.kind)
        if hit.kind == "summary":
            extra = hit.extra
            label += _span_text(
                extra.get("message_count"), extra.get("start_timestamp"), extra.get("end_timestamp")
            )
        body = highlight_html(hit.content or "", self._terms, colour).replace("\n", "<br>")
        self.view.setHtml(f"{head}<p style='color:gray'>{html.escape(label)}</p><p>{body}</p>")

    def _render_context(self, seq: int, ctx: Any, summary: Any) -> None:
        if seq != self._seq:
            return
        record: MessageRecord = ctx.record
        self.record = record
        self._enable(True)
        self.pin_button.setText("Unpin" if record.is_pinned else "Pin")
        colour = term_highlight_colour(is_dark())
        rows = sorted([*ctx.neighbours, record], key=lambda r: (r.timestamp, r.id))
        parts = []
        for r in rows:
            is_hit = r.id == record.id
            text = r.content if r.content is not None else "(archived: verbatim text kept, see summary)"
            body = highlight_html(text, self._terms if is_hit else [], colour).replace("\n", "<br>")
            style = "border-left:3px solid #4f7cff;padding-left:6px;" if is_hit else "color:gray;"
            meta = f"{html.escape(r.person)} · {local_time(r.timestamp)}"
            parts.append(f"<div style='{style}margin:6px 0;'><small>{meta}</small><br>{body}</div>")
        info = [f"tier <b>{record.memory_stage}</b>", f"accessed {record.access_count}×"]
        if record.is_pinned:
            info.append("📌 pinned")
        if record.archived_at:
            info.append(f"archived {local_time(record.archived_at)}")
        html_parts = [f"<p><small>{' · '.join(info)}</small></p>", *parts]
        if record.summary_ref_id:
            html_parts.append(_summary_html(record.summary_ref_id, summary))
        self.view.setHtml("".join(html_parts))

    # --- actions -------------------------------------------------------------------------------
    def toggle_pin(self) -> None:
        record = self.record
        if record is None:
            return
        memory = self.screen.memory
        pinned = not record.is_pinned

        def done(updated: MessageRecord) -> None:
            self.screen.replace_hit(str(updated.id), is_pinned=updated.is_pinned)
            if self.hit is not None and self.hit.id == str(updated.id):
                self.show_hit(self.hit, self._terms)

        self.screen.mutate(lambda: memory.pin(record.id, pinned), [MESSAGES], done)

    def delete(self) -> None:
        record = self.record
        if record is None:
            return
        if not self.screen.confirm(
            "Delete message",
            "Delete this message for good? Its text is removed everywhere: search, summaries that "
            "quote it and its edit history. This cannot be undone.",
        ):
            return
        memory = self.screen.memory
        self.screen.mutate(
            lambda: memory.delete(record.id), [MESSAGES], lambda _: self.screen.drop_hit(str(record.id))
        )

    def _filter(self, key: str) -> None:
        record = self.record
        if record is not None:
            self.screen.add_chip(key, record.channel if key == "channel" else record.person)


def _span_text(count: int | None, start: int | None, end: int | None) -> str:
    """ " · 12 messages, 3 Mar 09:00 – 5 Mar 17:30" for a summary's span (parts left out when unknown)."""
    parts = []
    if count:
        parts.append(f"{count} message{'s' if count != 1 else ''}")
    if start is not None and end is not None:
        parts.append(f"{local_time(start)} – {local_time(end)}" if start != end else local_time(start))
    return f" · {', '.join(parts)}" if parts else ""


def _summary_html(summary_id: str, summary: StoredSummary | None) -> str:
    if summary is None:
        return f"<p><i>Archived into summary {html.escape(summary_id)} (not found).</i></p>"
    span = _span_text(summary.message_count, summary.start_timestamp, summary.end_timestamp)
    items = "".join(f"<li>{html.escape(p)}</li>" for p in summary.key_points)
    return (
        "<h4>Summary that replaced it</h4>"
        f"<p><small>{html.escape(summary.tier)} summary{html.escape(span)}</small></p>"
        f"<p>{html.escape(summary.summary_text)}</p>" + (f"<ul>{items}</ul>" if items else "")
    )
