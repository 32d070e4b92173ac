"""The explicit list of export formats, and a best-effort guess of a file's format."""

from __future__ import annotations

import zipfile
from datetime import tzinfo
from pathlib import Path

from app.core.errors import UnsupportedFormat
from connectors.importers.base import Importer, require_exists
from connectors.importers.discord import DiscordExportImporter
from connectors.importers.mail import EmailImporter
from connectors.importers.slack import SlackExportImporter
from connectors.importers.telegram import TelegramExportImporter
from connectors.importers.whatsapp import WhatsAppImporter

FORMATS = ("slack", "telegram", "discord", "whatsapp", "email")


def make_importer(
    format_name: str, *, tz: tzinfo | None = None, date_order: str | None = None, chat_name: str | None = None
) -> Importer:
    """An importer for one of FORMATS; `tz` applies to exports that carry local times only."""
    if format_name == "slack":
        return SlackExportImporter()
    if format_name == "telegram":
        return TelegramExportImporter(tz=tz)
    if format_name == "discord":
        return DiscordExportImporter()
    if format_name == "whatsapp":
        return WhatsAppImporter(tz=tz, date_order=date_order, chat_name=chat_name)
    if format_name == "email":
        return EmailImporter()
    raise UnsupportedFormat(
        f"unknown import format {format_name!r}", hint=f"choose one of: {', '.join(FORMATS)}"
    )


def detect_format(path: Path) -> str:
    """Guess the format from names and the first bytes; raises UnsupportedFormat when unsure."""
    require_exists(path)
    if path.is_dir():
        names = {p.name for p in path.iterdir()}
        if "result.json" in names:
            return "telegram"
        if "users.json" in names or "channels.json" in names:
            return "slack"
        if any(n.endswith((".eml", ".mbox")) for n in names):
            return "email"
        if any(n.endswith(".json") for n in names):
            return "discord"
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            listed = archive.namelist()
        if any(n.rsplit("/", 1)[-1] in ("users.json", "channels.json") for n in listed):
            return "slack"
        if any(n.endswith(".txt") for n in listed):
            return "whatsapp"
    else:
        suffix = path.suffix.lower()
        with path.open("rb") as fp:
            head = fp.read(65536)
        if suffix in (".mbox", ".eml") or head.startswith(b"From "):
            return "email"
        if suffix == ".txt":
            return "whatsapp"
        if suffix == ".json":
            if b'"guild"' in head:
                return "discord"
            if b'"chats"' in head or b'"date_unixtime"' in head or b'"personal_information"' in head:
                return "telegram"
            if b'"messages"' in head and b'"type"' in head:
                return "telegram"
    raise UnsupportedFormat(
        f"{path.name}: cannot tell which export this is",
        hint=f"name the format explicitly: strata import <{'|'.join(FORMATS)}> PATH",
    )
