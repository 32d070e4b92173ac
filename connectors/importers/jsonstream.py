"""A streaming walk over one large JSON file: descend into the containers you name, decode the rest whole.

Telegram and DiscordChatExporter write one JSON document with every message inside, often
hundreds of megabytes. `json.load` would hold all of it (several times its size as Python
objects); this walker keeps a bounded text window, steps through the outer objects/arrays
by hand and decodes each leaf value (one message) with the C decoder, so memory stays at
about one message plus the window, and errors can name the line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from app.core.errors import InvalidInput
from connectors.importers.base import malformed

_WS = re.compile(r"[ \t\n\r]*")
_CHUNK = 1 << 18
# A single value larger than this is not a chat message; stop instead of reading the whole file.
_MAX_VALUE_CHARS = 64 << 20


class JsonStream:
    """Cursor over a JSON text; `members()` / `items()` descend, `value()` decodes one value."""

    def __init__(self, fp: TextIO, source: str) -> None:
        self._fp = fp
        self.source = source
        self._buf = ""
        self._pos = 0
        self._lines_before = 0
        self._eof = False
        self._decoder = json.JSONDecoder()
        self._last_start = 0

    @classmethod
    def open(cls, path: Path) -> tuple[JsonStream, TextIO]:
        fp = path.open("r", encoding="utf-8-sig", newline="")
        return cls(fp, path.name), fp

    # -- position and errors -------------------------------------------------------------
    def line(self, pos: int | None = None) -> int:
        at = self._pos if pos is None else pos
        return self._lines_before + self._buf.count("\n", 0, at) + 1

    def last_value_line(self) -> int:
        """Line where the value most recently returned by `value()` starts."""
        return self.line(self._last_start)

    def error(self, what: str, *, line: int | None = None, entry: str | None = None) -> InvalidInput:
        where = f"line {line if line is not None else self.line()}"
        if entry:
            where += f" ({entry})"
        return malformed(self.source, where, what)

    # -- buffer --------------------------------------------------------------------------
    def _fill(self) -> bool:
        if self._eof:
            return False
        try:
            chunk = self._fp.read(_CHUNK)
        except UnicodeDecodeError as exc:
            raise self.error(
                f"is not valid UTF-8 ({exc.reason} near byte {exc.start} of the next block)",
                line=self.line(len(self._buf)),
            ) from exc
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def _compact(self) -> None:
        if self._pos > _CHUNK:
            self._lines_before += self._buf.count("\n", 0, self._pos)
            self._buf = self._buf[self._pos :]
            self._pos = 0

    def _skip_ws(self) -> str:
        """Advance past whitespace and return the next character ('' at end of file)."""
        while True:
            self._pos = _WS.match(self._buf, self._pos).end()  # type: ignore[union-attr]
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._fill():
                return ""

    def _expect(self, chars: str, what: str) -> str:
        c = self._skip_ws()
        if not c or c not in chars:
            found = repr(c) if c else "end of file (truncated?)"
            raise self.error(f"expected {what}, found {found}")
        self._pos += 1
        return c

    # -- walking -------------------------------------------------------------------------
    def peek(self) -> str:
        return self._skip_ws()

    def value(self) -> Any:
        """Decode the next complete value and return it."""
        self._compact()
        c = self._skip_ws()
        if not c:
            raise self.error("unexpected end of file (the export looks truncated)")
        while True:
            try:
                obj, end = self._decoder.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                if self._fill() and len(self._buf) - self._pos < _MAX_VALUE_CHARS:
                    continue
                if self._eof:
                    raise self.error(
                        f"invalid or truncated JSON: {exc.msg}", line=self.line(exc.pos)
                    ) from exc
                raise self.error("a single entry is larger than 64 MB; this is not a chat export") from exc
            # A number at the very end of the window may continue in the next chunk.
            if end >= len(self._buf) and self._fill():
                continue
            self._last_start = self._pos
            self._pos = end
            return obj

    def skip(self) -> None:
        self.value()

    def members(self) -> Iterator[str]:
        """Yield the keys of the object starting here; the caller consumes each member's value."""
        self._expect("{", "an object '{'")
        if self._skip_ws() == "}":
            self._pos += 1
            return
        while True:
            if self._skip_ws() != '"':
                raise self.error("expected an object key in double quotes")
            key = self.value()
            self._expect(":", "':' after an object key")
            yield key
            if self._expect(",}", "',' or '}' after a value") == "}":
                return

    def items(self) -> Iterator[int]:
        """Yield the index of each element of the array starting here; the caller consumes it."""
        self._expect("[", "an array '['")
        if self._skip_ws() == "]":
            self._pos += 1
            return
        index = 0
        while True:
            yield index
            index += 1
            if self._expect(",]", "',' or ']' after an array element") == "]":
                return

    def finish(self) -> None:
        """Insist that nothing but whitespace follows the document."""
        if self._skip_ws():
            raise self.error("unexpected text after the end of the JSON document")
