"""HTML via the standard library's parser: visible text with block breaks, split at h1–h3 headings."""

from __future__ import annotations

from html.parser import HTMLParser

from knowledge_base.detect import decode_text
from knowledge_base.document import DocumentFormat, ParsedDocument, Section
from knowledge_base.parsers.base import build, clean

_SKIP = {"script", "style", "noscript", "template", "svg", "head"}
_BLOCK = {
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "tr",
    "table",
    "section",
    "article",
    "header",
    "footer",
    "blockquote",
    "pre",
    "h4",
    "h5",
    "h6",
    "dt",
    "dd",
    "hr",
    "main",
    "nav",
    "aside",
    "figure",
}
_SECTION_HEADINGS = {"h1", "h2", "h3"}


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[Section] = []
        self.title: str | None = None
        self.author: str | None = None
        self._skip_depth = 0
        self._in_title = False
        self._heading_tag: str | None = None
        self._heading_text: list[str] = []
        self._heading: str | None = None
        self._buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag == "meta":
            values = dict(attrs)
            if (values.get("name") or "").lower() == "author" and values.get("content"):
                self.author = values["content"]
        if tag in _SKIP:
            self._skip_depth += 1
        elif tag in _SECTION_HEADINGS:
            self._flush()
            self._heading_tag, self._heading_text = tag, []
        elif tag in _BLOCK or tag in ("td", "th"):
            self._buffer.append(" | " if tag in ("td", "th") else "\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _SKIP:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag == self._heading_tag:
            self._heading = " ".join("".join(self._heading_text).split()) or None
            self._buffer.append(f"{self._heading or ''}\n")
            self._heading_tag = None
        elif tag in _BLOCK:
            self._buffer.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title = ((self.title or "") + data).strip() or None
            return
        if self._skip_depth:
            return
        if self._heading_tag:
            self._heading_text.append(data)
            return
        self._buffer.append(data)

    def close(self) -> None:
        super().close()
        self._flush()

    def _flush(self) -> None:
        lines = [line.strip(" |") for line in "".join(self._buffer).split("\n")]
        text = clean("\n".join(lines))
        if text:
            self.sections.append(Section(text=text, heading=self._heading))
        self._buffer = []


def parse(data: bytes, filename: str) -> ParsedDocument:
    extractor = _TextExtractor()
    extractor.feed(decode_text(data))
    extractor.close()
    return build(
        DocumentFormat.HTML,
        filename,
        extractor.sections,
        {"title": extractor.title, "author": extractor.author},
    )
