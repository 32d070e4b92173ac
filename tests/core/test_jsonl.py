"""The JSONL message format: fields, timestamps, line-numbered errors."""

import json

import pytest

from app.core.domain import IngestError, RawMessage
from app.core.errors import InvalidInput
from app.core.jsonl import message_from_mapping, parse_jsonl, parse_timestamp


def test_timestamp_forms() -> None:
    assert parse_timestamp("2024-05-01T09:30:00Z") == 1714555800000
    assert parse_timestamp("2024-05-01T11:30:00+02:00") == 1714555800000
    assert parse_timestamp(1714555800000) == 1714555800000
    assert parse_timestamp("1714555800000") == 1714555800000
    for bad in ("yesterday-ish", None, True, [1]):
        with pytest.raises(InvalidInput):
            parse_timestamp(bad)


def test_lines_become_messages_or_numbered_errors() -> None:
    good = {
        "platform": "slack",
        "message_id": "1",
        "channel": "c",
        "person": "p",
        "bot_id": "B",
        "timestamp": "2024-05-01T09:30:00Z",
        "content": "hi",
        "attachments": [{"name": "a.pdf"}],
        "metadata": {"k": "v"},
        "user_id": "u2",
    }
    lines = [
        json.dumps(good).encode(),
        b"{not json",
        b"",
        json.dumps({"platform": "slack", "content": "x"}).encode(),
        b'{"platform": "s", "message_id": "2", "timestamp": 1714555800000, "content": "\xff\xfe"}',
        json.dumps([1, 2]).encode(),
        json.dumps({**good, "timestamp": "31/12/2024"}).encode(),
    ]
    out = list(parse_jsonl(lines))
    assert isinstance(out[0], RawMessage)
    assert out[0].bot_id == "B" and out[0].user_id == "u2" and out[0].attachments[0].name == "a.pdf"
    errors = [o for o in out if isinstance(o, IngestError)]
    assert [e.line for e in errors] == [2, 4, 5, 6, 7]
    assert "malformed JSON" in errors[0].reason
    assert "message_id" in errors[1].reason and "timestamp" in errors[1].reason
    assert "UTF-8" in errors[2].reason
    assert "JSON object" in errors[3].reason
    assert "timestamp" in errors[4].reason


def test_camel_case_spellings_are_accepted_too() -> None:
    """Attachments use `contentType`, so files written by JavaScript tools say `messageId` too."""
    line = {
        "platform": "slack",
        "messageId": "7",
        "botId": "B",
        "userId": "u3",
        "importanceScore": 0.5,
        "timestamp": 1714555800000,
        "content": "hi",
        "attachments": [{"name": "a.pdf", "contentType": "application/pdf"}],
    }
    message = message_from_mapping(line)
    assert (message.message_id, message.bot_id, message.user_id) == ("7", "B", "u3")
    assert message.importance_score == 0.5
    # Both spellings with the same value are fine; with different values, which was meant is unknown.
    assert message_from_mapping({**line, "message_id": "7"}).message_id == "7"
    with pytest.raises(InvalidInput, match="'message_id' and 'messageId'"):
        message_from_mapping({**line, "message_id": "8"})


def test_a_missing_id_names_both_spellings() -> None:
    out = list(parse_jsonl([json.dumps({"platform": "s", "timestamp": 1, "content": "x"})]))
    assert isinstance(out[0], IngestError)
    assert "message_id (or messageId)" in out[0].reason
