"""The JSONL message format (one message per line) shared by the CLI, REST and MCP ingest paths."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from app.core.clock import datetime_to_ms
from app.core.domain import DEFAULT_USER_ID, Attachment, IngestError, RawMessage
from app.core.errors import InvalidInput
from app.core.sanitize import repair_text

REQUIRED_FIELDS = ("platform", "message_id", "timestamp", "content")
# Camel-case spellings accepted for the snake-case fields (attachments already use `contentType`
# and `sizeBytes`, so files written by JavaScript tools use `messageId` throughout).
ALIASES = {
    "message_id": "messageId",
    "bot_id": "botId",
    "user_id": "userId",
    "importance_score": "importanceScore",
}


def _field_name(name: str) -> str:
    """How an error names a field: both spellings where a camel-case one is accepted."""
    alias = ALIASES.get(name)
    return f"{name} (or {alias})" if alias else name


def with_aliases(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """`data` with camel-case fields under their snake-case names; both spellings with different
    values are refused (which one was meant is unknown)."""
    found = {snake: camel for snake, camel in ALIASES.items() if camel in data}
    if not found:
        return data  # nearly every line: nothing to copy
    merged = dict(data)
    for snake, camel in found.items():
        value = merged.pop(camel)
        if (
            snake in merged
            and merged[snake] not in (None, "")
            and value not in (None, "")
            and merged[snake] != value
        ):
            raise InvalidInput(
                f"'{snake}' and '{camel}' are both given, with different values",
                hint=f"keep one of them ({snake} is the documented name)",
            )
        if merged.get(snake) in (None, ""):
            merged[snake] = value
    return merged


def parse_timestamp(value: Any) -> int:
    """ISO-8601 text or Unix milliseconds (number or digit string) → Unix ms."""
    if isinstance(value, bool) or value is None:
        raise InvalidInput(f"invalid timestamp {value!r}", hint="use ISO-8601 or Unix milliseconds")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not value == value or value in (float("inf"), float("-inf")):
            raise InvalidInput(f"invalid timestamp {value!r}")
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        # The length bound keeps int() from refusing (or slowly parsing) thousands of digits.
        if text.lstrip("-").isdigit() and len(text.lstrip("-")) <= 18:
            return int(text)
        try:
            return datetime_to_ms(datetime.fromisoformat(text.replace("Z", "+00:00")))
        except ValueError:
            pass
    raise InvalidInput(
        f"invalid timestamp {value!r}", hint="use ISO-8601 (2024-05-01T09:30:00Z) or Unix milliseconds"
    )


def message_from_mapping(data: Mapping[str, Any], *, default_user: str = DEFAULT_USER_ID) -> RawMessage:
    """Build a RawMessage from the JSONL field names; InvalidInput names what is missing or wrong."""
    if not isinstance(data, Mapping):
        raise InvalidInput(f"expected a JSON object, got {type(data).__name__}")
    data = with_aliases(data)
    missing = [f for f in REQUIRED_FIELDS if data.get(f) in (None, "")]
    if missing:
        raise InvalidInput(f"missing required field(s): {', '.join(_field_name(f) for f in missing)}")
    content = data["content"]
    if not isinstance(content, str):
        raise InvalidInput(f"'content' must be a string, got {type(content).__name__}")
    attachments_raw = data.get("attachments") or []
    if not isinstance(attachments_raw, list):
        raise InvalidInput("'attachments' must be a list of {name, url, contentType, sizeBytes}")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise InvalidInput("'metadata' must be a JSON object")
    importance = data.get("importance_score")
    if isinstance(importance, bool) or not isinstance(importance, int | float):
        importance = None
    return RawMessage(
        platform=_scalar(data, "platform"),
        message_id=_scalar(data, "message_id"),
        channel=_scalar(data, "channel"),
        person=_scalar(data, "person"),
        bot_id=_scalar(data, "bot_id") or None,
        timestamp=parse_timestamp(data["timestamp"]),
        content=content,
        attachments=tuple(_attachment(a, n) for n, a in enumerate(attachments_raw, start=1)),
        metadata=dict(metadata),
        user_id=_scalar(data, "user_id") or default_user,
        # Clamped rather than float()-ed blindly: a 400-digit integer would overflow.
        importance_score=float(min(max(importance, -1e9), 1e9)) if importance is not None else None,
    )


def _scalar(data: Mapping[str, Any], name: str) -> str:
    """A text field: strings and numbers are accepted as text; objects and lists are refused."""
    value = data.get(name)
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InvalidInput(f"'{name}' must be text, got {type(value).__name__}")
    return str(value)


def _attachment(value: Any, position: int) -> Attachment:
    if isinstance(value, str):
        return Attachment(name=value)
    if not isinstance(value, dict):
        raise InvalidInput(f"attachment {position} must be an object {{name, url, contentType, sizeBytes}}")
    size = value.get("sizeBytes", value.get("size_bytes"))
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
        raise InvalidInput(f"attachment {position}: 'sizeBytes' must be a whole number, got {size!r}")
    for key in ("name", "url", "contentType", "content_type"):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise InvalidInput(f"attachment {position}: '{key}' must be text")
    return Attachment.from_dict(value)


def parse_jsonl(
    lines: Iterable[bytes | str], *, default_user: str = DEFAULT_USER_ID
) -> Iterator[RawMessage | IngestError]:
    """Yield a RawMessage per good line and an IngestError (with its 1-based line number) per bad one."""
    for number, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        except UnicodeDecodeError as exc:
            yield IngestError(
                line=number, reason=f"invalid UTF-8 at byte {exc.start}: re-save the file as UTF-8"
            )
            continue
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            yield IngestError(line=number, reason=f"malformed JSON: {exc.msg} (column {exc.colno})")
            continue
        except RecursionError:
            # Python's parser recurses per nesting level; thousands of levels exhaust the stack.
            yield IngestError(line=number, reason="JSON nested too deeply to read: flatten the object")
            continue
        try:
            yield dataclasses.replace(message_from_mapping(data, default_user=default_user), line=number)
        except InvalidInput as exc:
            message_id = (data.get("message_id") or data.get("messageId")) if isinstance(data, dict) else None
            yield IngestError(
                line=number, reason=str(exc), message_id=repair_text(str(message_id)) if message_id else None
            )
