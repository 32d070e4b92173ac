"""Check and clean one incoming RawMessage; say exactly what is wrong when it cannot be stored.

Every ingest path (REST, MCP, JSONL, export importers, live sync) reaches storage through the
processor, which calls `clean_message` on each item before any write. So one rule decides what
is stored: text is repaired (lone surrogates become U+FFFD), control characters are removed,
sizes and nesting are bounded, and whatever cannot be stored raises InvalidInput with a reason.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from app.core.domain import Attachment, RawMessage
from app.core.errors import InvalidInput, PayloadTooLarge
from app.core.sanitize import clean_field, repair_text, sanitize_text

# Unix ms bounds: before 1990 or after 2200 is almost surely seconds-vs-ms confusion or garbage.
MIN_TIMESTAMP_MS = 631_152_000_000
MAX_TIMESTAMP_MS = 7_258_118_400_000
# Limits on the parts around the text; generous for real exports, small enough that one
# item can never exhaust the stack (deep nesting) or bloat every row read (huge metadata).
MAX_FIELD_CHARS = 1_000
MAX_PLATFORM_CHARS = 64
MAX_METADATA_DEPTH = 32
MAX_METADATA_NODES = 10_000
MAX_ATTACHMENTS = 1_000


def clean_message(message: RawMessage, *, max_bytes: int) -> RawMessage:
    """The sanitized message, or InvalidInput naming the field and the fix."""
    platform = clean_field(_text(message.platform, "platform")).lower()
    if not platform:
        raise InvalidInput("missing required field 'platform'", hint="e.g. slack, discord, telegram, note")
    message_id = repair_text(_text(message.message_id, "message_id")).strip()
    if not message_id:
        raise InvalidInput("missing required field 'message_id'", hint="a platform-unique id for the message")
    if not isinstance(message.timestamp, int) or isinstance(message.timestamp, bool):
        raise InvalidInput(f"timestamp {message.timestamp!r} is not an integer of Unix milliseconds")
    if not MIN_TIMESTAMP_MS <= message.timestamp <= MAX_TIMESTAMP_MS:
        raise InvalidInput(
            f"timestamp {message.timestamp} is outside 1990..2200 in Unix milliseconds",
            hint="send milliseconds (seconds × 1000) or an ISO-8601 date",
        )
    if not isinstance(message.content, str):
        raise InvalidInput(f"'content' must be text, got {type(message.content).__name__}")
    size = len(message.content.encode("utf-8", errors="surrogatepass"))
    if size > max_bytes:
        raise PayloadTooLarge(
            f"content is {size / 1_048_576:.1f} MB, "
            f"over the {max_bytes / 1_048_576:.0f} MB per-message limit",
            hint="split the message or raise max_message_bytes in settings",
        )
    fields = {
        "platform": platform,
        "message_id": message_id,
        "channel": clean_field(_text(message.channel or "", "channel")),
        "person": clean_field(_text(message.person or "", "person")),
        "user_id": clean_field(_text(message.user_id, "user_id")),
    }
    for name, value in fields.items():
        limit = MAX_PLATFORM_CHARS if name == "platform" else MAX_FIELD_CHARS
        if len(value) > limit:
            raise InvalidInput(f"'{name}' is {len(value)} characters long, over the limit of {limit}")
    if not fields["user_id"]:
        raise InvalidInput("missing user id", hint="set user_id in settings or leave it out of the item")
    bot_id = clean_field(_text(message.bot_id, "bot_id")) or None if message.bot_id is not None else None
    attachments = clean_attachments(message.attachments)
    metadata = clean_metadata(message.metadata)
    content = sanitize_text(message.content)
    if not content and not attachments:
        raise InvalidInput("content is empty (after removing markup and control characters)")
    if not content:
        content = "[attachment] " + ", ".join(a.name for a in attachments)
    importance = message.importance_score
    if importance is not None and not (isinstance(importance, int | float) and math.isfinite(importance)):
        importance = None  # an unusable hint is dropped, not fatal: the engine infers importance
    return dataclasses.replace(
        message,
        **fields,
        bot_id=bot_id,
        content=content,
        attachments=attachments,
        metadata=metadata,
        importance_score=importance,
    )


def clean_attachments(attachments: tuple[Attachment, ...] | list[Attachment]) -> tuple[Attachment, ...]:
    if len(attachments) > MAX_ATTACHMENTS:
        raise InvalidInput(f"{len(attachments)} attachments, over the limit of {MAX_ATTACHMENTS}")
    cleaned = []
    for a in attachments:
        size = a.size_bytes if isinstance(a.size_bytes, int) and a.size_bytes >= 0 else None
        cleaned.append(
            Attachment(
                name=clean_field(str(a.name))[:MAX_FIELD_CHARS] or "attachment",
                url=repair_text(str(a.url)).strip() or None if a.url is not None else None,
                content_type=clean_field(str(a.content_type)) or None if a.content_type is not None else None,
                size_bytes=size,
            )
        )
    return tuple(cleaned)


def clean_metadata(metadata: Any) -> dict[str, Any]:
    """JSON-safe metadata: text repaired, keys as strings, non-finite numbers as null, bounded.

    Walks with an explicit depth bound, so a 3,000-deep object is refused with a reason
    instead of raising RecursionError somewhere in storage or encoding.
    """
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise InvalidInput(f"'metadata' must be a JSON object, got {type(metadata).__name__}")
    budget = [MAX_METADATA_NODES]
    cleaned = _clean_value(metadata, 1, budget)
    assert isinstance(cleaned, dict)
    return cleaned


def _clean_value(value: Any, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise InvalidInput(
            f"'metadata' holds more than {MAX_METADATA_NODES} values",
            hint="keep metadata to a few fields; put long data in the content or an attachment",
        )
    if isinstance(value, dict | list | tuple) and depth > MAX_METADATA_DEPTH:
        raise InvalidInput(
            f"'metadata' is nested more than {MAX_METADATA_DEPTH} levels deep",
            hint="flatten the metadata object",
        )
    if isinstance(value, dict):
        return {repair_text(str(k)): _clean_value(v, depth + 1, budget) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean_value(v, depth + 1, budget) for v in value]
    if isinstance(value, str):
        return repair_text(value)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None  # NaN/Infinity are not JSON
    return repair_text(str(value))  # dates, ids and other objects keep their text form


def _text(value: Any, name: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise InvalidInput(f"'{name}' must be text, got {type(value).__name__}")
