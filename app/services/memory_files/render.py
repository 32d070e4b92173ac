"""Markdown for each page: a front matter, a title, one generated block, and room for the user's notes.

Pages link to each other with wiki links (`[[people/anna|Anna]]`, as Obsidian writes them) and to
their source messages with `strata://message/<id>` links, which the desktop Files view opens.
Quoted message text is flattened to one line, so nothing inside a message can start a line that
looks like a fence marker or a heading.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo

from app.core.memory_files.fences import block
from app.core.memory_files.paths import link_target
from app.services.memory_files.snapshot import Line, Span, SummaryLine

QUOTE_CHARS = 220
Mask = Callable[[str], str]  # secret masking for text that leaves the archive (identity until wired)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Item:
    """An insight as a page lists it (decision, action item, question…), with its source message."""

    kind: str
    title: str
    open: bool
    occurred_at: int
    platform: str
    channel: str
    owner: str | None = None
    author: str | None = None
    addressed_to: tuple[str, ...] = ()
    due_at: int | None = None
    source_id: int | None = None


class Renderer:
    def __init__(self, tz: tzinfo = UTC, mask: Mask | None = None) -> None:
        self.tz = tz
        self.mask: Mask = mask or (lambda text: text)

    # -- pieces --------------------------------------------------------------------------------
    def day(self, ms: int) -> str:
        return datetime.fromtimestamp(ms / 1000, self.tz).strftime("%Y-%m-%d")

    def minute(self, ms: int) -> str:
        return datetime.fromtimestamp(ms / 1000, self.tz).strftime("%Y-%m-%d %H:%M")

    def quote(self, text: str, limit: int = QUOTE_CHARS) -> str:
        flat = _SPACE.sub(" ", self.mask(text)).strip()
        flat = flat.replace("<!--", "<!‑‑")  # no HTML comment can open inside a quoted line
        return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"

    @staticmethod
    def link(path: str, label: str | None = None) -> str:
        label = (label or "").replace("|", "/").replace("]", ")").replace("[", "(")
        target = link_target(path)
        return f"[[{target}|{label}]]" if label else f"[[{target}]]"

    @staticmethod
    def source(record_id: int | None) -> str:
        return f" ([source](strata://message/{record_id}))" if record_id else ""

    def item_line(self, item: Item, where: str = "", *, owner: bool = True) -> str:
        parts = [self.day(item.occurred_at), self.quote(item.title, 160)]
        if owner and item.owner:
            parts.append(f"owner: {item.owner}")
        if item.due_at:
            parts.append(f"due {self.day(item.due_at)}")
        if where:
            parts.append(where)
        box = "[ ] " if item.open and item.kind != "decision" else ""
        return f"- {box}" + " · ".join(parts) + self.source(item.source_id)

    def message_line(self, line: Line, where: str = "", *, who: bool = True) -> str:
        head = self.minute(line.timestamp)
        if where:
            head += f" · {where}"
        speaker = f"**{line.person}**: " if who and line.person else ""
        return f"- {head} · {speaker}{self.quote(line.text)}{self.source(line.id)}"

    def summaries(self, items: Sequence[SummaryLine], limit: int = 12) -> list[str]:
        """Summaries grouped by month, newest first: what the forgetting engine condensed."""
        by_month: dict[str, list[SummaryLine]] = defaultdict(list)
        for s in items:
            by_month[self.day(s.start)[:7]].append(s)
        out: list[str] = []
        for month in sorted(by_month, reverse=True)[:limit]:
            group = by_month[month]
            out.append(f"### {month} · {sum(s.count for s in group)} messages")
            for s in group[:5]:
                span = f"{self.day(s.start)} – {self.day(s.end)}"
                out.append(f"- {span} ({s.count}): {self.quote(s.text or '; '.join(s.key_points), 400)}")
        return out

    # -- documents -----------------------------------------------------------------------------
    @staticmethod
    def document(
        title: str, page_type: str, body: str, *, aliases: Iterable[str] = (), extra: str = ""
    ) -> str:
        """A new file: front matter, title, the generated block, and a heading for the user's notes."""
        names = [a for a in dict.fromkeys(aliases) if a and a != title]
        lines = ["---", f"title: {_yaml_text(title)}", f"type: {page_type}"]
        if names:
            lines.append("aliases: [" + ", ".join(_yaml_text(a) for a in names) + "]")
        if extra:
            lines.append(extra.rstrip())
        lines += [
            "generated_by: strata",
            "user_owned: false  # true = Strata never rewrites this file",
            "---",
            f"# {title}",
            "",
            block(body),
            "",
            "## My notes",
            "",
            "",
        ]
        return "\n".join(lines)


def section(title: str, lines: Sequence[str], empty: str | None = None) -> list[str]:
    if not lines and empty is None:
        return []
    return [f"## {title}", *(lines or [f"_{empty}_"]), ""]


def span_text(renderer: Renderer, span: Span) -> str:
    return f"{messages(span.count)} · first {renderer.day(span.first)} · last {renderer.day(span.last)}"


def messages(count: int) -> str:
    return f"{count:,} message" + ("" if count == 1 else "s")


def topics(
    lines: Iterable[Line], stop: frozenset[str], tokenize: Callable[[str], list[str]], k: int = 8
) -> list[str]:
    """The words a conversation uses most (after stop words): a cheap 'what it is about'."""
    counts: Counter[str] = Counter()
    for line in lines:
        seen = {t for t in tokenize(line.text.casefold()) if len(t) > 2 and t not in stop and not t.isdigit()}
        counts.update(seen)  # per message, so one long paste does not dominate
    # Ties broken by the word, so the same messages always give the same page (no spurious rewrites).
    ranked = sorted(counts.items(), key=lambda wn: (-wn[1], wn[0]))
    return [word for word, n in ranked[:k] if n > 1]


def _yaml_text(text: str) -> str:
    """A YAML scalar that survives any name (quotes, colons, leading dashes)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
