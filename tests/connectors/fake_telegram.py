"""A fake Telegram Bot API (getMe, getUpdates) behind FakeServer."""

from __future__ import annotations

from typing import Any

from tests.connectors.fake_http import FakeServer, Request, Response

TOKEN = "123456:telegram-test-token"
GROUP = -1001234567890


class FakeTelegram:
    def __init__(self) -> None:
        self.token = TOKEN
        self.updates: list[dict[str, Any]] = []
        self.confirmed_offset = 0
        self.server = FakeServer(self.handle)

    @property
    def base_url(self) -> str:
        return self.server.url + "/bot"

    def add_message(
        self,
        message_id: int,
        text: str,
        *,
        chat: int = GROUP,
        edited: bool = False,
        basic_group: str | None = None,
        date: int | None = None,
        **extra: Any,
    ):
        if basic_group is not None:  # a basic group: Bot API type "group", id -<id>
            chat_obj = {"id": chat, "type": "group", "title": basic_group}
        elif chat < 0:
            chat_obj = {"id": chat, "type": "supergroup", "title": "Book club"}
        else:
            chat_obj = {"id": chat, "type": "private", "first_name": "Dana"}
        message = {
            "message_id": message_id,
            "date": date if date is not None else 1700000000 + message_id,
            "chat": chat_obj,
            "from": {"id": 42, "is_bot": False, "first_name": "Dana", "last_name": "Lee", "username": "dana"},
            "text": text,
            **extra,
        }
        if edited:
            message["edit_date"] = message["date"] + 60
        update_id = 1000 + len(self.updates)
        self.updates.append({"update_id": update_id, "edited_message" if edited else "message": message})

    def handle(self, req: Request) -> Response:
        prefix = f"/bot{self.token}/"
        if not req.path.startswith(prefix):
            return Response(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
        method = req.path[len(prefix) :]
        if method == "getMe":
            me = {"id": 777, "is_bot": True, "first_name": "Strata", "username": "strata_bot"}
            return Response(200, {"ok": True, "result": me})
        if method == "getUpdates":
            offset = int(req.params.get("offset") or 0)
            limit = int(req.params.get("limit") or 100)
            # Like Telegram: passing an offset confirms (forgets) every earlier update.
            self.confirmed_offset = max(self.confirmed_offset, offset)
            pending = [u for u in self.updates if u["update_id"] >= self.confirmed_offset]
            return Response(200, {"ok": True, "result": pending[:limit]})
        if method in ("close", "logOut", "deleteWebhook"):
            return Response(200, {"ok": True, "result": True})
        return Response(404, {"ok": False, "error_code": 404, "description": "Not Found"})
