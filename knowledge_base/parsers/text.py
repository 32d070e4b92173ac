"""Plain text and Markdown: decoded by BOM / UTF-8 / Windows-1252; Markdown split at its headings."""

from __future__ import annotations

import re

from knowledge_base.detect import decode_text
from knowledge_base.document import DocumentFormat, ParsedDocument, Section
from knowledge_base.parsers.base import build, clean

_ATX_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")


def parse_txt(data: bytes, filename: str) -> ParsedDocument:
    return build(DocumentFormat.TXT, filename, [Section(text=clean(decode_text(data)))], {})


def parse_md(data: bytes, filename: str) -> ParsedDocument:
    """Sections start at headings (outside code fences) and remember the heading path."""
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    lines: list[str] = []
    title: str | None = None
    in_fence = False

    def flush() -> None:
        text = clean("\n".join(lines))
        if text:
            heading = " > ".join(name for _, name in path) or None
            sections.append(Section(text=text, heading=heading))
        lines.clear()

    for line in decode_text(data).splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _ATX_HEADING.match(line)
        if match:
            flush()
            level, name = len(match.group(1)), match.group(2).strip()
            if level == 1 and title is None:
                title = name
            # Keep only the ancestors of this heading: "Guide > Install > Linux".
            path = [(lvl, n) for lvl, n in path if lvl < level] + [(level, name)]
        lines.append(line)
    flush()
    return build(DocumentFormat.MD, filename, sections, {"title": title})
