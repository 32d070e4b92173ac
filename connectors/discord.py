"""Discord live connector (discord.py): REST backfill of guild channels, threads and DMs with a bot token.

The gateway half (live messages while the app or `serve` runs) is `connectors/discord_live.py`;
both use `convert_message` below, so a message looks the same whichever way it arrived.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import partial
from typing import Any

import aiohttp
import discord
from discord.http import HTTPClient

from app.core.clock import datetime_to_ms
from app.core.domain import Attachment, RawMessage
from app.core.errors import (
    ConnectorAuthFailed,
    ConnectorError,
    ConnectorNotFound,
    ConnectorRateLimited,
    ConnectorUnavailable,
)
from connectors.aio import LoopRunner
from connectors.base import ConnectorConfig, ConnectorIdentity, FetchBatch
from connectors.discord_channels import ChannelDirectory, ChannelInfo
from connectors.ids import discord_message_id

__all__ = ["ChannelInfo", "DiscordConnector", "convert_message", "map_discord_error"]

PLATFORM = "discord"
PAGE_SIZE = 100
MESSAGE_TYPES = {0, 19, 21}  # default, reply, thread starter; joins, pins, boosts are not memories
# Below this discord.py waits out a 429 itself; above, it raises RateLimited to our RetryPolicy.
SDK_MAX_RATELIMIT_WAIT = 30.0


def map_discord_error(exc: Exception, what: str) -> ConnectorError:
    """Convert a discord.py (or aiohttp) error into Strata's connector error tree."""
    if isinstance(exc, discord.RateLimited):
        return ConnectorRateLimited(f"Discord rate-limited {what}", retry_after=exc.retry_after)
    if isinstance(exc, discord.LoginFailure) or (
        isinstance(exc, discord.HTTPException) and exc.status == 401
    ):
        return ConnectorAuthFailed(
            f"Discord rejected the bot token during {what}",
            hint="reset it in the Developer Portal and run `strata connectors add discord --token ...`",
        )
    if isinstance(exc, discord.Forbidden | discord.NotFound):
        return ConnectorNotFound(
            f"Discord {what}: {exc.text or exc.status}", hint="check the bot's channel access"
        )
    if isinstance(exc, discord.DiscordServerError):
        return ConnectorUnavailable(f"Discord is unavailable ({exc.status}) during {what}")
    if isinstance(exc, discord.HTTPException):
        if exc.status == 429:  # a 429 without Discord's headers: Cloudflare throttling
            return ConnectorRateLimited(f"Discord (edge) rate-limited {what}", retry_after=None)
        return ConnectorError(f"Discord {what} failed: {exc.status} {exc.text}")
    if isinstance(exc, aiohttp.ClientError | OSError | TimeoutError):
        return ConnectorUnavailable(f"cannot reach Discord during {what}: {type(exc).__name__}")
    return ConnectorError(f"Discord {what} failed: {type(exc).__name__}")


def author_name(author: dict[str, Any], member: dict[str, Any] | None = None) -> str:
    nick = (member or {}).get("nick")
    return str(nick or author.get("global_name") or author.get("username") or author.get("id") or "unknown")


def convert_message(data: dict[str, Any], channel: ChannelInfo) -> RawMessage | None:
    """A Discord message payload (REST or gateway) as a RawMessage; None for system messages."""
    if int(data.get("type", 0)) not in MESSAGE_TYPES:
        return None
    content = str(data.get("content") or "")
    for user in data.get("mentions") or []:
        name = "@" + author_name(user, user.get("member"))
        content = content.replace(f"<@{user['id']}>", name).replace(f"<@!{user['id']}>", name)
    attachments = tuple(
        Attachment(
            name=a.get("filename") or "file",
            url=a.get("url"),
            content_type=a.get("content_type"),
            size_bytes=a.get("size"),
        )
        for a in data.get("attachments") or []
    )
    embeds = [e.get("title") or e.get("description") or "" for e in data.get("embeds") or []]
    text = "\n".join(part for part in [content, *embeds] if part.strip())
    if not text and not attachments:
        return None
    author = data.get("author") or {}
    metadata: dict[str, Any] = {"channel_id": channel.id, "person_id": author.get("id")}
    if channel.guild:
        metadata.update(guild=channel.guild, guild_id=channel.guild_id)
    if channel.parent:
        metadata.update(thread_id=channel.id, parent_channel=channel.parent)
    if data.get("edited_timestamp"):
        metadata["edited"] = True
    reference = data.get("message_reference") or {}
    if reference.get("message_id"):
        ref_channel = reference.get("channel_id") or channel.id
        metadata["reply_to"] = discord_message_id(ref_channel, reference["message_id"])
    return RawMessage(
        platform=PLATFORM,
        message_id=discord_message_id(channel.id, data["id"]),
        channel=channel.name,
        person=author_name(author, data.get("member")),
        timestamp=datetime_to_ms(datetime.fromisoformat(str(data["timestamp"]))),
        content=text or ", ".join(a.name for a in attachments),
        bot_id=str(author["id"]) if author.get("bot") else None,
        attachments=attachments,
        metadata={k: v for k, v in metadata.items() if v is not None},
    )


