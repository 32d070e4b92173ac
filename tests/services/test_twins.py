"""Telegram private chats and basic groups: live sync and export import of the same chat merge.

The bot (fake Bot API through python-telegram-bot) and the exporting account number these
messages differently, so ids differ; the twin key (chat, second, sender, text) merges them,
whichever of the two runs first.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.services.connector_service import ConnectorService
from connectors.secrets import FileSecretStore
from tests.connectors.fake_telegram import FakeTelegram

DANA = 42  # the exporting user; the fake bot is user 777
T0 = 1700000000


@pytest.fixture
def telegram():
    fake = FakeTelegram()
    with fake.server:
        yield fake


@pytest.fixture
def connectors(services, clock, retry) -> ConnectorService:
    secrets = FileSecretStore(services.layout.secrets_file)
    service = ConnectorService(
        services.db, services.memory, secrets, clock, user_id=services.settings.user_id, retry=retry
    )
    return service


def live_chats(telegram: FakeTelegram) -> None:
    # What the bot receives (its own numbering): Dana in the private chat and in a basic group.
    telegram.add_message(5, "can you remind me about the dentist?", chat=DANA, date=T0 + 10)
    telegram.add_message(6, "and the car insurance", chat=DANA, date=T0 + 20)
    telegram.add_message(7, "dinner at 7 on sunday", chat=-555, basic_group="Family", date=T0 + 30)


def export(tmp_path: Path) -> Path:
    """Dana's Telegram Desktop export of the same chats: other message ids, bare chat ids."""

    def msg(mid: int, at: int, sender: int, name: str, text: object) -> dict[str, object]:
        return {"id": mid, "type": "message", "date_unixtime": str(at), "from": name,
                "from_id": f"user{sender}", "text": text}  # fmt: skip

    chats = [
        {
            "name": "Strata",
            "type": "bot_chat",
            "id": 777,
            "messages": [
                msg(901, T0 + 10, DANA, "Dana Lee", "can you remind me about the dentist?"),
                msg(902, T0 + 15, 777, "Strata", "Sure, when is it?"),  # the bot's own: never live
                msg(903, T0 + 20, DANA, "Dana Lee", "and the car insurance"),
            ],
        },
        {
            "name": "Family",
            "type": "private_group",
            "id": 555,
            "messages": [
                msg(4100, T0 + 30, DANA, "Dana Lee", ["dinner at 7 on ", {"type": "bold", "text": "sunday"}]),
                msg(4101, T0 + 40, 43, "Sam", "I'll bring dessert"),
            ],
        },
    ]
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"chats": {"list": chats}}))
    return path


def count(services) -> int:
    return services.memory.stats()["messages"]


def test_live_sync_then_import_does_not_duplicate(connectors, telegram, services, tmp_path):
    connectors.add("telegram", telegram.token, options={"base_url": telegram.base_url})
    live_chats(telegram)
    assert connectors.sync("telegram").imported == 3

    report = services.imports.run("telegram", export(tmp_path))
    assert report.result is not None
    assert (report.result.imported, report.result.duplicates) == (2, 3)  # the bot's reply and Sam's
    assert count(services) == 5
    again = services.imports.run("telegram", export(tmp_path))
    assert again.result is not None and (again.result.imported, again.result.updated) == (0, 0)
    assert count(services) == 5


def test_import_then_live_sync_does_not_duplicate(connectors, telegram, services, tmp_path):
    report = services.imports.run("telegram", export(tmp_path))
    assert report.result is not None and report.result.imported == 5
    connectors.add("telegram", telegram.token, options={"base_url": telegram.base_url})
    live_chats(telegram)
    telegram.add_message(8, "a new message after the export", chat=DANA, date=T0 + 100)
    sync = connectors.sync("telegram")
    assert (sync.imported, sync.duplicates) == (1, 3)
    assert count(services) == 6


def test_supergroups_keep_plain_id_matching(connectors, telegram, services, tmp_path):
    # Supergroups share ids between bot and export: no twin key, nothing to merge.
    connectors.add("telegram", telegram.token, options={"base_url": telegram.base_url})
    telegram.add_message(1, "hello supergroup")
    connectors.sync("telegram")
    (stored,) = services.memory.find("telegram", ["telegram:-1001234567890:1"])
    assert "twin_key" not in stored.metadata
