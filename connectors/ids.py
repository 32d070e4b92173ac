"""Message-id contract shared by live connectors and importers, so the same message never lands twice.

    slack:<team id>:<channel id>:<ts>       e.g. slack:T024BE7LD:C024BE91L:1700000000.000100
    discord:<channel id>:<message id>      a thread is a channel in Discord, so its own id
    telegram:<chat id>:<message id>        chat id in Bot API form (see below)

Telegram Desktop exports write chat ids without the Bot API sign/prefix: supergroups and
channels as the bare channel id (Bot API: -100<id>), basic groups as the bare id (Bot API:
-<id>), private chats as the user id (same in both). `telegram_chat_id_from_export` converts.
Note that in private chats and basic groups Telegram numbers messages per account, so a bot
and a user account see different message ids there; only supergroups and channels share them.
For those chats both sides also write a twin key (`telegram_twin_key`, metadata `twin_key`):
the same message seen by the bot and by the exporting account gets the same key, and the
merge step (`app/services/twins.py`) skips a message whose twin is already stored.
"""

from __future__ import annotations

import hashlib

_SUPERGROUP_TYPES = {"private_supergroup", "public_supergroup", "private_channel", "public_channel"}
_BASIC_GROUP_TYPES = {"private_group"}


def slack_message_id(team_id: str, channel_id: str, ts: str) -> str:
    return f"slack:{team_id}:{channel_id}:{ts}"


def discord_message_id(channel_id: int | str, message_id: int | str) -> str:
    return f"discord:{channel_id}:{message_id}"


def telegram_message_id(chat_id: int | str, message_id: int | str) -> str:
    return f"telegram:{chat_id}:{message_id}"


def telegram_chat_id_from_export(export_id: int, chat_type: str) -> int:
    """The Bot API chat id for a Telegram Desktop export's (`id`, `type`) pair."""
    if export_id < 0:
        return export_id  # already in Bot API form
    if chat_type in _SUPERGROUP_TYPES:
        return int(f"-100{export_id}")
    if chat_type in _BASIC_GROUP_TYPES:
        return -export_id
    return export_id


def telegram_twin_key(
    chat_kind: str, chat_id: int | None, sent_at_s: int, sender_id: int | None, text: str
) -> str | None:
    """The key a Telegram message has in the bot's and in the exporter's numbering alike.

    Only for private chats (`chat_kind` "private": the bot sees the chat under the user's id,
    the user's export under the bot's id, so the chat is left out of the key) and basic groups
    ("group": same Bot API chat id on both sides); None elsewhere, where ids are shared, and for
    messages without text or sender, which cannot be told apart reliably.
    """
    if chat_kind not in ("private", "group") or sender_id is None or not text.strip():
        return None
    chat = "private" if chat_kind == "private" else str(chat_id)
    digest = hashlib.sha1(f"{chat}\x1f{sent_at_s}\x1f{sender_id}\x1f{text.strip()}".encode()).hexdigest()
    return f"tgtwin:{digest[:32]}"
