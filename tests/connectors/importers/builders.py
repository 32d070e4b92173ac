"""Builders for Slack export fixtures (shared by the importer, service, CLI and API tests)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

USERS = [
    {
        "id": "U01",
        "team_id": "T0TEAM",
        "name": "anna",
        "real_name": "Anna Lee",
        "profile": {"display_name": "anna", "real_name": "Anna Lee", "email": "anna@example.org"},
    },
    {
        "id": "U02",
        "team_id": "T0TEAM",
        "name": "bob",
        "profile": {"display_name": "", "real_name": "Bob Stone"},
    },
]
CHANNELS = [
    {"id": "C01", "name": "general", "created": 1600000000, "members": ["U01", "U02"]},
    {"id": "C02", "name": "random", "created": 1600000000, "members": ["U01"]},
]
GENERAL_DAY1 = [
    {
        "type": "message",
        "subtype": "channel_join",
        "ts": "1600000000.000100",
        "user": "U01",
        "text": "<@U01> has joined the channel",
    },
    {
        "type": "message",
        "ts": "1600000100.000200",
        "user": "U01",
        "team": "T0TEAM",
        "text": "Hey <@U02>, the deploy is at 5pm &amp; <#C02|random> has the notes. "
        "See <https://ex.com/doc|the doc>",
        "thread_ts": "1600000100.000200",
        "reply_count": 1,
        "user_profile": {"display_name": "anna", "real_name": "Anna Lee"},
    },
    {
        "type": "message",
        "ts": "1600000200.000300",
        "user": "U02",
        "text": "Got it, thanks!",
        "thread_ts": "1600000100.000200",
        "parent_user_id": "U01",
        "edited": {"user": "U02", "ts": "1600000250.000000"},
    },
    {
        "type": "message",
        "subtype": "tombstone",
        "ts": "1600000300.000400",
        "user": "USLACKBOT",
        "text": "This message was deleted.",
    },
]
GENERAL_DAY2 = [
    {
        "type": "message",
        "ts": "1600090000.000500",
        "user": "U02",
        "text": "",
        "files": [
            {
                "id": "F1",
                "name": "roadmap.pdf",
                "mimetype": "application/pdf",
                "size": 2048,
                "url_private": "https://files.slack.com/roadmap.pdf",
            }
        ],
    },
    {
        "type": "message",
        "subtype": "bot_message",
        "ts": "1600090100.000600",
        "bot_id": "B01",
        "username": "deploybot",
        "text": "",
        "attachments": [{"fallback": "Deploy 42 succeeded"}],
    },
    {
        "type": "message",
        "ts": "1600090200.000700",
        "user": "U03",
        "text": "   ",
        "user_profile": {"real_name": "Guest Person"},
    },
    {
        "type": "message",
        "ts": "1600090300.000800",
        "user": "U03",
        "text": "guest here <!here>",
        "user_profile": {"real_name": "Guest Person"},
    },
]
RANDOM_DAY = [{"type": "message", "ts": "1600000500.000900", "user": "U01", "text": "lunch?"}]


def build_export(
    root: Path, *, users: Any = USERS, prefix: str = "", extra: dict[str, Any] | None = None
) -> Path:
    files: dict[str, Any] = {
        "users.json": users,
        "channels.json": CHANNELS,
        "general/2020-09-13.json": GENERAL_DAY1,
        "general/2020-09-14.json": GENERAL_DAY2,
        "random/2020-09-13.json": RANDOM_DAY,
    }
    files.update(extra or {})
    path = root / "Workspace Slack export.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(prefix + name, data if isinstance(data, str) else json.dumps(data))
    return path
