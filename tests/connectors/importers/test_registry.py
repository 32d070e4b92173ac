"""Format detection, the importer registry and the streaming preview."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from app.core.errors import UnsupportedFormat
from connectors.importers.base import ImportLog
from connectors.importers.preview import PreviewBuilder, counted
from connectors.importers.registry import FORMATS, detect_format, make_importer
from connectors.importers.telegram import TelegramExportImporter


def test_detects_each_fixture(fixtures: Path, tmp_path: Path) -> None:
    assert detect_format(fixtures / "telegram_single.json") == "telegram"
    assert detect_format(fixtures / "telegram_account.json") == "telegram"
    assert detect_format(fixtures / "discord") == "discord"
    assert detect_format(next((fixtures / "discord").glob("*general [*"))) == "discord"
    assert detect_format(fixtures / "WhatsApp Chat with Trip to Lisbon.txt") == "whatsapp"
    assert detect_format(fixtures / "inbox.mbox") == "email"
    assert detect_format(fixtures / "single.eml") == "email"
    slack = tmp_path / "slack.zip"
    with zipfile.ZipFile(slack, "w") as archive:
        archive.writestr("export/users.json", "[]")
    assert detect_format(slack) == "slack"
    wa = tmp_path / "wa.zip"
    with zipfile.ZipFile(wa, "w") as archive:
        archive.writestr("_chat.txt", "")
    assert detect_format(wa) == "whatsapp"


def test_unknown_format(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(b"\x00\x01")
    with pytest.raises(UnsupportedFormat, match="cannot tell"):
        detect_format(path)
    with pytest.raises(UnsupportedFormat, match="unknown import format"):
        make_importer("myspace")


def test_registry_covers_every_format() -> None:
    assert {make_importer(f).format for f in FORMATS} == set(FORMATS)


def test_preview_counts(fixtures: Path) -> None:
    log = ImportLog()
    builder = PreviewBuilder("telegram", "telegram_account.json")
    seen: list[int] = []
    list(
        counted(
            TelegramExportImporter().messages(fixtures / "telegram_account.json", log), builder, seen.append
        )
    )
    preview = builder.build(log)
    data = preview.to_dict()
    assert data["messages"] == 6 == len(seen)
    assert data["channels"] == {"dm:Boris": 2, "Family": 2, "Release Notes": 1, "Old Project": 1}
    assert data["persons"]["Anna Petrova"] == 2
    assert data["first"] == "2021-06-01T09:00:00Z"
    assert data["last"] == "2023-04-03T12:00:00Z"
    assert len(data["sample"]) == 5
    assert data["skipped"] == {"chat without messages": 1}
    assert data["details"] == {"layout": "full account (chats.list)"}
    json.dumps(data)  # the preview is plain JSON
