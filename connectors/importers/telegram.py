"""Telegram Desktop export (`result.json`): single-chat and full-account layouts → RawMessage.

Ids are `telegram:<chat>:<message>` with `<chat>` exactly as the Bot API (and so the live
bot connector) reports it. Telegram Desktop writes bare peer ids, so they are normalized by
chat type (see `bot_api_chat_id`): supergroups and channels become `-100<id>`, basic groups
`-<id>`, private chats stay the user id. An export and a live sync of the same chat therefore
produce identical ids and never duplicate. (Telegram numbers messages per account in private
chats and basic groups, so there a bot and the exporting user see different message ids; in
supergroups and channels, where bots usually live, the ids are shared.)

Trimmed or converted exports may carry no chat `id` or no message `id`s; those messages get
ids derived from chat, time, sender and text (`DerivedIds`), stable across re-imports.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from app.core.clock import datetime_to_ms
from app.core.domain import Attachment, RawMessage
from connectors.ids import telegram_chat_id_from_export, telegram_message_id, telegram_twin_key
from connectors.importers.base import ImportLog, describe, malformed, nonempty, require_exists
from connectors.importers.derived_ids import DerivedIds
from connectors.importers.jsonstream import JsonStream

PLATFORM = "telegram"
_PRIVATE_TYPES = {"personal_chat", "bot_chat"}
# Export chat types → the Bot API's `chat.type`, where a bot and the exporter number messages apart.
_TWIN_KINDS = {"personal_chat": "private", "bot_chat": "private", "private_group": "group"}
_MEDIA_LABELS = {
    "sticker": "sticker",
    "voice_message": "voice message",
    "video_message": "video message",
    "audio_file": "audio",
    "video_file": "video",
    "animation": "GIF",
}


def bot_api_chat_id(export_id: int | str, chat_type: str | None) -> int:
    """The chat id the Bot API uses for a chat that Telegram Desktop exported as `export_id`."""
    return telegram_chat_id_from_export(int(export_id), str(chat_type or ""))


def bot_api_peer_id(from_id: str) -> int | None:
    """Export sender ids ("user123", "channel456", "chat789") in the Bot API's signed form."""
    for prefix, convert in (
        ("user", int),
        ("channel", lambda v: int(f"-100{v}")),
        ("chat", lambda v: -int(v)),
    ):
        if from_id.startswith(prefix) and from_id[len(prefix) :].isdigit():
            return convert(from_id[len(prefix) :])
    return None


def render_text(text: Any) -> str:
    """`text` is a plain string or a list of strings and entity objects ({type, text, href})."""
    if isinstance(text, str):
        return text
    if not isinstance(text, list):
        return ""
    parts: list[str] = []
    for piece in text:
        if isinstance(piece, str):
            parts.append(piece)
        elif isinstance(piece, dict):
            shown = str(piece.get("text", ""))
            href = piece.get("href")
            # Keep link targets searchable when the visible text hides them.
            parts.append(f"{shown} ({href})" if href and href != shown else shown)
    return "".join(parts)


def plain_text(text: Any) -> str:
    """The text as a Telegram client shows it (what the Bot API's `text` holds): no link targets."""
    if isinstance(text, list):
        return "".join(
            p if isinstance(p, str) else str(p.get("text", "")) for p in text if isinstance(p, str | dict)
        )
    return text if isinstance(text, str) else ""


