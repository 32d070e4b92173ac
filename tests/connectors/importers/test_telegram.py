"""Telegram Desktop export: both layouts, entity text, service messages, Bot API chat ids."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from app.core.errors import InvalidInput
from connectors.importers.base import ImportLog
from connectors.importers.telegram import (
    TelegramExportImporter,
    bot_api_chat_id,
    bot_api_peer_id,
    render_text,
)


def test_single_chat_layout(run, fixtures: Path) -> None:
    messages, log = run(TelegramExportImporter(), fixtures / "telegram_single.json")
    by_id = {m.message_id: m for m in messages}
    # Supergroup bare id 1554871234 becomes the Bot API id -1001554871234.
    assert sorted(by_id) == [f"telegram:-1001554871234:{n}" for n in (1, 2, 3, 4, 5, 7)]
    assert {m.channel for m in messages} == {"Book Club"}
    assert log.skipped == {"empty message": 1}
    assert log.details["layout"] == "single chat"

    created = by_id["telegram:-1001554871234:1"]
    assert created.content == "Anna Petrova created the group «Book Club»"
    assert created.metadata["service"] == "create_group"
    assert created.timestamp == 1677664800_000

    reply = by_id["telegram:-1001554871234:3"]
    assert reply.person == "Boris"
    assert reply.content == (
        "Great pick @anna_p! Review here: this essay (https://example.org/le-guin) — must read"
    )
    assert reply.metadata["reply_to"] == "telegram:-1001554871234:2"
    assert reply.metadata["edited"] is True
    assert reply.metadata["edited_at"] == "2023-03-01T10:08:00"
    assert reply.metadata["person_id"] == 222

    photo = by_id["telegram:-1001554871234:4"]
    assert photo.attachments[0].name == "photo_1@02-03-2023_18-30-00.jpg"
    assert photo.attachments[0].size_bytes == 48213
    assert photo.content.startswith("[photo:")

    deleted_sender = by_id["telegram:-1001554871234:5"]
    assert deleted_sender.person == "Deleted Account"
    assert deleted_sender.attachments[0].content_type == "application/pdf"
    assert "Meeting schedule attached" in deleted_sender.content
    assert by_id["telegram:-1001554871234:7"].content == "Anna Petrova pinned a message"


def test_full_account_layout_normalizes_every_chat_type(run, fixtures: Path) -> None:
    messages, log = run(TelegramExportImporter(), fixtures / "telegram_account.json")
    ids = [m.message_id for m in messages]
    assert ids == [
        "telegram:222:10",
        "telegram:222:11",
        "telegram:-4455:3",
        "telegram:-4455:4",
        "telegram:-1001099887766:501",
        "telegram:-1001300000001:77",  # left_chats are history too
    ]
    sticker = messages[3]
    assert sticker.content == "[sticker: sticker.webp]"
    assert log.skipped == {"chat without messages": 1}
    assert log.details["layout"] == "full account (chats.list)"


@pytest.mark.parametrize(
    ("export_id", "chat_type", "expected"),
    [
        (222, "personal_chat", 222),
        (222, "bot_chat", 222),
        (4455, "private_group", -4455),
        (1554871234, "private_supergroup", -1001554871234),
        (1554871234, "public_supergroup", -1001554871234),
        (1099887766, "private_channel", -1001099887766),
        (1099887766, "public_channel", -1001099887766),
        (-1001554871234, "private_supergroup", -1001554871234),
    ],
)
def test_bot_api_chat_ids(export_id: int, chat_type: str, expected: int) -> None:
    assert bot_api_chat_id(export_id, chat_type) == expected


def test_sender_ids_in_bot_api_form() -> None:
    assert bot_api_peer_id("user222") == 222
    assert bot_api_peer_id("channel1099887766") == -1001099887766
    assert bot_api_peer_id("chat4455") == -4455
    assert bot_api_peer_id("weird") is None


def test_render_text_handles_both_shapes() -> None:
    assert render_text("plain") == "plain"
    assert (
        render_text(["a ", {"type": "bold", "text": "b"}, {"type": "link", "text": "https://x.y"}])
        == "a bhttps://x.y"
    )
    assert render_text(None) == ""


def test_reimport_yields_identical_messages(run, fixtures: Path) -> None:
    first, _ = run(TelegramExportImporter(), fixtures / "telegram_account.json")
    second, _ = run(TelegramExportImporter(), fixtures / "telegram_account.json")
    assert first == second


def test_export_folder_is_accepted(run, fixtures: Path, tmp_path: Path) -> None:
    (tmp_path / "result.json").write_bytes((fixtures / "telegram_single.json").read_bytes())
    messages, _ = run(TelegramExportImporter(), tmp_path)
    assert len(messages) == 6


def test_old_export_without_unixtime_uses_given_zone(run, tmp_path: Path) -> None:
    doc = {
        "name": "X",
        "type": "personal_chat",
        "id": 5,
        "messages": [{"id": 1, "type": "message", "date": "2020-01-01T12:00:00", "from": "X", "text": "hi"}],
    }
    path = tmp_path / "result.json"
    path.write_text(json.dumps(doc))
    (message,), _ = run(TelegramExportImporter(tz=ZoneInfo("Europe/Berlin")), path)
    assert message.timestamp == 1577876400_000  # 11:00 UTC


def test_streams_large_exports_across_buffer_boundaries(run, tmp_path: Path) -> None:
    # 3 MB of messages forces several window refills and compactions.
    msgs = [
        {
            "id": i,
            "type": "message",
            "date_unixtime": str(1600000000 + i),
            "from": "P",
            "text": f"message number {i} " + "x" * 200,
        }
        for i in range(1, 15001)
    ]
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"name": "Big", "type": "personal_chat", "id": 9, "messages": msgs}, indent=1))
    messages, _ = run(TelegramExportImporter(), path)
    assert len(messages) == 15000
    assert messages[-1].message_id == "telegram:9:15000"
    assert messages[12345].content.startswith("message number 12346 ")


# -- malformed input ------------------------------------------------------------------------


def _error(run, path: Path) -> str:
    with pytest.raises(InvalidInput) as info:
        run(TelegramExportImporter(), path)
    return str(info.value)


def test_truncated_file_names_file_and_line(run, fixtures: Path, tmp_path: Path) -> None:
    text = (fixtures / "telegram_single.json").read_text()
    path = tmp_path / "result.json"
    path.write_text(text[: text.index('"id": 4') + 20])
    message = _error(run, path)
    assert "result.json" in message
    assert "line" in message
    assert "truncated" in message


def test_wrong_shape_is_rejected(run, tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"name": "X", "list": []}))
    assert "neither 'messages'" in _error(run, path)
    path.write_text(json.dumps([1, 2, 3]))
    assert "expected a JSON object" in _error(run, path)


def test_unreadable_messages_are_reported_and_skipped(run, tmp_path: Path) -> None:
    good = {"id": 9, "type": "message", "date_unixtime": "1700000000", "from": "A", "text": "fine"}
    bad = [1, {"id": "a"}, {"id": 1}, {"id": 2, "date_unixtime": "1700000000", "text": {"oops": 1}}]
    path = tmp_path / "result.json"
    chat = {"name": "X", "type": "personal_chat", "id": 1, "messages": [*bad, good]}
    path.write_text(json.dumps(chat, indent=1))
    messages, log = run(TelegramExportImporter(), path)
    assert [m.message_id for m in messages] == ["telegram:1:9"]
    reasons = [e.reason for e in log.rejected]
    assert len(reasons) == 4 and log.skipped["unreadable entry"] == 4
    assert reasons[0].startswith("result.json, line 6 (chat 'dm:X', message 1): wrong JSON shape")
    assert "unreadable message (ValueError" in reasons[1]
    assert "missing field 'date'" in reasons[2]
    assert "'text' is dict, expected a string or a list" in reasons[3]
    assert [e.line for e in log.rejected] == [6, 7, 10, 13]


def test_minimal_export_without_ids_gets_derived_ids(run, tmp_path: Path) -> None:
    """A trimmed `chats.list` whose chats and messages carry no `id` imports (issue 20)."""
    chats = {
        "chats": {
            "list": [
                {
                    "name": "Family",
                    "type": "private_group",
                    "messages": [
                        {"date": "2023-03-01T10:00:00", "from": "Mum", "text": "Dinner at 7"},
                        {"date": "2023-03-01T10:00:00", "from": "Mum", "text": "Dinner at 7"},
                        {"date": "2023-03-01T10:01:00", "from": "Tom", "text": "ok"},
                    ],
                },
                {"messages": [{"date_unixtime": "1677664800", "from": "Ann", "text": "hi"}], "id": 5},
            ]
        }
    }
    path = tmp_path / "result.json"
    path.write_text(json.dumps(chats))
    messages, log = run(TelegramExportImporter(tz=ZoneInfo("UTC")), path)
    ids = [m.message_id for m in messages]
    assert len(ids) == len(set(ids)) == 4  # the identical repeat keeps its own id
    assert all(i.startswith("telegram:derived:") for i in ids)
    assert [m.channel for m in messages] == ["Family", "Family", "Family", "chat 2"]
    assert all(m.metadata["derived_id"] for m in messages)
    assert "derived" in log.details["message ids"]
    assert any("no id in the export" in w for w in log.warnings)
    assert any("chat 2 lists its 'id' after its messages" in w for w in log.warnings)
    again, _ = run(TelegramExportImporter(tz=ZoneInfo("UTC")), path)
    assert [m.message_id for m in again] == ids


def test_exports_with_ids_keep_their_ids(run, fixtures: Path) -> None:
    messages, log = run(TelegramExportImporter(), fixtures / "telegram_account.json")
    assert not any(m.message_id.startswith("telegram:derived:") for m in messages)
    assert "message ids" not in log.details


def test_invalid_utf8_names_the_line(run, tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(
        b'{"name": "X", "type": "personal_chat", "id": 1,\n"messages": [\n{"id": 1, "text": "\xff"}]}'
    )
    message = _error(run, path)
    assert "UTF-8" in message
    assert "result.json" in message


def test_trailing_garbage_is_rejected(run, tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text('{"name": "X", "type": "personal_chat", "id": 1, "messages": []} extra')
    assert "after the end" in _error(run, path)


def test_memory_stays_bounded(tmp_path: Path) -> None:
    # ~4.7 MB of JSON: json.load peaks near 13 MB (text + objects); the walk holds about one window.
    msgs = [
        {"id": i, "type": "message", "date_unixtime": str(1600000000 + i), "from": "P", "text": "y" * 300}
        for i in range(1, 12001)
    ]
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"name": "Big", "type": "personal_chat", "id": 9, "messages": msgs}))
    del msgs
    tracemalloc.start()
    try:
        seen = sum(1 for _ in TelegramExportImporter().messages(path, ImportLog()))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == 12000
    assert peak < 3 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB for a {path.stat().st_size / 1e6:.1f} MB file"
