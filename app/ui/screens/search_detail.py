"""The search detail pane: a hit in its conversation, "load more" both ways, its summary if archived,
pin, delete, narrow the search to its conversation or person, and open it in its own app."""

from __future__ import annotations

import html
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QTextBrowser, QToolButton, QVBoxLayout, QWidget

from app.core.domain import MessageRecord, SearchHit
from app.core.errors import NotFound
from app.ui.events import MESSAGES
from app.ui.formatting import channel_label, exact_time, local_time, platform_name, tier_words
from app.ui.highlight import highlight_html
from app.ui.icons import PLATFORM_ICONS, icon, icon_img
from app.ui.links import MessageLink, message_link
from app.ui.theme import is_dark, term_highlight_colour

if TYPE_CHECKING:
    from app.ui.screens.search import SearchScreen
    from forgetting.summaries import StoredSummary

CONTEXT_BEFORE = 4
CONTEXT_AFTER = 4
LOAD_MORE = 10  # messages added by each "Earlier messages" / "Later messages"
FLAG_NOTE = "reads like instructions to an AI model (flagged, shown as data)"


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
        self.view.anchorClicked.connect(self._anchor)
        buttons = QHBoxLayout()
        self.pin_button = _tool("Pin", "pin", "Pinned messages are never archived by the forgetting engine")
        self.pin_button.clicked.connect(self.toggle_pin)
        self.reveal_button = _tool(
            "Show secrets",
            "eye",
            "Secrets and personal data (keys, passwords, e-mails, phones…) are masked; show them here",
        )
        self.reveal_button.setCheckable(True)
        self.reveal_button.toggled.connect(self._toggle_reveal)
        self.delete_button = _tool("Delete", "trash", "Delete this message for good")
        self.delete_button.clicked.connect(self.delete)
        self.narrow_button = _tool("Narrow to", "filter", "Search only this conversation or this person")
        self.narrow_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        narrow = QMenu(self.narrow_button)
        self.channel_action = narrow.addAction(
            icon("channel"), "This conversation", lambda: self._filter("channel")
        )
        self.person_action = narrow.addAction(icon("person"), "This person", lambda: self._filter("person"))
        self.narrow_button.setMenu(narrow)
        self.open_button = _tool("Open", "external", "Open this message in its own app")
        self.open_button.clicked.connect(self.open_link)
        self.open_button.hide()
        self.link: MessageLink | None = None
        for b in (self.pin_button, self.reveal_button, self.delete_button, self.narrow_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.open_button)
        layout.addLayout(buttons)
        self.before, self.after = CONTEXT_BEFORE, CONTEXT_AFTER
        self.show_nothing()

    # --- showing -------------------------------------------------------------------------------
    def show_nothing(self) -> None:
        self._seq += 1
        self.hit, self.record = None, None
        self.heading.setText("")
        self.view.setHtml("<p style='color:gray'>Select a result to see it in its conversation.</p>")
        self._enable(False)

    def _enable(self, message: bool) -> None:
        for b in (self.pin_button, self.delete_button, self.narrow_button):
            b.setEnabled(message)
        if not message:
            self.link = None
            self.open_button.hide()
        self.reveal_button.blockSignals(True)
        self.reveal_button.setChecked(False)  # every new selection starts masked
        self.reveal_button.setText("Show secrets")
        self.reveal_button.blockSignals(False)
        self.reveal_button.setEnabled(False)

    def show_hit(self, hit: SearchHit, terms: list[str]) -> None:
        self.before, self.after = CONTEXT_BEFORE, CONTEXT_AFTER
        self._load(hit, terms)

    def more(self, side: str) -> None:
        """ "Earlier messages" / "Later messages": widen the conversation window on that side."""
        if self.hit is None:
            return
        if side == "before":
            self.before += LOAD_MORE
        else:
            self.after += LOAD_MORE
        self._load(self.hit, self._terms, keep=side)

    def _load(self, hit: SearchHit, terms: list[str], keep: str | None = None) -> None:
        self._seq += 1
        seq = self._seq
        self.hit, self.record = hit, None
        self._terms = terms
        self.heading.setText(heading_html(hit))
        self._shown = None
        if hit.kind != "message":
            # Summaries and document chunks carry their whole text; no conversation to fetch.
            self._enable(False)
            self._render_plain(hit)
            return
        memory, forgetting = self.screen.memory, self.screen.forgetting
        privacy = getattr(self.screen, "privacy", None)
        record_id = int(hit.id)
        before, after = self.before, self.after

        def load() -> tuple[Any, Any, dict[int, tuple[str | None, list[str]]]]:
            # One more each way tells whether "load more" has anything left to load.
            ctx = _trimmed(memory.context(record_id, before=before + 1, after=after + 1), before, after)
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

        self.screen.query(load, lambda result: self._render_context(seq, *result, keep=keep))

    def _render_plain(self, hit: SearchHit) -> None:
        colour = term_highlight_colour(is_dark())
        head = ""  # the heading above already names the document or conversation
        label = {"summary": "Summary", "chunk": "Document excerpt"}.get(hit.kind, hit.kind.capitalize())
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
        self,
        seq: int,
        ctx: Any,
        summary: Any,
        shown: dict[int, tuple[str | None, list[str]]] | None = None,
        *,
        keep: str | None = None,
    ) -> None:
        if seq != self._seq:
            return
        self.link = message_link(ctx.record.platform, ctx.record.message_id, ctx.record.metadata)
        self.open_button.setVisible(self.link is not None)
        if self.link is not None:
            self.open_button.setText(self.link.label)
            self.open_button.setToolTip(self.link.url)
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
        if ctx.more_before:
            parts.append("<p><a href='more:before'>↑ Earlier messages</a></p>")
        for r in rows:
            is_hit = r.id == record.id
            masked, flags = shown.get(r.id, (r.content, []))
            text = r.content if revealed else masked
            text = text if text is not None else "(archived: verbatim text kept, see summary)"
            body = highlight_html(text, self._terms if is_hit else [], colour).replace("\n", "<br>")
            style = "border-left:3px solid #4f7cff;padding-left:6px;" if is_hit else "color:gray;"
            when = f"<span title='{exact_time(r.timestamp)}'>{local_time(r.timestamp)}</span>"
            meta = f"<b>{html.escape(r.person)}</b> · {when}"
            if flags:
                meta += f" · {icon_img('warning')} <span style='color:#c77700'>{FLAG_NOTE}</span>"
            anchor = "<a name='hit'></a>" if is_hit else ""
            parts.append(f"<div style='{style}margin:6px 0;'>{anchor}<small>{meta}</small><br>{body}</div>")
        if ctx.more_after:
            parts.append("<p><a href='more:after'>↓ Later messages</a></p>")
        opened = f"opened {record.access_count} time{'s' if record.access_count != 1 else ''}"
        info = [f"{tier_words(str(record.memory_stage)).capitalize()} memory", opened]
        if record.is_pinned:
            info.append(f"{icon_img('pin', 12)} pinned")
        if record.archived_at:
            info.append(f"archived {local_time(record.archived_at)}")
        html_parts = [f"<p><small>{' · '.join(info)}</small></p>", *parts]
        if record.summary_ref_id:
            html_parts.append(_summary_html(record.summary_ref_id, summary))
        self.view.setHtml("".join(html_parts))
        if keep != "after":  # keep the hit in view; after "Later messages" stay where the new ones are
            self.view.scrollToAnchor("hit")
        else:
            bar = self.view.verticalScrollBar()
            bar.setValue(bar.maximum())

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

    def open_link(self) -> None:
        if self.link is not None:
            QDesktopServices.openUrl(QUrl(self.link.url))

    def _anchor(self, url: QUrl) -> None:
        if url.scheme() == "more":
            self.more(url.path())
        elif url.scheme() in ("http", "https"):
            QDesktopServices.openUrl(url)

    def _filter(self, key: str) -> None:
        record = self.record
        if record is not None:
            self.screen.add_chip(key, record.channel if key == "channel" else record.person)


