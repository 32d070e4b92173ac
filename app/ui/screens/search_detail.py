"""The search detail pane: a hit in its conversation, "load more" both ways, its summary if archived,
pin, delete, narrow the search to its conversation or person, and open it in its own app."""

from __future__ import annotations

import html
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QTextBrowser, QToolButton, QVBoxLayout, QWidget

from app.core.domain import MessageRecord, SearchHit
from app.core.errors import NotFound
from app.ui.events import MESSAGES
from app.ui.formatting import humanize
from app.ui.highlight import highlight_html
from app.ui.icons import icon
from app.ui.links import MessageLink, message_link
from app.ui.screens.search_conversation import conversation_html, heading_html, pairs, span_text, trimmed
from app.ui.theme import is_dark, term_highlight_colour

if TYPE_CHECKING:
    from app.ui.screens.search import SearchScreen

CONTEXT_BEFORE = 4
CONTEXT_AFTER = 4
ICONS_ONLY_BELOW = 440  # px of pane width
LOAD_MORE = 10  # messages added by each "Earlier messages" / "Later messages"


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
        top = QHBoxLayout()
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        top.addWidget(self.heading, 1)
        layout.addLayout(top)
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
        top.addWidget(self.open_button)  # beside the heading, so the button row stays narrow
        self.actions = (self.pin_button, self.reveal_button, self.delete_button, self.narrow_button)
        layout.addLayout(buttons)
        self.before, self.after = CONTEXT_BEFORE, CONTEXT_AFTER
        self.examples: list[str] = []
        self.show_nothing()

    def resizeEvent(self, event: QResizeEvent) -> None:
        # A narrow pane shows icon-only buttons (names on hover) rather than widen itself.
        super().resizeEvent(event)
        style = (
            Qt.ToolButtonStyle.ToolButtonIconOnly
            if event.size().width() < ICONS_ONLY_BELOW
            else Qt.ToolButtonStyle.ToolButtonTextBesideIcon
        )
        for button in self.actions:
            button.setToolButtonStyle(style)

    # --- showing -------------------------------------------------------------------------------
    def show_nothing(self) -> None:
        self._seq += 1
        self.hit, self.record = None, None
        self.heading.setText("")
        examples = ""
        if self.examples and not self.screen.state.text.strip():
            links = " · ".join(
                f"<a href='example:{html.escape(e, quote=True)}'>{html.escape(e)}</a>" for e in self.examples
            )
            examples = f"<p>Try: {links}</p>"
        self.view.setHtml(
            "<p style='color:gray'>Select a result to see it in its conversation.<br>"
            "↑ and ↓ move through the results from the search box, Enter opens one, Esc clears.</p>"
            + examples
        )
        self._enable(False)

    def set_examples(self, examples: list[str]) -> None:
        """Example queries built from what is stored, offered while the search box is empty."""
        self.examples = examples
        if self.hit is None:
            self.show_nothing()

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
            ctx = trimmed(memory.context(record_id, before=before + 1, after=after + 1), before, after)
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
        label = {
            "summary": "Summary",
            "chunk": "Document excerpt",
            "memory_file": "Memory page (Files screen)",
            "insight": "Insight",
        }.get(hit.kind, humanize(hit.kind))
        if hit.kind == "summary":
            extra = hit.extra
            label += span_text(
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
        self.reveal_button.setEnabled(any(masked != r.content for r, (masked, _) in pairs(ctx, shown)))
        self.pin_button.setText("Unpin" if record.is_pinned else "Pin")
        body = conversation_html(ctx, shown, summary, self._terms, revealed, term_highlight_colour(is_dark()))
        self.view.setHtml(body)
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
        elif url.scheme() == "example":
            self.screen.focus_query(url.path())
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
    button.setToolTip(f"{text}: {tooltip}")
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    return button
