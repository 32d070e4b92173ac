"""The search detail's HTML: the heading, the conversation around a hit, and its summary."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.core.domain import MessageRecord, SearchHit
from app.ui.formatting import channel_label, platform_name, tier_words
from app.ui.highlight import highlight_html
from app.ui.icons import PLATFORM_ICONS, icon_img
from app.ui.when import exact, local_time

if TYPE_CHECKING:
    from forgetting.summaries import StoredSummary

FLAG_NOTE = "reads like instructions to an AI model (flagged, shown as data)"
Shown = dict[int, tuple[str | None, list[str]]]  # record id -> (masked text, privacy flags)


@dataclass(frozen=True)
class ConversationWindow:
    """A message's conversation window, and whether more exists on each side."""

    record: MessageRecord
    neighbours: tuple[MessageRecord, ...]
    more_before: bool
    more_after: bool


def trimmed(ctx: Any, before: int, after: int) -> ConversationWindow:
    """Cut a context fetched with one extra message per side down to the asked window."""
    earlier = [r for r in ctx.neighbours if (r.timestamp, r.id) < (ctx.record.timestamp, ctx.record.id)]
    later = [r for r in ctx.neighbours if (r.timestamp, r.id) > (ctx.record.timestamp, ctx.record.id)]
    return ConversationWindow(
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
    elif hit.kind == "memory_file":
        name = str(hit.extra.get("title") or hit.extra.get("path") or "Memory page")
        path = html.escape(str(hit.extra.get("path") or ""))
        text = f"{icon_img('files', 16)} <b>{html.escape(name)}</b> · memory page <small>{path}</small>"
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


def pairs(
    ctx: Any, shown: dict[int, tuple[str | None, list[str]]]
) -> list[tuple[Any, tuple[str | None, list[str]]]]:
    return [(r, shown.get(r.id, (r.content, []))) for r in (ctx.record, *ctx.neighbours)]


def span_text(count: int | None, start: int | None, end: int | None) -> str:
    """ " · 12 messages, 3 Mar 09:00 – 5 Mar 17:30" for a summary's span (parts left out when unknown)."""
    parts = []
    if count:
        parts.append(f"{count} message{'s' if count != 1 else ''}")
    if start is not None and end is not None:
        parts.append(f"{local_time(start)} – {local_time(end)}" if start != end else local_time(start))
    return f" · {', '.join(parts)}" if parts else ""


def summary_html(summary_id: str, summary: StoredSummary | None) -> str:
    if summary is None:
        return "<p><i>Archived into a summary that can no longer be found.</i></p>"
    span = span_text(summary.message_count, summary.start_timestamp, summary.end_timestamp)
    items = "".join(f"<li>{html.escape(p)}</li>" for p in summary.key_points)
    kind = tier_words(summary.tier).capitalize()
    return (
        "<h4>Summary that replaced it</h4>"
        f"<p><small>{html.escape(kind)} summary{html.escape(span)}</small></p>"
        f"<p>{html.escape(summary.summary_text)}</p>" + (f"<ul>{items}</ul>" if items else "")
    )


def conversation_html(
    ctx: Any, shown: Shown, summary: Any, terms: list[str], revealed: bool, colour: str
) -> str:
    """The hit among its neighbours (masked unless `revealed`), load-more links, the summary."""
    record: MessageRecord = ctx.record
    rows = sorted([*ctx.neighbours, record], key=lambda r: (r.timestamp, r.id))
    parts = []
    if ctx.more_before:
        parts.append("<p><a href='more:before'>\u2191 Earlier messages</a></p>")
    for r in rows:
        is_hit = r.id == record.id
        masked, flags = shown.get(r.id, (r.content, []))
        text = r.content if revealed else masked
        text = text if text is not None else "(archived: verbatim text kept, see summary)"
        body = highlight_html(text, terms if is_hit else [], colour).replace("\n", "<br>")
        style = "border-left:3px solid #4f7cff;padding-left:6px;" if is_hit else "color:gray;"
        when = f"<span title='{exact(r.timestamp)}'>{local_time(r.timestamp)}</span>"
        meta = f"<b>{html.escape(r.person)}</b> \u00b7 {when}"
        if flags:
            meta += f" \u00b7 {icon_img('warning')} <span style='color:#c77700'>{FLAG_NOTE}</span>"
        anchor = "<a name='hit'></a>" if is_hit else ""
        parts.append(f"<div style='{style}margin:6px 0;'>{anchor}<small>{meta}</small><br>{body}</div>")
    if ctx.more_after:
        parts.append("<p><a href='more:after'>\u2193 Later messages</a></p>")
    opened = f"opened {record.access_count} time{'s' if record.access_count != 1 else ''}"
    info = [f"{tier_words(str(record.memory_stage)).capitalize()} memory", opened]
    if record.is_pinned:
        info.append(f"{icon_img('pin', 12)} pinned")
    if record.archived_at:
        info.append(f"archived {local_time(record.archived_at)}")
    separator = " \u00b7 "
    html_parts = [f"<p><small>{separator.join(info)}</small></p>", *parts]
    if record.summary_ref_id:
        html_parts.append(summary_html(record.summary_ref_id, summary))
    return "".join(html_parts)
