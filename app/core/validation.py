"""Check and clean one incoming RawMessage; say exactly what is wrong when it cannot be stored."""

from __future__ import annotations

import dataclasses

from app.core.domain import RawMessage
from app.core.errors import InvalidInput, PayloadTooLarge
from app.core.sanitize import sanitize_text

# Unix ms bounds: before 1990 or after 2200 is almost surely seconds-vs-ms confusion or garbage.
MIN_TIMESTAMP_MS = 631_152_000_000
MAX_TIMESTAMP_MS = 7_258_118_400_000


def clean_message(message: RawMessage, *, max_bytes: int) -> RawMessage:
    """The sanitized message, or InvalidInput naming the field and the fix."""
    if not message.platform or not message.platform.strip():
        raise InvalidInput("missing required field 'platform'", hint="e.g. slack, discord, telegram, note")
    if not message.message_id or not str(message.message_id).strip():
        raise InvalidInput("missing required field 'message_id'", hint="a platform-unique id for the message")
    if not isinstance(message.timestamp, int) or isinstance(message.timestamp, bool):
        raise InvalidInput(f"timestamp {message.timestamp!r} is not an integer of Unix milliseconds")
    if not MIN_TIMESTAMP_MS <= message.timestamp <= MAX_TIMESTAMP_MS:
        raise InvalidInput(
            f"timestamp {message.timestamp} is outside 1990..2200 in Unix milliseconds",
            hint="send milliseconds (seconds × 1000) or an ISO-8601 date",
        )
    size = len(message.content.encode("utf-8", errors="surrogatepass"))
    if size > max_bytes:
        raise PayloadTooLarge(
            f"content is {size / 1_048_576:.1f} MB, "
            f"over the {max_bytes / 1_048_576:.0f} MB per-message limit",
            hint="split the message or raise max_message_bytes in settings",
        )
    content = sanitize_text(message.content)
    if not content and not message.attachments:
        raise InvalidInput("content is empty (after removing markup and control characters)")
    if not content:
        content = "[attachment] " + ", ".join(a.name for a in message.attachments)
    return dataclasses.replace(
        message,
        platform=message.platform.strip().lower(),
        message_id=str(message.message_id).strip(),
        channel=(message.channel or "").strip(),
        person=(message.person or "").strip(),
        content=content,
    )
