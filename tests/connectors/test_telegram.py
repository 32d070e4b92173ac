"""Telegram connector through the real python-telegram-bot Bot against a fake Bot API on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from app.core.errors import ConnectorAuthFailed, ConnectorRateLimited, ConnectorUnavailable
from connectors.base import ConnectorConfig
from connectors.telegram import TelegramConnector
from tests.connectors.fake_telegram import GROUP, FakeTelegram


@pytest.fixture
def telegram():
    fake = FakeTelegram()
    with fake.server:
        yield fake


def make(fake: FakeTelegram, retry, token: str | None = None, **options) -> TelegramConnector:
    opts = {"base_url": fake.base_url, **options}
    return TelegramConnector(ConnectorConfig("telegram", "telegram", token or fake.token, opts, retry))


def drain(connector, cursor=None, limit=None):
    batches = list(connector.fetch(cursor, limit=limit))
    return batches, [m for b in batches for m in b.messages]


def test_validate_names_the_bot(telegram, retry):
    assert make(telegram, retry).validate().account == "@strata_bot"


def test_updates_become_messages_with_export_compatible_ids_and_pagination(telegram, retry):
    for i in range(1, 251):
        telegram.add_message(i, f"hello {i}")
    telegram.add_message(
        251,
        "",
        caption="look",
        photo=[{"file_id": "a", "file_unique_id": "b", "width": 1, "height": 1, "file_size": 900}],
    )
    telegram.add_message(252, "just us", chat=42)
    telegram.add_message(5, "hello 5 (edited)", edited=True)

    batches, messages = drain(make(telegram, retry))

    assert len(batches) == 3  # pages of 100
    first = messages[0]
    assert first.message_id == f"telegram:{GROUP}:1"
    assert (first.platform, first.channel, first.person, first.timestamp) == (
        "telegram",
        "Book club",
        "Dana Lee",
        1700000001000,
    )
    assert first.metadata["username"] == "dana"
    photo = next(m for m in messages if m.attachments)
    assert photo.content == "look" and photo.attachments[0].size_bytes == 900
    assert next(m for m in messages if m.content == "just us").channel == "dm:Dana"
    edit = messages[-1]
    assert edit.message_id == f"telegram:{GROUP}:5" and edit.metadata["edited"] is True
    assert json.loads(batches[-1].cursor) == {"offset": 1000 + 253}


def test_cursor_resumes_and_confirms_only_what_was_passed(telegram, retry):
    for i in range(1, 4):
        telegram.add_message(i, f"m{i}")
    batches, _ = drain(make(telegram, retry), limit=2)
    assert [m.content for b in batches for m in b.messages] == ["m1", "m2"]
    # The stored cursor is the proof of storage: nothing was confirmed beyond it.
    _, rest = drain(make(telegram, retry), batches[-1].cursor)
    assert [m.content for m in rest] == ["m3"]


def test_flood_control_honours_retry_after(telegram, retry, sleeps):
    telegram.add_message(1, "m1")
    body = {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests",
        "parameters": {"retry_after": 3},
    }
    telegram.server.fail("getUpdates", 429, body)
    _, messages = drain(make(telegram, retry))
    assert [m.content for m in messages] == ["m1"] and 3 <= sleeps.waits[0] < 4


def test_persistent_flood_control_raises_with_retry_after(telegram, retry):
    body = {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests",
        "parameters": {"retry_after": 900},
    }
    telegram.server.fail("getUpdates", 429, body, times=10)
    with pytest.raises(ConnectorRateLimited) as info:
        drain(make(telegram, retry))
    assert info.value.retry_after == 900


def test_bad_gateway_is_retried_then_unavailable(telegram, retry, sleeps):
    telegram.server.fail(
        "getMe", 502, {"ok": False, "error_code": 502, "description": "Bad Gateway"}, times=10
    )
    with pytest.raises(ConnectorUnavailable):
        make(telegram, retry).validate()
    assert len(sleeps.waits) == 3


def test_revoked_token_is_auth_failed(telegram, retry, sleeps):
    with pytest.raises(ConnectorAuthFailed) as info:
        make(telegram, retry, token="999:revoked").validate()
    assert sleeps.waits == [] and "999:revoked" not in str(info.value)
