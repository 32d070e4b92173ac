"""Clean incoming text: strip HTML markup and control characters, keep the words."""

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


def sanitize_text(text: str) -> str:
    """HTML-free, control-free, NFC-normalized text with trailing space trimmed."""
    text = unicodedata.normalize("NFC", text)
    return strip_control(strip_html(text)).strip()
