"""DiscordChatExporter JSON (one file per channel or thread, or a folder of them) → RawMessage.

Ids are `discord:<channel id>:<message id>`, the live connector's format. Threads are exported
by DiscordChatExporter as channels of their own (`channel.type` *Thread, `category` = parent
channel); the thread id is the channel id, as Discord itself treats it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from app.core.clock import datetime_to_ms
from app.core.domain import Attachment, RawMessage
from connectors.ids import discord_message_id
from connectors.importers.base import ImportLog, describe, malformed, nonempty, require_exists
from connectors.importers.jsonstream import JsonStream

PLATFORM = "discord"
_SYSTEM_TYPES = {
    "RecipientAdd": "added someone to the group",
    "RecipientRemove": "removed someone from the group",
    "ChannelNameChange": "renamed the channel",
    "ChannelPinnedMessage": "pinned a message",
    "GuildMemberJoin": "joined the server",
    "ThreadCreated": "started a thread",
}


class DiscordExportImporter:
    """Streams each export file's `messages` array; `guild` and `channel` precede it in DCE output."""

    format = "discord"

    def messages(self, path: Path, log: ImportLog) -> Iterator[RawMessage]:
        require_exists(path)
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        if not files:
            raise malformed(path.name, None, "holds no .json files from DiscordChatExporter")
        for file in files:
            yield from self._file(file, log)

    def _file(self, path: Path, log: ImportLog) -> Iterator[RawMessage]:
        stream, fp = JsonStream.open(path)
        with fp:
            if stream.peek() != "{":
                raise stream.error("is not a DiscordChatExporter JSON export: expected an object at the top")
            guild: dict[str, Any] = {}
            channel: dict[str, Any] = {}
            found = False
            for key in stream.members():
                if key in ("guild", "channel"):
                    value = stream.value()
                    if not isinstance(value, dict):
                        raise stream.error(
                            f"wrong JSON shape: '{key}' must be an object", line=stream.last_value_line()
                        )
                    (guild if key == "guild" else channel).update(value)
                elif key == "messages":
                    found = True
                    if "id" not in channel:
                        raise stream.error(
                            "'messages' comes before 'channel'; is this a DiscordChatExporter JSON?"
                        )
                    yield from self._messages(stream, guild, channel, log)
                else:
                    stream.skip()
            stream.finish()
            if not found:
                raise malformed(
                    path.name,
                    None,
                    "wrong JSON shape: no 'messages' array",
                    hint="export with DiscordChatExporter using the JSON format",
                )

    def _messages(
        self, stream: JsonStream, guild: dict[str, Any], channel: dict[str, Any], log: ImportLog
    ) -> Iterator[RawMessage]:
        channel_id = str(channel["id"])
        is_thread = "Thread" in str(channel.get("type", ""))
        base_meta: dict[str, Any] = {
            "channel_id": channel_id,
            "guild": guild.get("name"),
            "guild_id": guild.get("id"),
            "source": "discord_export",
        }
        if is_thread:
            base_meta["thread"] = channel.get("name")
            base_meta["parent_channel"] = channel.get("category")
            base_meta["parent_channel_id"] = channel.get("categoryId")
        elif channel.get("category"):
            base_meta["category"] = channel.get("category")
        name = str(channel.get("name") or channel_id)
        for index in stream.items():
            raw = stream.value()
            where = f"message {index + 1} of channel '{name}'"
            if not isinstance(raw, dict):
                log.reject(
                    stream.source,
                    stream.last_value_line(),
                    "wrong JSON shape: a message must be an object; skipped",
                    entry=where,
                )
                continue
            try:
                message = _message(raw, channel_id, name, base_meta, log)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                log.reject(
                    stream.source,
                    stream.last_value_line(),
                    f"unreadable message ({describe(exc)}); skipped",
                    entry=where,
                )
                continue
            if message is not None:
                yield message


def _message(
    raw: dict[str, Any], channel_id: str, channel: str, base_meta: dict[str, Any], log: ImportLog
) -> RawMessage | None:
    author = raw.get("author") or {}
    person = str(author.get("nickname") or author.get("name") or author.get("id") or "unknown")
    kind = str(raw.get("type") or "Default")
    attachments = tuple(
        Attachment(
            name=str(a.get("fileName") or a.get("url") or "attachment"),
            url=a.get("url"),
            content_type=a.get("contentType"),
            size_bytes=a.get("fileSizeBytes"),
        )
        for a in raw.get("attachments") or []
    )
    embeds = [_embed_text(e) for e in raw.get("embeds") or [] if isinstance(e, dict)]
    stickers = [f"[sticker: {s.get('name')}]" for s in raw.get("stickers") or [] if isinstance(s, dict)]
    text = str(raw.get("content") or "")
    if not text and kind in _SYSTEM_TYPES:
        text = f"{person} {_SYSTEM_TYPES[kind]}"
    content = nonempty(text, *embeds, *stickers, *(f"[attachment: {a.name}]" for a in attachments))
    if not content:
        log.skip("empty message")
        return None
    metadata = dict(base_meta)
    metadata["type"] = kind
    metadata["person_id"] = author.get("id")
    if raw.get("timestampEdited"):
        metadata["edited"] = True
        metadata["edited_at"] = raw["timestampEdited"]
    if raw.get("isPinned"):
        metadata["pinned"] = True
    reference = raw.get("reference") or {}
    if reference.get("messageId"):
        metadata["reply_to"] = discord_message_id(
            reference.get("channelId") or channel_id, reference["messageId"]
        )
    if raw.get("mentions"):
        metadata["mentions"] = [
            m.get("nickname") or m.get("name") for m in raw["mentions"] if isinstance(m, dict)
        ]
    return RawMessage(
        platform=PLATFORM,
        message_id=discord_message_id(channel_id, str(raw["id"])),
        channel=channel,
        person=person,
        timestamp=datetime_to_ms(datetime.fromisoformat(str(raw["timestamp"]))),
        content=content,
        bot_id=str(author["id"]) if author.get("isBot") and author.get("id") else None,
        attachments=attachments,
        metadata=metadata,
    )


def _embed_text(embed: dict[str, Any]) -> str:
    """Rich embeds carry most of a bot's message; keep their words searchable."""
    fields = [
        f"{f.get('name', '')}: {f.get('value', '')}" for f in embed.get("fields") or [] if isinstance(f, dict)
    ]
    return nonempty(embed.get("title"), embed.get("description"), *fields, embed.get("url"))