def _tool(text: str, icon_name: str, tooltip: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setIcon(icon(icon_name))
    button.setToolTip(tooltip)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    return button


@dataclass(frozen=True)
class _Window:
    """A message's conversation window, and whether more exists on each side."""

    record: MessageRecord
    neighbours: tuple[MessageRecord, ...]
    more_before: bool
    more_after: bool


def _trimmed(ctx: Any, before: int, after: int) -> _Window:
    earlier = [r for r in ctx.neighbours if (r.timestamp, r.id) < (ctx.record.timestamp, ctx.record.id)]
    later = [r for r in ctx.neighbours if (r.timestamp, r.id) > (ctx.record.timestamp, ctx.record.id)]
    return _Window(
        record=ctx.record,
        neighbours=(*(earlier[-before:] if before else []), *later[:after]),
        more_before=len(earlier) > before,
        more_after=len(later) > after,
    )


def heading_html(hit: SearchHit) -> str:
    """ "[icon] #launch · Slack" (or the document's name), with the flag note when there is one."""
    if hit.kind == "chunk":
        name = str(hit.extra.get("file_name") or hit.channel or "Document")
        text = f"{icon_img('document', 16)} <b>{html.escape(name)}</b>"
    else:
        mark = PLATFORM_ICONS.get((hit.platform or "").lower(), "message")
        place = channel_label(hit.platform, hit.channel)
        where = f"<b>{html.escape(place)}</b> · " if place else ""
        text = f"{icon_img(mark, 16)} {where}{html.escape(platform_name(hit.platform))}"
        if hit.kind == "summary":
            text += " · summary"
    if hit.extra.get("flags"):
        text += f" <span style='color:#c77700'>{icon_img('warning')} {FLAG_NOTE}</span>"
    return text


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
