"""Clean incoming text: repair unencodable text, strip HTML markup and control characters, keep the words."""

from __future__ import annotations

import html
import re
import unicodedata

_TAG = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>|<[^>]+>", re.IGNORECASE | re.DOTALL)
_LOOKS_LIKE_HTML = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(\s[^<>]*)?/?>")
_BLOCK_TAGS = re.compile(r"<\s*(br|/p|/div|/li|/h[1-6]|/tr)\b[^>]*>", re.IGNORECASE)
# Control characters except tab/newline/carriage return, plus Unicode format chars like BOM.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b\ufeff]")


def strip_html(text: str) -> str:
    """Remove tags only when the text really contains markup, so `a < b > c` survives."""
    if not _LOOKS_LIKE_HTML.search(text):
        return text
    text = _BLOCK_TAGS.sub("\n", text)
    text = _TAG.sub("", text)
    return html.unescape(text)


def strip_control(text: str) -> str:
    return _CONTROL.sub("", text)


def repair_text(text: str) -> str:
    """Text that encodes as UTF-8: surrogate pairs joined, lone surrogates become U+FFFD.

    Lone surrogates reach us from JSON (`"\\ud800"` is legal JSON) and from half-cut emoji; they
    cannot be stored, hashed or sent, so they are replaced here, once, before anything else.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # A UTF-16 round trip pairs up high+low halves that arrived as two code points.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def clean_field(text: str) -> str:
    """A one-line field (platform, id, channel, person): repaired, control-free, trimmed."""
    return strip_control(repair_text(text)).replace("\n", " ").replace("\r", " ").replace("\t", " ").strip()


def sanitize_text(text: str) -> str:
    """HTML-free, control-free, NFC-normalized text with trailing space trimmed."""
    text = unicodedata.normalize("NFC", repair_text(text))
    return strip_control(strip_html(text)).strip()
