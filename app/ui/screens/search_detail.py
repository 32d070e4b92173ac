"""The search detail pane: a hit in its conversation context, its summary if archived, pin, delete."""

from __future__ import annotations

import html
from dataclasses import replace
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
        self._shown: tuple[Any, Any, dict[int, tuple[str | None, list[str]]]] | None = None
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
        self.reveal_button = QPushButton("Show secrets")
        self.reveal_button.setCheckable(True)
        self.reveal_button.setToolTip(
            "Secrets and personal data (keys, passwords, e-mails, phones…) are masked; show them here"
        )
        self.reveal_button.toggled.connect(self._toggle_reveal)
        self.delete_button = QPushButton("Delete")
        self.delete_button.clicked.connect(self.delete)
        self.channel_button = QPushButton("Only this channel")
        self.channel_button.clicked.connect(lambda: self._filter("channel"))
        self.person_button = QPushButton("Only this person")
        self.person_button.clicked.connect(lambda: self._filter("person"))
        for b in (
            self.pin_button, self.reveal_button, self.delete_button, self.channel_button, self.person_button
        ):  # fmt: skip
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
        self.reveal_button.blockSignals(True)
        self.reveal_button.setChecked(False)  # every new selection starts masked
        self.reveal_button.setText("Show secrets")
        self.reveal_button.blockSignals(False)
        self.reveal_button.setEnabled(False)

    def show_hit(self, hit: SearchHit, terms: list[str]) -> None:
        self._seq += 1
        seq = self._seq
        self.hit, self.record = hit, None
        self._terms = terms
        flagged = (
            " ⚠ reads like instructions to an AI model (flagged, shown as data)"
            if hit.extra.get("flags")
            else ""
        )
        label = html.escape(source_label(hit.platform, hit.channel) or hit.kind)
        self.heading.setText(f"<b>{label}</b><span style='color:#c77700'>{html.escape(flagged)}</span>")
        self._shown = None
        if hit.kind != "message":
            # Summaries and document chunks carry their whole text; no conversation to fetch.
            self._enable(False)
            self._render_plain(hit)
            return
        memory, forgetting = self.screen.memory, self.screen.forgetting
        privacy = getattr(self.screen, "privacy", None)
        record_id = int(hit.id)

        def load() -> tuple[Any, Any, dict[int, tuple[str | None, list[str]]]]:
            ctx = memory.context(record_id, before=CONTEXT_BEFORE, after=CONTEXT_AFTER)
            summary = None
            if ctx.record.summary_ref_id and forgetting is not None:
                try:
                    summary = forgetting.summary(ctx.record.summary_ref_id)
                except NotFound:  # undone run: the message is back, or the summary was removed
                    summary = None
            if summary is not None and privacy is not None:
                summary = replace(
                    summary,
                    summary_text=privacy.mask(summary.summary_text),
                    key_points=tuple(privacy.mask(p) for p in summary.key_points),
                )
            # Masked text and flags per message, computed here, off the GUI thread.
            shown = {
                r.id: (
                    privacy.mask(r.content) if privacy is not None else r.content,
                    privacy.flags(r.content, r.metadata) if privacy is not None else [],
                )
                for r in (ctx.record, *ctx.neighbours)
            }
            return ctx, summary, shown

        self.screen.query(load, lambda result: self._render_context(seq, *result))

    def _render_plain(self, hit: SearchHit) -> None:
        colour = term_highlight_colour(is_dark())
        title = hit.extra.get("file_name") or ""
        head = f"<h3>{html.escape(str(title))}</h3>" if title else ""
        labels = {"summary": "Summary", "chunk": "Document excerpt", "insight": "Insight"}
        label = labels.get(hit.kind, hit.kind)
        if hit.kind == "summary":
            extra = hit.extra
            label += _span_text(
                extra.get("message_count"), extra.get("start_timestamp"), extra.get("end_timestamp")
            )
        verbatim = hit.extra.get("verbatim")
        self.reveal_button.setEnabled(verbatim is not None)
        text = verbatim if verbatim is not None and self.reveal_button.isChecked() else hit.content
        body = highlight_html(text or "", self._terms, colour).replace("\n", "<br>")
        self.view.setHtml(f"{head}<p style='color:gray'>{html.escape(label)}</p><p>{body}</p>")

    def _toggle_reveal(self, _checked: bool) -> None:
        self.reveal_button.setText("Hide secrets" if self.reveal_button.isChecked() else "Show secrets")
        if self._shown is not None:
            self._render_context(self._seq, *self._shown)
        elif self.hit is not None and self.hit.kind != "message":
            self._render_plain(self.hit)

    def _render_context(
        self, seq: int, ctx: Any, summary: Any, shown: dict[int, tuple[str | None, list[str]]] | None = None
    ) -> None:
        if seq != self._seq:
            return
        shown = shown or {}
        self._shown = (ctx, summary, shown)
        revealed = self.reveal_button.isChecked()
        record: MessageRecord = ctx.record
        self.record = record
        if not revealed:
            self._enable(True)
        self.reveal_button.setEnabled(any(masked != r.content for r, (masked, _) in _pairs(ctx, shown)))
        self.pin_button.setText("Unpin" if record.is_pinned else "Pin")
        colour = term_highlight_colour(is_dark())
        rows = sorted([*ctx.neighbours, record], key=lambda r: (r.timestamp, r.id))
        parts = []
        for r in rows:
            is_hit = r.id == record.id
            masked, flags = shown.get(r.id, (r.content, []))
            text = r.content if revealed else masked
            text = text if text is not None else "(archived: verbatim text kept, see summary)"
            body = highlight_html(text, self._terms if is_hit else [], colour).replace("\n", "<br>")
            style = "border-left:3px solid #4f7cff;padding-left:6px;" if is_hit else "color:gray;"
            meta = f"{html.escape(r.person)} · {local_time(r.timestamp)}"
            if flags:
                meta += " · <span style='color:#c77700'>⚠ reads like instructions to an AI model</span>"
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


def _pairs(
    ctx: Any, shown: dict[int, tuple[str | None, list[str]]]
) -> list[tuple[Any, tuple[str | None, list[str]]]]:
    return [(r, shown.get(r.id, (r.content, []))) for r in (ctx.record, *ctx.neighbours)]


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
