"""Which Discord channels a backfill reads: guild text channels, active and archived threads, DMs.

Archived threads are listed per text channel: public ones always, private ones when the bot
may (Manage Threads), else the private threads the bot has joined. A thread whose last
message is already behind the sync cursor is not re-read, so archives cost one listing call
per channel and sync, not one history call per thread. A bot cannot list its DMs
(`GET /users/@me/channels` answers an empty list to bots), so DMs come from the users named
in the `dm_users` option (the DM channel is opened, or found, with `POST /users/@me/channels`)
and, while the app runs, from the gateway.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from discord.http import HTTPClient

from app.core.errors import (
    ConnectorAuthFailed,
    ConnectorError,
    ConnectorNotFound,
    ConnectorRateLimited,
    ConnectorUnavailable,
)

TEXT_CHANNEL_TYPES = {0, 5}  # text, announcement
THREAD_TYPES = {10, 11, 12}
ARCHIVE_PARENT_TYPES = {0, 5, 15}  # threads live under text, announcement and forum channels
ARCHIVE_PAGE = 100
# (what, coroutine factory) → the SDK result, with errors mapped and retries applied
Call = Callable[[str, Callable[[], Any]], Any]


@dataclass(frozen=True, slots=True)
class ChannelInfo:
    id: str
    name: str
    guild: str | None = None
    guild_id: str | None = None
    parent: str | None = None  # a thread's parent channel name
    last_message_id: str | None = None  # when known, lets an up-to-date thread be skipped


@dataclass
class ChannelDirectory:
    """Lists what to read; `warnings` collects what could not be listed (the rest goes on)."""

    call: Call
    http: HTTPClient
    guilds: set[str]
    dm_users: tuple[str, ...] = ()
    warnings: list[str] = field(default_factory=list)

    def channels(self) -> Iterator[ChannelInfo]:
        for guild in self.call("list guilds", lambda: self.http.get_guilds(200)):
            gid, gname = str(guild["id"]), str(guild["name"])
            if self.guilds and not {gid, gname} & self.guilds:
                continue
            channels = self.call("list channels", partial(self.http.get_all_guild_channels, gid))
            names = {str(c["id"]): str(c.get("name")) for c in channels}
            texts = sorted(
                (c for c in channels if c.get("type") in TEXT_CHANNEL_TYPES), key=lambda c: int(c["id"])
            )
            for c in texts:
                yield ChannelInfo(str(c["id"]), str(c["name"]), gname, gid)
            seen: set[str] = set()
            active = self.call("list threads", partial(self.http.get_active_threads, gid))
            threads = list(active.get("threads") or [])
            parents = (c for c in channels if c.get("type") in ARCHIVE_PARENT_TYPES)
            for c in sorted(parents, key=lambda c: int(c["id"])):
                threads.extend(self._archived(str(c["id"]), str(c["name"])))
            for t in sorted(threads, key=lambda t: int(t["id"])):
                if t.get("type") in THREAD_TYPES and str(t["id"]) not in seen:
                    seen.add(str(t["id"]))
                    parent = names.get(str(t.get("parent_id"))) or "thread"
                    last = t.get("last_message_id")
                    yield ChannelInfo(
                        str(t["id"]), str(t["name"]), gname, gid, parent, str(last) if last else None
                    )
        yield from self._dms()

    def _archived(self, channel_id: str, name: str) -> list[dict[str, Any]]:
        public = self.http.get_public_archived_threads
        try:
            found = list(self._archive_pages("list archived threads", public, channel_id))
        except ConnectorNotFound:
            return []  # the channel itself is unreadable; reading its history will say so
        return found + self._private_archived(channel_id, name)

    def _private_archived(self, channel_id: str, name: str) -> list[dict[str, Any]]:
        private = self.http.get_private_archived_threads
        try:
            return list(self._archive_pages("list private archived threads", private, channel_id))
        except ConnectorNotFound:
            pass
        # Without Manage Threads the bot may still read the private threads it was added to.
        joined = self.http.get_joined_private_archived_threads
        try:
            return list(self._archive_pages("list joined private threads", joined, channel_id, by_id=True))
        except ConnectorNotFound as exc:
            self.warnings.append(f"#{name}: private archived threads not readable ({exc})")
            return []

    def _archive_pages(
        self, what: str, method: Callable[..., Any], channel_id: str, *, by_id: bool = False
    ) -> Iterator[dict[str, Any]]:
        before: str | None = None
        while True:
            page = self.call(what, partial(method, channel_id, before=before, limit=ARCHIVE_PAGE))
            threads = list(page.get("threads") or [])
            yield from threads
            if not page.get("has_more") or not threads:
                return
            # Public/private archives page by archive time; the joined list pages by thread id.
            last = threads[-1]
            before = (
                str(last["id"])
                if by_id
                else str((last.get("thread_metadata") or {}).get("archive_timestamp"))
            )

    def _dms(self) -> Iterator[ChannelInfo]:
        for user_id in self.dm_users:
            try:
                dm = self.call("open DM", partial(self.http.start_private_message, user_id))
            except (ConnectorAuthFailed, ConnectorRateLimited, ConnectorUnavailable):
                raise  # the whole run is affected, not this one DM
            except ConnectorError as exc:  # unknown user, DMs closed, no shared server
                self.warnings.append(f"DM with {user_id}: {exc}")
                continue
            recipients = dm.get("recipients") or [{}]
            who = recipients[0]
            name = who.get("global_name") or who.get("username") or user_id
            yield ChannelInfo(str(dm["id"]), f"dm:{name}")
