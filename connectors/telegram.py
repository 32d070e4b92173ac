"""Telegram live connector (python-telegram-bot): getUpdates long polling from chats the bot is in.

Bots cannot read chat history; history comes from the Telegram Desktop export importer, which
writes the same `telegram:<chat>:<id>` ids (connectors/ids.py), so the two never duplicate.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

from telegram import Bot, Message, Update
from telegram import error as tg

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
from connectors.ids import telegram_message_id, telegram_twin_key

PLATFORM = "telegram"
PAGE_SIZE = 100
UPDATE_TYPES = ("message", "edited_message", "channel_post", "edited_channel_post")


def map_telegram_error(exc: Exception, what: str) -> ConnectorError:
    """Convert a python-telegram-bot error into Strata's connector error tree."""
    if isinstance(exc, tg.RetryAfter):
        with warnings.catch_warnings():
            # PTB 22 warns that the type will become timedelta; both are handled below.
            warnings.simplefilter("ignore")
            wait = exc.retry_after
        seconds = wait if isinstance(wait, int | float) else wait.total_seconds()
        return ConnectorRateLimited(f"Telegram flood control during {what}", retry_after=float(seconds))
    if isinstance(exc, tg.InvalidToken | tg.Forbidden):
        return ConnectorAuthFailed(
            f"Telegram rejected the bot token during {what}",
            hint="get a new token from @BotFather and run `strata connectors add telegram --token ...`",
        )
    if isinstance(exc, tg.ChatMigrated):
        return ConnectorNotFound(f"Telegram chat moved to {exc.new_chat_id} during {what}")
    if isinstance(exc, tg.BadRequest):
        if "not found" in exc.message.lower():
            return ConnectorNotFound(f"Telegram {what}: {exc.message}")
        return ConnectorError(f"Telegram {what} failed: {exc.message}")
    if isinstance(exc, tg.Conflict):
        return ConnectorError(
            f"Telegram refused {what}: {exc.message}",
            hint="another program polls this bot or a webhook is set; stop it or delete the webhook",
        )
    if isinstance(exc, tg.NetworkError | OSError | TimeoutError):
        return ConnectorUnavailable(f"Telegram is unreachable or failing during {what}: {exc}")
    return ConnectorError(f"Telegram {what} failed: {type(exc).__name__}")