class TelegramExportImporter:
    """Reads `result.json` (or the export folder holding it) with a streaming JSON walk."""

    format = "telegram"

    def __init__(self, tz: tzinfo | None = None) -> None:
        # Only used for old exports without `date_unixtime`: their `date` is the exporter's local time.
        self._tz = tz

    def messages(self, path: Path, log: ImportLog) -> Iterator[RawMessage]:
        require_exists(path)
        if path.is_dir():
            path = path / "result.json"
            require_exists(path)
        stream, fp = JsonStream.open(path)
        with fp:
            if stream.peek() != "{":
                raise stream.error("is not a Telegram Desktop export: expected a JSON object at the top")
            single: dict[str, Any] = {}
            found = False
            for key in stream.members():
                if key == "messages":
                    found = True
                    log.note("layout", "single chat")
                    yield from self._chat_messages(stream, single, log)
                elif key in ("chats", "left_chats"):
                    found = True
                    log.note("layout", "full account (chats.list)")
                    yield from self._chat_list(stream, log)
                elif key in ("name", "type", "id"):
                    single[key] = stream.value()
                else:
                    stream.skip()
            stream.finish()
            if not found:
                raise malformed(
                    path.name,
                    None,
                    "wrong JSON shape: neither 'messages' (single chat) nor 'chats' (full account) found",
                    hint="choose the result.json written by Telegram Desktop's 'Export chat history' in JSON",
                )

    def _chat_list(self, stream: JsonStream, log: ImportLog) -> Iterator[RawMessage]:
        for key in stream.members():
            if key != "list":
                stream.skip()
                continue
            for index in stream.items():
                chat: dict[str, Any] = {}
                had_messages = False
                for ckey in stream.members():
                    if ckey == "messages":
                        had_messages = True
                        yield from self._chat_messages(stream, chat, log, entry=f"chat {index + 1}")
                    else:
                        chat[ckey] = stream.value()
                        if ckey == "id" and had_messages:
                            # Streaming cannot go back: the messages already got derived ids.
                            log.warn(
                                f"chat {index + 1} lists its 'id' after its messages, so their ids were "
                                "derived; a re-export by Telegram Desktop (id first) keeps the real ids"
                            )
                if not had_messages:
                    log.skip("chat without messages")

    def _chat_messages(
        self, stream: JsonStream, chat: dict[str, Any], log: ImportLog, entry: str = "chat"
    ) -> Iterator[RawMessage]:
        chat_id: int | None = None
        if chat.get("id") is not None:
            try:
                chat_id = bot_api_chat_id(chat["id"], chat.get("type"))
            except (TypeError, ValueError):
                raise stream.error(f"{entry} has a non-numeric id {chat['id']!r}") from None
        chat_name = str(chat.get("name") or chat.get("type") or chat_id or entry)
        if chat.get("type") in _PRIVATE_TYPES:
            chat_name = f"dm:{chat_name}"  # as the live bot names private chats (no title there)
        ids = DerivedIds(str(chat_id) if chat_id is not None else f"name:{chat_name}")
        for index in stream.items():
            raw = stream.value()
            where = f"{entry} '{chat_name}', message {index + 1}"
            if not isinstance(raw, dict):
                log.reject(
                    stream.source,
                    stream.last_value_line(),
                    f"wrong JSON shape: a message must be an object, not {type(raw).__name__}; skipped",
                    entry=where,
                )
                continue
            try:
                message = self._message(raw, chat_id, chat_name, chat.get("type"), ids, log)
            except (KeyError, TypeError, ValueError) as exc:
                log.reject(
                    stream.source,
                    stream.last_value_line(),
                    f"unreadable message ({describe(exc)}); skipped",
                    entry=where,
                )
                continue
            if message is not None:
                yield message
        if ids.derived:
            log.note("message ids", "derived from chat, time, sender and text (the export has none)")
            log.warn(
                f"{ids.derived} message(s) in {entry} '{chat_name}' have no id in the export: their ids "
                "were derived from chat, time, sender and text, so re-importing is a no-op, but a live "
                "sync of the same chat will not recognize them"
            )

    def _message(
        self,
        raw: dict[str, Any],
        chat_id: int | None,
        chat_name: str,
        chat_type: Any,
        ids: DerivedIds,
        log: ImportLog,
    ) -> RawMessage | None:
        msg_id = int(raw["id"]) if raw.get("id") is not None else None
        kind = raw.get("type", "message")
        timestamp = self._timestamp(raw)
        if not isinstance(raw.get("text", ""), str | list):
            raise ValueError(f"'text' is {type(raw['text']).__name__}, expected a string or a list of pieces")
        # Same keys as the live connector's metadata, plus what only the export knows.
        metadata: dict[str, Any] = {"chat_type": chat_type, "source": "telegram_export"}
        if chat_id is not None:
            metadata["chat_id"] = metadata["channel_id"] = chat_id
        attachments: list[Attachment] = []
        if kind == "service":
            person = str(raw.get("actor") or "Telegram")
            action = str(raw.get("action") or "service")
            content = _service_text(person, action, raw)
            metadata["service"] = action
            sender_id = str(raw.get("actor_id") or "")
        else:
            # `from` is null for deleted accounts; channel posts carry the channel name instead.
            person = str(raw.get("from") or ("Deleted Account" if "from" in raw else chat_name))
            attachments = _attachments(raw)
            media = [f"[{_media_label(raw)}: {a.name}]" for a in attachments]
            content = nonempty(render_text(raw.get("text", "")), *media)
            if raw.get("poll"):
                content = nonempty(content, "poll: " + str(raw["poll"].get("question", "")))
            sender_id = str(raw.get("from_id") or "")
            twin = telegram_twin_key(
                _TWIN_KINDS.get(str(chat_type), ""),
                chat_id,
                timestamp // 1000,
                bot_api_peer_id(sender_id),
                plain_text(raw.get("text", "")),
            )
            if twin:
                metadata["twin_key"] = twin
            if raw.get("reply_to_message_id") is not None and chat_id is not None:
                metadata["reply_to"] = telegram_message_id(chat_id, raw["reply_to_message_id"])
            if raw.get("edited"):
                metadata["edited"] = True
                metadata["edited_at"] = raw["edited"]
            for key in ("forwarded_from", "via_bot"):
                if raw.get(key) is not None:
                    metadata[key] = raw[key]
        if sender_id:
            metadata["person_id"] = bot_api_peer_id(sender_id) or sender_id
        if not content:
            log.skip("empty message")
            return None
        if chat_id is not None and msg_id is not None:
            message_id = telegram_message_id(chat_id, msg_id)
        else:
            message_id = ids.next(timestamp, person, content, msg_id)
            metadata["derived_id"] = True
        return RawMessage(
            platform=PLATFORM,
            message_id=message_id,
            channel=chat_name,
            person=person,
            timestamp=timestamp,
            content=content,
            attachments=tuple(attachments),
            metadata=metadata,
        )

    def _timestamp(self, raw: dict[str, Any]) -> int:
        if raw.get("date_unixtime") is not None:
            return int(raw["date_unixtime"]) * 1000
        moment = datetime.fromisoformat(str(raw["date"]))
        if moment.tzinfo is None and self._tz is not None:
            moment = moment.replace(tzinfo=self._tz)
        elif moment.tzinfo is None:
            moment = moment.astimezone()  # the exporter's local time; best guess is this machine's
        return datetime_to_ms(moment)


