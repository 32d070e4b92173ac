"""A document's cost bound: extracted characters and chunks per document, checked as early as possible.

Every chunk costs an embedding (~10 chunks/s on 2 cores), so a 100 MB text file would be ~180k
chunks and hours of CPU in one request. Plain text is counted before parsing, streaming over the
bytes in slices so the count never holds a second copy of a large file; other formats are checked
on their extracted text, and the chunker stops as soon as the chunk limit is passed.
"""

from __future__ import annotations

import codecs
import threading

from app.core.errors import Cancelled, PayloadTooLarge
from knowledge_base.document import DocumentFormat

_SLICE = 1 << 20  # bytes decoded at a time while counting
# Formats whose raw characters are (nearly) all text: counting them before parsing is exact enough.
_PLAIN = {DocumentFormat.TXT, DocumentFormat.MD, DocumentFormat.CSV}
# HTML is mostly markup; refuse before parsing only when even a generous share of text is too much.
HTML_MARKUP_FACTOR = 4


def count_chars(data: bytes) -> int:
    """Characters the bytes decode to, decoded slice by slice (UTF-16 by BOM, else UTF-8 with
    replacement, which counts an undecodable byte as one character, as Windows-1252 would)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
    else:
        decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
    view = memoryview(data)
    total = 0
    for start in range(0, len(data), _SLICE):
        total += len(decoder.decode(view[start : start + _SLICE]))
    return total + len(decoder.decode(b"", final=True))


def check_before_parse(data: bytes, fmt: DocumentFormat, filename: str, max_chars: int) -> None:
    """Refuse a text file over the character limit without parsing it (and without decoding it whole)."""
    if fmt in _PLAIN:
        limit = max_chars
    elif fmt is DocumentFormat.HTML:
        limit = max_chars * HTML_MARKUP_FACTOR
    else:
        return
    # Every encoding we decode spends at least one byte per character (UTF-16 two).
    if len(data) <= limit:
        return
    chars = count_chars(data)
    if chars <= limit:
        return
    if fmt is DocumentFormat.HTML:
        raise PayloadTooLarge(
            f"{filename}: this HTML file has {chars:,} characters with its markup; the limit for HTML "
            f"is {limit:,} ({HTML_MARKUP_FACTOR} × the {max_chars:,}-character text limit)",
            hint="split it into smaller files, or raise kb.max_extracted_chars in settings.toml",
        )
    raise too_many_chars(filename, chars, max_chars)


def check_chars(chars: int, filename: str, max_chars: int) -> None:
    if chars > max_chars:
        raise too_many_chars(filename, chars, max_chars)


def too_many_chars(filename: str, chars: int, max_chars: int) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"{filename}: this document has {chars:,} characters; the limit is {max_chars:,}",
        hint="split it into smaller files, or raise kb.max_extracted_chars in settings.toml",
    )


def too_many_chunks(filename: str, max_chunks: int) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"{filename}: this document splits into more than {max_chunks:,} chunks, the limit",
        hint="split it into smaller files, or raise kb.max_chunks in settings.toml",
    )


def check_cancel(cancel: threading.Event | None, filename: str) -> None:
    """Raise Cancelled when the caller asked to stop (checked between stages and embedding batches)."""
    if cancel is not None and cancel.is_set():
        raise Cancelled(f"{filename}: adding was cancelled; nothing was stored")
