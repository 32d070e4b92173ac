"""Links that open a stored message in its own app, where the platform has one.

Built from what is stored (message id, metadata), never fetched: a `permalink`/`url` kept in the
metadata wins; otherwise Discord and Telegram supergroups/channels have documented message URLs
and Slack a documented deep link to the conversation (`slack://channel?team=…&id=…`). Telegram
private chats and basic groups, WhatsApp and e-mail have no link to a message: None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.ui.formatting import platform_name


@dataclass(frozen=True, slots=True)
class MessageLink:
    url: str
    label: str  # "Open in Slack"


def message_link(
    platform: str | None, message_id: str | None, metadata: dict[str, Any] | None
) -> MessageLink | None:
    platform = (platform or "").lower()
    metadata = metadata or {}
    label = f"Open in {platform_name(platform)}"
    stored = metadata.get("permalink") or metadata.get("url")
    if isinstance(stored, str) and stored.startswith(("https://", "slack://", "tg://", "discord://")):
        return MessageLink(stored, label)
    parts = (message_id or "").split(":")
    if platform == "discord" and len(parts) == 3 and parts[0] == "discord":
        _, channel_id, number = parts
        guild = metadata.get("guild_id") or "@me"
        return MessageLink(f"https://discord.com/channels/{guild}/{channel_id}/{number}", label)
    if platform == "telegram" and len(parts) == 3 and parts[0] == "telegram":
        _, chat_id, number = parts
        # Supergroups and channels (-100…) have t.me/c/ links; other chats have none.
        if chat_id.startswith("-100") and chat_id[4:].isdigit() and number.isdigit():
            return MessageLink(f"https://t.me/c/{chat_id[4:]}/{number}", label)
        return None
    if platform == "slack" and len(parts) == 4 and parts[0] == "slack" and parts[1] and parts[2]:
        _, team, channel_id, _ts = parts
        return MessageLink(f"slack://channel?team={team}&id={channel_id}", label)
    return None