def _media_label(raw: dict[str, Any]) -> str:
    if raw.get("photo"):
        return "photo"
    return _MEDIA_LABELS.get(str(raw.get("media_type")), "file")


def _attachments(raw: dict[str, Any]) -> list[Attachment]:
    found: list[Attachment] = []
    if raw.get("photo"):
        found.append(
            Attachment(
                name=Path(str(raw["photo"])).name,
                url=str(raw["photo"]),
                content_type="image/jpeg",
                size_bytes=raw.get("photo_file_size"),
            )
        )
    if raw.get("file"):
        name = raw.get("file_name") or Path(str(raw["file"])).name
        found.append(
            Attachment(
                name=str(name),
                url=str(raw["file"]),
                content_type=raw.get("mime_type"),
                size_bytes=raw.get("file_size"),
            )
        )
    return found


def _service_text(actor: str, action: str, raw: dict[str, Any]) -> str:
    members = ", ".join(str(m) for m in raw.get("members") or [] if m)
    title = raw.get("title")
    texts = {
        "create_group": f"{actor} created the group «{title}»",
        "create_channel": f"{actor} created the channel «{title}»",
        "migrate_to_supergroup": f"{actor} converted the group to a supergroup",
        "invite_members": f"{actor} added {members}",
        "remove_members": f"{actor} removed {members}",
        "join_group_by_link": f"{actor} joined the group via an invite link",
        "edit_group_title": f"{actor} changed the title to «{title}»",
        "edit_group_photo": f"{actor} changed the group photo",
        "pin_message": f"{actor} pinned a message",
        "phone_call": f"{actor} made a call",
    }
    return texts.get(action, f"{actor}: {action.replace('_', ' ')}")
