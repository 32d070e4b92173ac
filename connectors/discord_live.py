"""Discord gateway listener: live messages, edits and deletions while the app or `serve` runs."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

import discord

from app.core.domain import RawMessage
from connectors.discord import ChannelInfo, convert_message, map_discord_error
from connectors.ids import discord_message_id

log = logging.getLogger(__name__)
MessagesHandler = Callable[[Sequence[RawMessage]], object]
DeletionsHandler = Callable[[Sequence[str]], object]


class DiscordLiveListener:
    """Hands every new or edited message to `on_messages` (and deletions to `on_deleted`).

    Raw gateway payloads are converted with the same `convert_message` the REST backfill uses,
    so a message that arrives live and again through backfill is the same RawMessage (same id).
    The handlers run in a worker thread: storage is synchronous and must not stall the gateway.
    """

    def __init__(
        self, token: str, on_messages: MessagesHandler, on_deleted: DeletionsHandler | None = None
    ) -> None:
        self._token = token
        self._on_messages = on_messages
        self._on_deleted = on_deleted
        # dm_messages: DMs the bot is part of arrive here too (a bot cannot list its DMs over REST).
        intents = discord.Intents(guilds=True, guild_messages=True, dm_messages=True, message_content=True)
        # Debug events give us the raw payload dicts, which is what convert_message reads.
        self.client = discord.Client(intents=intents, enable_debug_events=True)
        self.client.event(self.on_socket_raw_receive)
        self.ready = threading.Event()
        self.client.event(self.on_ready)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.error: Exception | None = None

    def __repr__(self) -> str:
        return "DiscordLiveListener(token='***')"

    async def on_ready(self) -> None:
        self.ready.set()

    async def on_socket_raw_receive(self, raw: str | bytes) -> None:
        text = raw.decode() if isinstance(raw, bytes) else raw
        if '"MESSAGE_' not in text:
            return  # most gateway traffic is presence/typing; skip parsing it
        event = json.loads(text)
        kind, data = event.get("t"), event.get("d") or {}
        loop = asyncio.get_running_loop()
        if kind in ("MESSAGE_CREATE", "MESSAGE_UPDATE") and "author" in data and "content" in data:
            message = convert_message(data, self._channel(str(data["channel_id"]), data))
            if message is not None:
                await loop.run_in_executor(None, self._on_messages, [message])
        elif kind == "MESSAGE_DELETE" and self._on_deleted is not None:
            deleted = [discord_message_id(data["channel_id"], data["id"])]
            await loop.run_in_executor(None, self._on_deleted, deleted)

    def _channel(self, channel_id: str, data: dict[str, Any]) -> ChannelInfo:
        channel: Any = self.client.get_channel(int(channel_id))
        if "guild_id" not in data and not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            return ChannelInfo(channel_id, f"dm:{self._dm_partner(channel, data)}")
        if channel is None:
            return ChannelInfo(channel_id, channel_id)
        guild = getattr(channel, "guild", None)
        parent = channel.parent.name if isinstance(channel, discord.Thread) and channel.parent else None
        if isinstance(channel, discord.Thread) and parent is None:
            parent = "thread"
        return ChannelInfo(
            channel_id,
            str(getattr(channel, "name", channel_id)),
            guild.name if guild else None,
            str(guild.id) if guild else None,
            parent,
        )

    def _dm_partner(self, channel: Any, data: dict[str, Any]) -> str:
        """The other person of a DM, named as the REST backfill names it (`dm:<name>`)."""
        recipient = getattr(channel, "recipient", None)
        if recipient is not None:
            return str(recipient.global_name or recipient.name)
        author = data.get("author") or {}
        me = self.client.user
        if me is None or str(author.get("id")) != str(me.id):
            return str(author.get("global_name") or author.get("username") or author.get("id"))
        return str(data["channel_id"])  # our own message in a DM we know nothing else about

    async def run(self) -> None:
        """Connect and listen until `stop()`; reconnects are discord.py's job."""
        self._loop = asyncio.get_running_loop()
        try:
            await self.client.start(self._token, reconnect=True)
        except Exception as exc:
            self.error = map_discord_error(exc, "gateway")
            raise self.error from exc

    async def stop(self) -> None:
        await self.client.close()

    def start_in_thread(self) -> threading.Thread:
        """Run the gateway on its own loop in a daemon thread (the app / `serve` host)."""

        def main() -> None:
            try:
                asyncio.run(self.run())
            except Exception:
                log.warning("discord gateway stopped: %s", self.error)

        self._thread = threading.Thread(target=main, name="discord-gateway", daemon=True)
        self._thread.start()
        return self._thread

    def stop_thread(self, timeout: float = 10.0) -> None:
        """Close the gateway from another thread and wait for its thread to end."""
        loop = self._loop
        if loop is not None and loop.is_running():
            future = asyncio.run_coroutine_threadsafe(self.stop(), loop)
            # Closing ends `run()`, and asyncio.run then cancels what is left, possibly this very
            # call: a cancelled or slow close still means "stopping", so wait on the thread instead.
            with contextlib.suppress(concurrent.futures.CancelledError, concurrent.futures.TimeoutError):
                future.result(timeout)
        if self._thread is not None:
            self._thread.join(timeout)
