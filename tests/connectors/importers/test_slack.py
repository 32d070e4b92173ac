"""Slack workspace export: zip and folder, threads, subtypes, edits, files, mentions, bad zips."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from app.core.errors import InvalidInput
from connectors.importers.slack import SlackExportImporter, render_markup, ts_to_ms
from tests.connectors.importers.builders import USERS, build_export


def test_zip_export(run, tmp_path: Path) -> None:
    messages, log = run(SlackExportImporter(), build_export(tmp_path))
    by_ts = {m.metadata["ts"]: m for m in messages}
    assert len(messages) == 7
    assert log.skipped == {"deleted (tombstone)": 1, "empty message": 1}
    assert log.details["team"] == "T0TEAM"

    parent = by_ts["1600000100.000200"]
    assert parent.message_id == "slack:T0TEAM:C01:1600000100.000200"
    assert parent.channel == "general"
    assert parent.person == "anna"
    assert parent.content == (
        "Hey @Bob Stone, the deploy is at 5pm & #random has the notes. See the doc (https://ex.com/doc)"
    )
    assert parent.timestamp == 1600000100_000
    assert parent.metadata["thread_id"] == "1600000100.000200"
    assert "parent_ts" not in parent.metadata

    reply = by_ts["1600000200.000300"]
    assert reply.person == "Bob Stone"
    assert reply.metadata["parent_ts"] == "1600000100.000200"
    assert reply.metadata["edited_ts"] == "1600000250.000000"
    assert reply.metadata["edited"] is True
    assert reply.metadata["person_id"] == "U02"
    assert parent.metadata["email"] == "anna@example.org"

    join = by_ts["1600000000.000100"]
    assert join.content == "@anna has joined the channel"
    assert join.metadata["subtype"] == "channel_join"

    shared = by_ts["1600090000.000500"]
    assert shared.content == "[file: roadmap.pdf]"
    assert shared.attachments[0].size_bytes == 2048
    bot = by_ts["1600090100.000600"]
    assert (bot.person, bot.bot_id, bot.content) == ("deploybot", "B01", "Deploy 42 succeeded")
    assert by_ts["1600090300.000800"].person == "Guest Person"
    assert by_ts["1600090300.000800"].content == "guest here @here"
    assert by_ts["1600000500.000900"].channel == "random"


def test_unpacked_folder_and_nested_zip_give_the_same_messages(run, tmp_path: Path) -> None:
    flat, _ = run(SlackExportImporter(), build_export(tmp_path))
    nested_dir = tmp_path / "nested"
    nested_dir.mkdir()
    nested, _ = run(SlackExportImporter(), build_export(nested_dir, prefix="My Workspace/"))
    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(build_export(tmp_path)) as archive:
        archive.extractall(folder)
    unpacked, _ = run(SlackExportImporter(), folder)
    assert flat == nested == unpacked


def test_private_conversations_and_dms(run, tmp_path: Path) -> None:
    extra = {
        "groups.json": [{"id": "G01", "name": "secret-plans"}],
        "secret-plans/2020-09-15.json": [
            {"type": "message", "ts": "1600200000.000100", "user": "U01", "text": "shh"}
        ],
        "dms.json": [{"id": "D01", "members": ["U01", "U02"]}],
        "mpims.json": [{"id": "G02", "name": "mpdm-anna--bob-1", "members": ["U01", "U02"]}],
        "mpdm-anna--bob-1/2020-09-15.json": [
            {"type": "message", "ts": "1600200002.000100", "user": "U01", "text": "group dm"}
        ],
        "D01/2020-09-15.json": [
            {"type": "message", "ts": "1600200001.000100", "user": "U02", "text": "hi anna"}
        ],
    }
    messages, _ = run(SlackExportImporter(), build_export(tmp_path, extra=extra))
    channels = {m.message_id: m.channel for m in messages}
    assert channels["slack:T0TEAM:G01:1600200000.000100"] == "secret-plans"
    assert channels["slack:T0TEAM:D01:1600200001.000100"] == "dm:anna, Bob Stone"
    assert channels["slack:T0TEAM:G02:1600200002.000100"] == "mpdm-anna--bob-1"


def test_missing_team_id_is_derived_and_stable(run, tmp_path: Path) -> None:
    users = [{k: v for k, v in u.items() if k != "team_id"} for u in USERS]
    first, log = run(SlackExportImporter(), build_export(tmp_path, users=users))
    second, _ = run(SlackExportImporter(), build_export(tmp_path, users=users))
    team = first[0].message_id.split(":")[1]
    assert team.startswith("E") and len(team) == 11
    assert [m.message_id for m in first] == [m.message_id for m in second]
    assert any("derived" in w for w in log.warnings)


def test_markup_and_timestamps() -> None:
    users = {"U1": {"profile": {"real_name": "Zed"}}}
    assert render_markup("<@U1> <@U9|nine> <!channel> <mailto:a@b.c|a@b.c> &lt;x&gt;", users) == (
        "@Zed @nine @channel a@b.c (mailto:a@b.c) <x>"
    )
    assert ts_to_ms("1600000000.999999") == 1600000000999
    assert ts_to_ms("1600000000") == 1600000000000


# -- malformed input ------------------------------------------------------------------------


def _error(run, path: Path) -> str:
    with pytest.raises(InvalidInput) as info:
        run(SlackExportImporter(), path)
    return str(info.value)


def test_truncated_zip(run, tmp_path: Path) -> None:
    path = build_export(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    message = _error(run, path)
    assert "Workspace Slack export.zip" in message
    assert "truncated" in message


def test_corrupt_member(run, tmp_path: Path) -> None:
    path = build_export(tmp_path)
    data = bytearray(path.read_bytes())
    # Damage the compressed bytes of the first day file; the central directory stays intact.
    start = data.index(b"general/2020-09-13.json") + len("general/2020-09-13.json")
    for i in range(start + 5, start + 40):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    messages, log = run(SlackExportImporter(), path)
    (reason,) = (e.reason for e in log.rejected)
    assert "general/2020-09-13.json" in reason and "skipped" in reason
    assert messages and not any(m.timestamp // 1000 < 1600041600 and m.channel == "general" for m in messages)


def test_bad_json_names_file_and_line(run, tmp_path: Path) -> None:
    path = build_export(tmp_path, extra={"random/2020-09-13.json": '[\n{"ts": "1.0",\n "text": oops}\n]'})
    messages, log = run(SlackExportImporter(), path)
    (reason,) = (e.reason for e in log.rejected)
    assert "random/2020-09-13.json line 3: invalid JSON" in reason
    assert len(messages) == 6  # every other day file imports (the export holds 7)


def _reasons(run, path: Path) -> list[str]:
    _, log = run(SlackExportImporter(), path)
    return [e.reason for e in log.rejected]


def test_wrong_shapes(run, tmp_path: Path) -> None:
    (reason,) = _reasons(run, build_export(tmp_path, extra={"random/2020-09-13.json": {"a": 1}}))
    assert "a day file must be a list" in reason
    (reason,) = _reasons(run, build_export(tmp_path, extra={"random/2020-09-13.json": [{"text": "no ts"}]}))
    assert "random/2020-09-13.json entry 1" in reason
    (reason,) = _reasons(run, build_export(tmp_path, extra={"channels.json": [{"name": "x"}]}))
    assert "channels.json entry 1" in reason
    # users.json is the export's backbone (every name comes from it): a wrong one refuses the file.
    assert "expected a list of users" in _error(run, build_export(tmp_path, users={"U1": {}}))


def test_not_a_slack_export(run, tmp_path: Path) -> None:
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.json", "{}")
    assert "not a Slack export" in _error(run, path)


def test_invalid_utf8(run, tmp_path: Path) -> None:
    path = build_export(tmp_path)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("general/2020-09-15.json", b'[\n\n{"ts": "1.0", "text": "\xff\xfe"}]')
    (reason,) = _reasons(run, path)
    assert "general/2020-09-15.json line 3" in reason and "UTF-8" in reason
