"""DiscordChatExporter JSON: channels, threads, replies, attachments, embeds, edits, bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.errors import InvalidInput
from connectors.importers.discord import DiscordExportImporter

GENERAL = "Strata Dev - general [880000000000000001].json"


def test_channel_export(run, fixtures: Path) -> None:
    messages, log = run(DiscordExportImporter(), fixtures / "discord" / GENERAL)
    assert [m.message_id for m in messages] == [
        f"discord:880000000000000001:110000000000000000{n}" for n in (1, 2, 3, 4)
    ]
    assert log.skipped == {"empty message": 1}
    first, reply, bot, join = messages
    assert (first.channel, first.person) == ("general", "Maria")
    assert first.timestamp == 1714468502123
    assert first.metadata["guild"] == "Strata Dev"
    assert first.metadata["category"] == "Text Channels"

    assert reply.timestamp == 1714461645500  # +02:00 honoured
    assert reply.metadata["reply_to"] == "discord:880000000000000001:1100000000000000001"
    assert reply.metadata["edited"] is True
    assert reply.metadata["person_id"] == "600000000000000002"
    assert reply.metadata["edited_at"] == "2024-04-30T09:21:00+02:00"
    assert reply.metadata["pinned"] is True
    assert reply.metadata["mentions"] == ["Maria"]
    assert reply.attachments[0].name == "ci-log.txt"
    assert reply.attachments[0].size_bytes == 5120
    assert reply.content.endswith("[attachment: ci-log.txt]")

    assert bot.bot_id == "600000000000000009"
    assert "[strata] 3 new commits" in bot.content
    assert "fix flaky importer test" in bot.content
    assert "Branch: main" in bot.content
    assert join.content == "newbie joined the server"


def test_folder_with_thread(run, fixtures: Path) -> None:
    messages, _ = run(DiscordExportImporter(), fixtures / "discord")
    thread = [m for m in messages if m.channel == "release-2-0"]
    assert len(messages) == 5
    (message,) = thread
    assert message.message_id == "discord:880000000000000077:1100000000000000100"
    assert message.metadata["thread"] == "release-2-0"
    assert message.metadata["parent_channel"] == "general"
    assert message.person == "maria"  # no nickname: the user name
    assert message.content.endswith("[sticker: party]")


def _error(run, path: Path) -> str:
    with pytest.raises(InvalidInput) as info:
        run(DiscordExportImporter(), path)
    return str(info.value)


def test_truncated_export(run, fixtures: Path, tmp_path: Path) -> None:
    text = (fixtures / "discord" / GENERAL).read_text()
    path = tmp_path / "general.json"
    path.write_text(text[: text.index("1100000000000000003")])
    message = _error(run, path)
    assert "general.json, line" in message and "truncated" in message


def test_wrong_shapes(run, tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"channel": {"id": "1"}, "messageCount": 0}))
    assert "no 'messages' array" in _error(run, path)
    path.write_text(json.dumps({"messages": []}))
    assert "before 'channel'" in _error(run, path)
    path.write_text(json.dumps({"channel": "general", "messages": []}))
    assert "'channel' must be an object" in _error(run, path)
    good = {"id": "3", "type": "Default", "timestamp": "2023-01-01T00:00:00+00:00", "content": "ok",
            "author": {"id": "9", "name": "ann"}}  # fmt: skip
    path.write_text(json.dumps({"channel": {"id": "1"}, "messages": [{"id": "2", "content": "x"}, 5, good]}))
    messages, log = run(DiscordExportImporter(), path)
    assert [m.content for m in messages] == ["ok"]  # the rest of the channel imports
    first, second = (e.reason for e in log.rejected)
    assert first.startswith("x.json, line 1 (message 1 of channel '1'): unreadable message")
    assert "message 2 of channel '1'" in second and "must be an object" in second
    path.write_text("[]")
    assert "expected an object" in _error(run, path)


def test_empty_folder(run, tmp_path: Path) -> None:
    assert "no .json files" in _error(run, tmp_path)