class DiscordConnector:
    """REST backfill; the cursor is the newest stored message id (a snowflake) per channel."""

    kind = PLATFORM

    def __init__(self, config: ConnectorConfig) -> None:
        self.id = config.id
        self._token = config.token
        self._retry = config.retry
        guilds = config.options.get("guilds") or ()
        self._guilds = {str(g) for g in ([guilds] if isinstance(guilds, str | int) else guilds)}
        dm_users = config.options.get("dm_users") or ()
        self._dm_users = tuple(str(u) for u in ([dm_users] if isinstance(dm_users, str | int) else dm_users))

    def __repr__(self) -> str:
        return f"DiscordConnector(id={self.id!r})"

    def _call(self, runner: LoopRunner, what: str, make: Callable[[], Any]) -> Any:
        def once() -> Any:
            try:
                return runner.run(make())
            except Exception as exc:
                raise map_discord_error(exc, what) from exc

        return self._retry.call(once, what=f"discord {what}")

    def _open(self) -> tuple[LoopRunner, HTTPClient, Any]:
        runner = LoopRunner()
        http = runner.run(_make_http(SDK_MAX_RATELIMIT_WAIT))
        try:
            me = self._call(runner, "login", lambda: http.static_login(self._token))
        except BaseException:
            runner.run(http.close())
            runner.close()
            raise
        return runner, http, me

    def validate(self) -> ConnectorIdentity:
        runner, http, me = self._open()
        try:
            guilds = self._call(runner, "list guilds", lambda: http.get_guilds(200))
            return ConnectorIdentity(
                account=str(me.get("username")),
                details={"bot_id": me.get("id"), "guilds": [g["name"] for g in guilds]},
            )
        finally:
            runner.run(http.close())
            runner.close()

    def close(self) -> None:
        """Each fetch owns and closes its own HTTP session."""

    def fetch(self, since_cursor: str | None, *, limit: int | None = None) -> Iterator[FetchBatch]:
        progress: dict[str, str] = dict(json.loads(since_cursor).get("channels", {})) if since_cursor else {}
        runner, http, _ = self._open()
        directory = ChannelDirectory(
            lambda what, make: self._call(runner, what, make), http, self._guilds, self._dm_users
        )
        try:
            for channel in directory.channels():
                last = progress.get(channel.id)
                if last and channel.last_message_id and int(channel.last_message_id) <= int(last):
                    continue  # an (archived) thread with nothing after the cursor: no history call
                try:
                    yield from self._channel_batches(runner, http, channel, progress, limit)
                except ConnectorNotFound as exc:
                    # One unreadable channel (permissions changed, deleted) must not stop the rest.
                    yield FetchBatch(
                        (), json.dumps({"channels": progress}), warnings=(f"#{channel.name}: {exc}",)
                    )
            if directory.warnings:
                yield FetchBatch((), json.dumps({"channels": progress}), warnings=tuple(directory.warnings))
        finally:
            runner.run(http.close())
            runner.close()

    def _channel_batches(
        self,
        runner: LoopRunner,
        http: HTTPClient,
        channel: ChannelInfo,
        progress: dict[str, str],
        limit: int | None,
    ) -> Iterator[FetchBatch]:
        def pages() -> Iterator[list[dict[str, Any]]]:
            last = progress.get(channel.id)
            if last is None and limit is not None:
                # First backfill with a limit: walk back from the newest, then serve oldest first.
                collected: list[dict[str, Any]] = []
                before: str | None = None
                while len(collected) < limit:
                    size = min(PAGE_SIZE, limit - len(collected))
                    page = self._call(
                        runner,
                        "read history",
                        partial(http.logs_from, channel.id, size, before=before),
                    )
                    collected.extend(page)
                    if len(page) < size:
                        break
                    before = min((m["id"] for m in page), key=int)
                ordered = sorted(collected, key=lambda m: int(m["id"]))
                for start in range(0, len(ordered), PAGE_SIZE):
                    yield ordered[start : start + PAGE_SIZE]
                return
            # Incremental (or unlimited first) sync walks forward from the cursor: never skips.
            after = last or "0"
            while True:
                page = self._call(
                    runner, "read history", partial(http.logs_from, channel.id, PAGE_SIZE, after=after)
                )
                if not page:
                    return
                page = sorted(page, key=lambda m: int(m["id"]))
                yield page
                after = page[-1]["id"]
                if len(page) < PAGE_SIZE:
                    return

        for page in pages():
            messages = tuple(m for m in (convert_message(raw, channel) for raw in page) if m)
            progress[channel.id] = max(progress.get(channel.id, "0"), str(page[-1]["id"]), key=int)
            yield FetchBatch(messages, json.dumps({"channels": progress}, sort_keys=True))


async def _make_http(max_wait: float) -> HTTPClient:
    # HTTPClient must be created inside the loop it will run on.
    return HTTPClient(asyncio.get_running_loop(), max_ratelimit_timeout=max_wait)
