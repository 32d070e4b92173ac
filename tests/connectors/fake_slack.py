"""A fake Slack Web API (the few methods the connector uses) behind FakeServer."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tests.connectors.fake_http import FakeServer, Request, Response

TEAM = "T0TEAM"
TOKEN = "xoxb-test-token-1234"


class FakeSlack:
    def __init__(self) -> None:
        self.token = TOKEN
        self.users = [
            {"id": "U1", "name": "alice", "profile": {"display_name": "Alice", "email": "alice@example.com"}},
            {"id": "U2", "name": "bob", "real_name": "Bob Stone", "profile": {"real_name": "Bob Stone"}},
        ]
        self.channels = [
            {"id": "C1", "name": "general", "is_channel": True, "is_member": True},
            {"id": "C2", "name": "random", "is_channel": True, "is_member": False},
            {"id": "D1", "is_im": True, "user": "U2"},
        ]
        self.messages: dict[str, list[dict[str, Any]]] = {"C1": [], "C2": [], "D1": []}
        self.server = FakeServer(self.handle)

    def post(self, channel: str, ts: str, text: str, user: str = "U1", **extra: Any) -> dict[str, Any]:
        msg = {"type": "message", "ts": ts, "text": text, "user": user, **extra}
        self.messages[channel].append(msg)
        return msg

    def reply(self, channel: str, parent: str, ts: str, text: str, user: str = "U1") -> dict[str, Any]:
        """A reply in the thread of `parent` (which becomes a thread parent if it was not one)."""
        for m in self.messages[channel]:
            if m["ts"] == parent:
                m["thread_ts"] = parent
        return self.post(channel, ts, text, user=user, thread_ts=parent)

    def _with_replies(self, channel: str, message: dict[str, Any]) -> dict[str, Any]:
        replies = [
            m["ts"]
            for m in self.messages[channel]
            if m.get("thread_ts") == message["ts"] and m["ts"] != message["ts"]
        ]
        if not replies:
            return message
        latest = max(replies, key=Decimal)
        return {**message, "thread_ts": message["ts"], "reply_count": len(replies), "latest_reply": latest}

    def _page(self, items: list[Any], req: Request, key: str) -> Response:
        limit = int(req.params.get("limit") or 100)
        start = int(req.params.get("cursor") or 0)
        page = items[start : start + limit]
        nxt = str(start + limit) if start + limit < len(items) else ""
        return Response(
            200, {"ok": True, key: page, "has_more": bool(nxt), "response_metadata": {"next_cursor": nxt}}
        )

    def handle(self, req: Request) -> Response:
        auth = req.headers.get("Authorization", "")
        if auth != f"Bearer {self.token}":
            return Response(200, {"ok": False, "error": "token_revoked"})
        method = req.path.rsplit("/", 1)[-1]
        if method == "auth.test":
            return Response(
                200, {"ok": True, "team_id": TEAM, "team": "Acme", "user": "strata", "user_id": "UB"}
            )
        if method == "users.list":
            return self._page(self.users, req, "members")
        if method == "conversations.list":
            return self._page(self.channels, req, "channels")
        channel = req.params.get("channel", "")
        if channel not in self.messages:
            return Response(200, {"ok": False, "error": "channel_not_found"})
        if method == "conversations.history":
            # As Slack: top-level messages only, newest first, between `oldest` and `latest`
            # (exclusive unless `inclusive`), each thread parent carrying its reply summary.
            inclusive = req.params.get("inclusive") in ("true", "1", "True")
            oldest = Decimal(req.params.get("oldest") or 0)
            latest = Decimal(req.params["latest"]) if req.params.get("latest") else None

            def within(ts: Decimal) -> bool:
                above = ts >= oldest if inclusive else ts > oldest
                below = latest is None or (ts <= latest if inclusive else ts < latest)
                return above and below

            top = [
                self._with_replies(channel, m)
                for m in self.messages[channel]
                if within(Decimal(m["ts"])) and m.get("thread_ts", m["ts"]) == m["ts"]
            ]
            return self._page(sorted(top, key=lambda m: Decimal(m["ts"]), reverse=True), req, "messages")
        if method == "conversations.replies":
            # As Slack: the parent always comes first; `oldest` filters the replies after it.
            ts = req.params["ts"]
            oldest = Decimal(req.params.get("oldest") or 0)
            thread = [
                m
                for m in self.messages[channel]
                if m.get("thread_ts") == ts and (m["ts"] == ts or Decimal(m["ts"]) > oldest)
            ]
            return self._page(sorted(thread, key=lambda m: Decimal(m["ts"])), req, "messages")
        return Response(404, {"ok": False, "error": "unknown_method"})
