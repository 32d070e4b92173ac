"""The one place that lists the live connector kinds Strata ships."""

from __future__ import annotations

from connectors import discord, slack, telegram
from connectors.base import ConnectorRegistry


def default_registry() -> ConnectorRegistry:
    return ConnectorRegistry((slack.SPEC, discord.SPEC, telegram.SPEC))
