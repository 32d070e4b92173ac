"""A fake Discord REST API (behind FakeServer) and a minimal gateway (aiohttp websocket)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import WSMsgType, web

from tests.connectors.fake_http import FakeServer, Request, Response

TOKEN = "discord-test-token-abcdef"
GUILD = {"id": "1", "name": "Home"}
BOT = {"id": "900", "username": "strata-bot", "discriminator": "0", "avatar": None, "bot": True}
USERS = {
    "500": {"id": "500", "username": "erin", "global_name": "Erin", "discriminator": "0", "avatar": None},
    "501": {"id": "501", "username": "finn", "discriminator": "0", "avatar": None},
}


def message_payload(
    channel: str, mid: int, content: str, author: str = "500", **extra: Any
) -> dict[str, Any]:
    return {
        "id": str(mid),
        "channel_id": channel,
        "type": 0,
        "content": content,
        "author": USERS[author],
        "timestamp": f"2024-01-01T00:{mid // 60 % 60:02d}:{mid % 60:02d}+00:00",
        "edited_timestamp": None,
        "attachments": [],
        "embeds": [],
        "mentions": [],
        "mention_roles": [],
        "pinned": False,
        "mention_everyone": False,
        "tts": False,
        **extra,
    }


class FakeDiscord:
    def __init__(self) -> None:
        self.token = TOKEN
        self.channels = [
            {"id": "10", "type": 0, "name": "general", "guild_id": "1", "position": 0},
            {
                "id": "11",
                "type": 2,
                "name": "voice",
                "guild_id": "1",
                "position": 1,
                "bitrate": 64000,
                "user_limit": 0,
            },
            {"id": "12", "type": 0, "name": "secret", "guild_id": "1", "position": 2},
        ]
        self.threads = [
            {
                "id": "20",
                "type": 11,
                "name": "planning",
                "parent_id": "10",
                "guild_id": "1",
                "owner_id": "500",
                "message_count": 1,
                "member_count": 2,
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": "2024-01-01T00:00:00+00:00",
                    "locked": False,
                },
            }
        ]
        self.forbidden = {"12"}
        self.messages: dict[str, list[dict[str, Any]]] = {"10": [], "12": [], "20": []}
        # Archived threads (public type 11, private type 12), listed per parent channel.
        self.archived: list[dict[str, Any]] = []
        self.manage_threads = False  # may the bot list every private archived thread?
        self.joined: set[str] = set()  # private threads the bot is a member of
        self.dm_channels: dict[str, str] = {}  # user id -> DM channel id, as POST /users/@me/channels
        self.server = FakeServer(self.handle)

    @property
    def api_base(self) -> str:
        return self.server.url + "/api/v10"

    def archive_thread(self, tid: str, name: str, parent: str, *, private: bool = False, when: str) -> None:
        """An archived thread under `parent`; `when` is its archive_timestamp (ISO 8601)."""
        self.archived.append(
            {
                "id": tid,
                "type": 12 if private else 11,
                "name": name,
                "parent_id": parent,
                "guild_id": "1",
                "owner_id": "500",
                "message_count": 0,
                "member_count": 1,
                "thread_metadata": {
                    "archived": True,
                    "auto_archive_duration": 60,
                    "archive_timestamp": when,
                    "locked": False,
                },
            }
        )
        self.messages.setdefault(tid, [])

    def open_dm(self, user: str) -> str:
        channel = self.dm_channels.setdefault(user, str(7000 + int(user)))
        self.messages.setdefault(channel, [])
        return channel

    def post(self, channel: str, mid: int, content: str, **extra: Any) -> dict[str, Any]:
        payload = message_payload(channel, mid, content, **extra)
        self.messages[channel].append(payload)
        for thread in self.archived + self.threads:
            if thread["id"] == channel:
                thread["last_message_id"] = payload["id"]
        return payload

    def handle(self, req: Request) -> Response:
        if req.headers.get("Authorization") != f"Bot {self.token}":
            return Response(401, {"message": "401: Unauthorized", "code": 0})
        path = req.path.removeprefix("/api/v10")
        if path == "/users/@me":
            return Response(200, BOT)
        if path == "/oauth2/applications/@me":
            app = {
                "id": "900",
                "name": "Strata",
                "description": "",
                "icon": None,
                "bot_public": False,
                "bot_require_code_grant": False,
                "owner": USERS["500"],
                "verify_key": "k",
                "flags": 0,
            }
            return Response(200, app)
        if path == "/users/@me/guilds":
            return Response(200, [GUILD])
        if path == "/guilds/1/channels":
            return Response(200, self.channels)
        if path == "/guilds/1/threads/active":
            return Response(200, {"threads": self.threads, "members": []})
        if path == "/users/@me/channels" and req.method == "POST":
            user = str((req.json or {}).get("recipient_id"))
            if user not in USERS:
                return Response(400, {"message": "Invalid Recipient(s)", "code": 50033})
            dm = {"id": self.open_dm(user), "type": 1, "last_message_id": None, "recipients": [USERS[user]]}
            return Response(200, dm)
        if "/threads/archived/" in path:
            return self._archived_page(path, req.params)
        if path.startswith("/channels/") and path.endswith("/messages"):
            cid = path.split("/")[2]
            if cid in self.forbidden:
                return Response(403, {"message": "Missing Access", "code": 50001})
            return Response(200, self._history(cid, req.params))
        return Response(404, {"message": "404: Not Found", "code": 0})

    def _archived_page(self, path: str, params: dict[str, str]) -> Response:
        # /channels/{id}/threads/archived/{public|private}, /channels/{id}/users/@me/threads/archived/private
        cid = path.split("/")[2]
        if cid in self.forbidden:
            return Response(403, {"message": "Missing Access", "code": 50001})
        joined_only = "/users/@me/" in path
        private = path.endswith("/private")
        if private and not joined_only and not self.manage_threads:
            return Response(403, {"message": "Missing Permissions", "code": 50013})
        found = [
            t
            for t in self.archived
            if t["parent_id"] == cid
            and (t["type"] == 12) == private
            and (not joined_only or t["id"] in self.joined)
        ]
        # Newest archive first (by id for the joined list), paged with `before`.
        if joined_only:
            found.sort(key=lambda t: int(t["id"]), reverse=True)
            if params.get("before"):
                found = [t for t in found if int(t["id"]) < int(params["before"])]
        else:
            found.sort(key=lambda t: t["thread_metadata"]["archive_timestamp"], reverse=True)
            if params.get("before"):
                found = [t for t in found if t["thread_metadata"]["archive_timestamp"] < params["before"]]
        limit = int(params.get("limit") or 50)
        return Response(200, {"threads": found[:limit], "members": [], "has_more": len(found) > limit})

    def _history(self, cid: str, params: dict[str, str]) -> list[dict[str, Any]]:
        limit = int(params.get("limit") or 50)
        items = sorted(self.messages.get(cid, []), key=lambda m: int(m["id"]))
        if "after" in params:
            items = [m for m in items if int(m["id"]) > int(params["after"])][:limit]
        else:
            if "before" in params:
                items = [m for m in items if int(m["id"]) < int(params["before"])]
            items = items[-limit:]
        return list(reversed(items))  # Discord answers newest first


class FakeGateway:
    """Speaks just enough of the gateway: HELLO, heartbeat ACK, IDENTIFY -> READY + GUILD_CREATE."""

    def __init__(self, discord_fake: FakeDiscord) -> None:
        self.fake = discord_fake
        self.sockets: list[web.WebSocketResponse] = []
        self.identified = asyncio.Event()
        self.seq = 0
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._ws)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"ws://127.0.0.1:{port}/"

    async def stop(self) -> None:
        for ws in self.sockets:
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        for ws in self.sockets:
            await ws.send_str(json.dumps({"op": 0, "t": event, "s": self.seq, "d": data}))

    async def _ws(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.sockets.append(ws)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}}))
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            payload = json.loads(msg.data)
            if payload["op"] == 1:
                await ws.send_str(json.dumps({"op": 11}))
            elif payload["op"] == 2:
                assert payload["d"]["token"] == self.fake.token
                await self.dispatch("READY", self._ready())
                await self.dispatch("GUILD_CREATE", self._guild())
                self.identified.set()
        return ws

    def _ready(self) -> dict[str, Any]:
        return {
            "v": 10,
            "user": BOT,
            "guilds": [{"id": "1", "unavailable": True}],
            "session_id": "session-1",
            "resume_gateway_url": self.url,
            "application": {"id": "900", "flags": 0},
        }

    def _guild(self) -> dict[str, Any]:
        return {
            **GUILD,
            "owner_id": "500",
            "channels": [c for c in self.fake.channels],
            "threads": self.fake.threads,
            "members": [],
            "roles": [
                {
                    "id": "1",
                    "name": "@everyone",
                    "permissions": "0",
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                }
            ],
            "emojis": [],
            "stickers": [],
            "features": [],
            "member_count": 2,
            "large": False,
            "unavailable": False,
        }
