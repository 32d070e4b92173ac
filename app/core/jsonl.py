"""The JSONL message format (one message per line) shared by the CLI, REST and MCP ingest paths."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from app.core.clock import datetime_to_ms
from app.core.domain import DEFAULT_USER_ID, Attachment, IngestError, RawMessage
from app.core.errors import InvalidInput

REQUIRED_FIELDS = ("platform", "message_id", "timestamp", "content")


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
        if text.lstrip("-").isdigit():
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
    missing = [f for f in REQUIRED_FIELDS if data.get(f) in (None, "")]
    if missing:
        raise InvalidInput(f"missing required field(s): {', '.join(missing)}")
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
    return RawMessage(
        platform=str(data["platform"]),
        message_id=str(data["message_id"]),
        channel=str(data.get("channel") or ""),
        person=str(data.get("person") or ""),
        bot_id=str(data["bot_id"]) if data.get("bot_id") not in (None, "") else None,
        timestamp=parse_timestamp(data["timestamp"]),
        content=content,
        attachments=tuple(
            Attachment.from_dict(a) if isinstance(a, dict) else Attachment(name=str(a))
            for a in attachments_raw
        ),
        metadata=dict(metadata),
        user_id=str(data.get("user_id") or default_user),
        importance_score=float(importance) if isinstance(importance, int | float) else None,
    )


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
        try:
            yield message_from_mapping(data, default_user=default_user)
        except InvalidInput as exc:
            message_id = data.get("message_id") if isinstance(data, dict) else None
            yield IngestError(
                line=number, reason=str(exc), message_id=str(message_id) if message_id else None
            )