class TelegramConnector:
    """The cursor is the next getUpdates offset; Telegram forgets updates only once we pass it."""

    kind = PLATFORM

    def __init__(self, config: ConnectorConfig) -> None:
        self.id = config.id
        self._token = config.token
        self._retry = config.retry
        self._base_url = config.options.get("base_url") or "https://api.telegram.org/bot"
        self._poll_timeout = int(config.options.get("poll_timeout") or 0)
        chats = config.options.get("chats") or ()
        self._chats = {str(c) for c in ([chats] if isinstance(chats, str | int) else chats)}

    def __repr__(self) -> str:
        return f"TelegramConnector(id={self.id!r})"

    def _bot(self) -> Bot:
        return Bot(self._token, base_url=self._base_url)

    def _call(self, runner: LoopRunner, what: str, make: Any) -> Any:
        def once() -> Any:
            try:
                return runner.run(make())
            except Exception as exc:
                raise map_telegram_error(exc, what) from exc

        return self._retry.call(once, what=f"telegram {what}")

    def validate(self) -> ConnectorIdentity:
        runner = LoopRunner()
        bot = self._bot()
        try:
            me = self._call(runner, "getMe", bot.get_me)
            return ConnectorIdentity(
                account=f"@{me.username}", details={"bot_id": me.id, "name": me.full_name}
            )
        finally:
            runner.close()

    def close(self) -> None:
        """Each fetch owns and closes its own HTTP session."""

    def fetch(self, since_cursor: str | None, *, limit: int | None = None) -> Iterator[FetchBatch]:
        offset = int(json.loads(since_cursor)["offset"]) if since_cursor else None
        runner = LoopRunner()
        bot = self._bot()
        try:
            self._call(runner, "getMe", bot.initialize)
            seen = 0
            timeout = self._poll_timeout
            while limit is None or seen < limit:
                page = min(PAGE_SIZE, limit - seen) if limit is not None else PAGE_SIZE
                updates: tuple[Update, ...] = self._call(
                    runner,
                    "getUpdates",
                    lambda o=offset, p=page, t=timeout: bot.get_updates(
                        offset=o, limit=p, timeout=t, allowed_updates=list(UPDATE_TYPES), read_timeout=t + 10
                    ),
                )
                if not updates:
                    return
                # Long-poll once; afterwards drain what is queued without waiting.
                timeout = 0
                offset = updates[-1].update_id + 1
                messages = tuple(m for m in (self._convert(u) for u in updates) if m)
                seen += len(updates)
                yield FetchBatch(messages, json.dumps({"offset": offset}))
        finally:
            try:
                runner.run(bot.shutdown())
            finally:
                runner.close()

    def _convert(self, update: Update) -> RawMessage | None:
        msg: Message | None = (
            update.message or update.edited_message or update.channel_post or update.edited_channel_post
        )
        if msg is None or (self._chats and not {str(msg.chat.id), msg.chat.username or ""} & self._chats):
            return None
        attachments = _attachments(msg)
        text = msg.text or msg.caption or ""
        if not text.strip() and not attachments:
            return None
        chat = msg.chat
        if msg.from_user is not None:
            person, person_id = msg.from_user.full_name, msg.from_user.id
        else:
            person, person_id = (msg.sender_chat or chat).title or str(chat.id), (msg.sender_chat or chat).id
        channel = chat.title or (f"dm:{chat.full_name}" if chat.full_name else str(chat.id))
        metadata: dict[str, Any] = {"chat_id": chat.id, "channel_id": chat.id, "person_id": person_id}
        if msg.from_user is not None and msg.from_user.username:
            metadata["username"] = msg.from_user.username
        if msg.reply_to_message is not None:
            metadata["reply_to"] = telegram_message_id(chat.id, msg.reply_to_message.message_id)
        if msg.message_thread_id:
            metadata["thread_id"] = msg.message_thread_id
        if msg.edit_date is not None:
            metadata["edited"] = True
        # Private chats and basic groups: the export numbers this message differently (connectors/ids.py).
        twin = telegram_twin_key(
            str(chat.type),
            chat.id,
            int(msg.date.timestamp()),
            msg.from_user.id if msg.from_user is not None else None,
            text,
        )
        if twin:
            metadata["twin_key"] = twin
        return RawMessage(
            platform=PLATFORM,
            message_id=telegram_message_id(chat.id, msg.message_id),
            channel=channel,
            person=person,
            timestamp=datetime_to_ms(msg.date),
            content=text or ", ".join(a.name for a in attachments),
            bot_id=str(msg.from_user.id) if msg.from_user is not None and msg.from_user.is_bot else None,
            attachments=attachments,
            metadata=metadata,
        )


def _attachments(msg: Message) -> tuple[Attachment, ...]:
    found: list[Attachment] = []
    if msg.photo:
        biggest = msg.photo[-1]
        found.append(Attachment(name="photo", content_type="image/jpeg", size_bytes=biggest.file_size))
    for media, kind in (
        (msg.document, "document"),
        (msg.video, "video"),
        (msg.audio, "audio"),
        (msg.voice, "voice"),
    ):
        if media is not None:
            name = getattr(media, "file_name", None) or kind
            found.append(Attachment(name=name, content_type=media.mime_type, size_bytes=media.file_size))
    if msg.sticker is not None:
        found.append(Attachment(name=f"sticker {msg.sticker.emoji or ''}".strip(), content_type="image/webp"))
    return tuple(found)
