"""The one place that lists the live connector kinds Strata ships.

Each kind's SDK (slack_sdk, discord.py + aiohttp, python-telegram-bot) costs 2-20 MB of
resident memory once imported (~40 MB together), so its module is imported only when a
connector of that kind is configured: a desktop app or `strata serve` that syncs nothing never
loads them (docs/benchmarks.md, "Idle memory").
"""

from __future__ import annotations

import importlib
from typing import Any

from connectors.base import ConnectorConfig, ConnectorFactory, ConnectorRegistry, ConnectorSpec


def _lazy(module: str, name: str) -> ConnectorFactory:
    """A factory that imports `module` (and its SDK) the first time a connector is built."""

    def build(config: ConnectorConfig) -> Any:
        return getattr(importlib.import_module(module), name)(config)

    build.__qualname__ = build.__name__ = name
    return build


SLACK = ConnectorSpec(
    kind="slack",
    title="Slack",
    factory=_lazy("connectors.slack", "SlackConnector"),
    options=("channels", "base_url", "thread_lookback_days"),
    token_help="a bot (xoxb-) or user (xoxp-) token with channels:history, groups:history, "
    "im:history, mpim:history, channels:read, groups:read, users:read (users:read.email for e-mail)",
)
DISCORD = ConnectorSpec(
    kind="discord",
    title="Discord",
    factory=_lazy("connectors.discord", "DiscordConnector"),
    options=("guilds", "dm_users"),
    token_help="a bot token (Developer Portal > Bot) with the Message Content intent; invite the bot "
    "with View Channels and Read Message History",
)
TELEGRAM = ConnectorSpec(
    kind="telegram",
    title="Telegram",
    factory=_lazy("connectors.telegram", "TelegramConnector"),
    options=("chats", "base_url", "poll_timeout"),
    token_help="a bot token from @BotFather; add the bot to the chats "
    "(disable privacy mode in @BotFather so it sees every message)",
)


def default_registry() -> ConnectorRegistry:
    return ConnectorRegistry((SLACK, DISCORD, TELEGRAM))
