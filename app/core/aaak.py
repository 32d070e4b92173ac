"""AAAK encoding: the text a memory record is embedded as, and its versioned FNV-64a hash.

Format (one field per line, per the specification):
    Text: <content, whitespace collapsed, at most 8,000 chars cut at a smart boundary>
    Time: <unix ms>
    Tier: <short | mid | long>
    Media: <attachment refs joined by ", " or "none">
    Dimensions: platform: <v>; channel: <v>; person: <v>; botId: <v>
    Metadata: <key: value pairs flattened two levels deep, sorted, no "__" keys>
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.domain import Attachment

MAX_TEXT_CHARS = 8000
SMART_BOUNDARY_FRACTION = 0.75
HASH_VERSION_PREFIX = "memory-record-embedding-text-v1:"
_BOUNDARIES = ("\n", ". ", "; ", " ")
_WHITESPACE = re.compile(r"\s+")

FNV64_OFFSET = 0xCBF29CE484222325
FNV64_PRIME = 0x100000001B3
_MASK64 = (1 << 64) - 1


def fnv1a_64(data: bytes) -> int:
    """64-bit FNV-1a of raw bytes."""
    h = FNV64_OFFSET
    for byte in data:
        h ^= byte
        h = (h * FNV64_PRIME) & _MASK64
    return h


def content_hash(document: str) -> str:
    """Versioned FNV-64a of an AAAK document, as 16 hex digits; changes when the encoding does."""
    return f"{fnv1a_64((HASH_VERSION_PREFIX + document).encode('utf-8')):016x}"


def normalize_whitespace(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def smart_truncate(text: str, max_chars: int = MAX_TEXT_CHARS) -> str:
    """Cut at the last newline / sentence / clause / word boundary in the final quarter, else hard."""
    if len(text) <= max_chars:
        return text
    window = text[:max_chars]
    floor = int(max_chars * SMART_BOUNDARY_FRACTION)
    for boundary in _BOUNDARIES:
        pos = window.rfind(boundary)
        if pos >= floor:
            # Keep the sentence/clause punctuation, drop the separating whitespace.
            keep = pos + (1 if boundary in (". ", "; ") else 0)
            return window[:keep].rstrip()
    return window


def flatten_metadata(metadata: Mapping[str, Any], max_depth: int = 2) -> list[tuple[str, str]]:
    """Sorted `key` / `parent.child` pairs at most `max_depth` levels deep, skipping `__` keys."""
    pairs: list[tuple[str, str]] = []

    def walk(prefix: str, value: Any, depth: int) -> None:
        if isinstance(value, Mapping) and depth < max_depth:
            for key in sorted(value, key=str):
                if str(key).startswith("__"):
                    continue
                walk(f"{prefix}.{key}" if prefix else str(key), value[key], depth + 1)
            return
        pairs.append((prefix, _scalar(value)))

    walk("", metadata, 0)
    return [(k, v) for k, v in pairs if k]


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return normalize_whitespace(value)
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True, slots=True)
class EncodedRecord:
    """An AAAK document, its hash, and the normalized text used for keyword search."""

    document: str
    content_hash: str
    text: str


def encode_record(
    *,
    content: str,
    timestamp: int,
    tier: str,
    platform: str | None = None,
    channel: str | None = None,
    person: str | None = None,
    bot_id: str | None = None,
    attachments: Sequence[Attachment] = (),
    metadata: Mapping[str, Any] | None = None,
) -> EncodedRecord:
    """Build the embedding document for one memory record (spec: buildMemoryRecordEmbeddingDocument)."""
    text = smart_truncate(normalize_whitespace(content))
    media = ", ".join(a.url or a.name for a in attachments) or "none"
    dims = [
        f"{name}: {normalize_whitespace(value)}"
        for name, value in (
            ("platform", platform),
            ("channel", channel),
            ("person", person),
            ("botId", bot_id),
        )
        if value
    ]
    meta = "; ".join(f"{k}: {v}" for k, v in flatten_metadata(metadata or {}))
    document = "\n".join(
        (
            f"Text: {text}",
            f"Time: {timestamp}",
            f"Tier: {tier}",
            f"Media: {media}",
            f"Dimensions: {'; '.join(dims)}",
            f"Metadata: {meta}",
        )
    )
    return EncodedRecord(document=document, content_hash=content_hash(document), text=text)
