"""Slack live connector (slack-sdk WebClient): channels, history, thread replies, users, edits, files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from app.core.domain import Attachment, RawMessage
from app.core.errors import (
    ConnectorAuthFailed,
    ConnectorError,
    ConnectorNotFound,
    ConnectorRateLimited,
    ConnectorUnavailable,
)
from connectors.base import ConnectorConfig, ConnectorIdentity, FetchBatch
from connectors.ids import slack_message_id
from connectors.slack_markup import render_markup

PLATFORM = "slack"
BATCH_SIZE = 200
PAGE_SIZE = 200
# Replies can arrive in threads whose parent is older than the sync cursor. Each incremental
# sync re-reads this many days of history before the cursor (parents only, a few pages) and
# fetches the replies of every thread whose `latest_reply` is newer than the cursor.
THREAD_LOOKBACK_DAYS = 14.0
AUTH_ERRORS = {
    "invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive",
    "missing_scope", "no_permission", "not_allowed_token_type",
}  # fmt: skip
NOT_FOUND_ERRORS = {"channel_not_found", "not_in_channel", "thread_not_found", "user_not_found"}
# Membership and housekeeping events are not memories.
SKIPPED_SUBTYPES = {
    "channel_join", "channel_leave", "channel_topic", "channel_purpose", "channel_name",
    "channel_archive", "channel_unarchive", "group_join", "group_leave", "bot_add", "bot_remove",
}  # fmt: skip


def map_slack_error(exc: Exception, what: str) -> ConnectorError:
    """Convert a slack-sdk (or network) error into Strata's connector error tree."""
    if isinstance(exc, SlackApiError):
        status = getattr(exc.response, "status_code", None)
        data = exc.response.data if isinstance(exc.response.data, dict) else {}
        error = str(data.get("error", ""))
        if status == 429 or error == "ratelimited":
            raw = exc.response.headers.get("Retry-After") or exc.response.headers.get("retry-after")
            retry_after = float(raw) if raw is not None else None
            return ConnectorRateLimited(f"Slack rate-limited {what}", retry_after=retry_after)
        if error in AUTH_ERRORS or status in (401, 403):
            return ConnectorAuthFailed(
                f"Slack rejected the token during {what} ({error or status})",
                hint="create a new token and run `strata connectors add slack --token ...`",
            )
        if error in NOT_FOUND_ERRORS or status == 404:
            return ConnectorNotFound(
                f"Slack {what}: {error or 'not found'}", hint="invite the app to the channel"
            )
        if status is not None and status >= 500:
            return ConnectorUnavailable(
                f"Slack is unavailable ({status}) during {what}", hint="try again later"
            )
        return ConnectorError(f"Slack {what} failed: {error or status}")
    if isinstance(exc, (SlackClientError, OSError, TimeoutError)):
        return ConnectorUnavailable(f"cannot reach Slack during {what}: {type(exc).__name__}")
    return ConnectorError(f"Slack {what} failed: {type(exc).__name__}")


def ts_to_ms(ts: str) -> int:
    try:
        return int(Decimal(ts) * 1000)
    except InvalidOperation:
        return 0


class SlackConnector:
    """Reads every conversation the token can see; the cursor is the newest stored ts per channel."""

    kind = PLATFORM

    def __init__(self, config: ConnectorConfig, *, client: WebClient | None = None) -> None:
        self.id = config.id
        self._retry = config.retry
        opts = config.options
        self._client = client or WebClient(
            token=config.token,
            base_url=opts.get("base_url") or WebClient.BASE_URL,
            timeout=30,
            # Our RetryPolicy owns retries (with jitter and a cap); no second layer inside the SDK.
            retry_handlers=[],
        )
        wanted = opts.get("channels") or ()
        self._wanted = {str(c).lstrip("#") for c in ([wanted] if isinstance(wanted, str) else wanted)}
        self._team: str | None = None
        self._users: dict[str, dict[str, Any]] = {}
        self._lookback = Decimal(str(opts.get("thread_lookback_days", THREAD_LOOKBACK_DAYS))) * 86400

    def __repr__(self) -> str:
        return f"SlackConnector(id={self.id!r})"

    def _call(self, method: str, **kwargs: Any) -> dict[str, Any]:
        def once() -> dict[str, Any]:
            try:
                return dict(self._client.api_call(method, params=kwargs).data)  # type: ignore[arg-type]
            except Exception as exc:
                raise map_slack_error(exc, method) from exc

        return self._retry.call(once, what=f"slack {method}")

    def _paged(self, method: str, key: str, **kwargs: Any) -> Iterator[dict[str, Any]]:
        cursor = ""
        while True:
            data = self._call(method, **kwargs, **({"cursor": cursor} if cursor else {}))
            yield from data.get(key) or []
            cursor = (data.get("response_metadata") or {}).get("next_cursor") or ""
            if not cursor:
                return

    def validate(self) -> ConnectorIdentity:
        data = self._call("auth.test")
        self._team = str(data.get("team_id") or "")
        return ConnectorIdentity(
            account=str(data.get("user") or data.get("user_id") or ""),
            workspace=str(data.get("team") or self._team),
            details={"team_id": self._team, "url": data.get("url")},
        )

    def close(self) -> None:
        """WebClient holds no open connections between calls."""

    # -- fetching -------------------------------------------------------------------------------

    def fetch(self, since_cursor: str | None, *, limit: int | None = None) -> Iterator[FetchBatch]:
        if self._team is None:
            self.validate()
        progress: dict[str, str] = dict(json.loads(since_cursor).get("channels", {})) if since_cursor else {}
        self._users = {u["id"]: u for u in self._paged("users.list", "members", limit=PAGE_SIZE)}
        for channel in self._channels():
            cid = channel["id"]
            name = self._channel_name(channel)
            items, deleted, newest = self._channel_items(cid, progress.get(cid), limit)
            for start in range(0, max(len(items), 1 if (deleted or newest) else 0), BATCH_SIZE):
                chunk = items[start : start + BATCH_SIZE]
                messages = tuple(m for m in (self._convert(cid, name, raw) for raw in chunk) if m)
                if chunk:
                    progress[cid] = max(progress.get(cid, "0"), chunk[-1]["ts"], key=Decimal)
                if start + BATCH_SIZE >= len(items) and newest:
                    # Last batch of the channel: also step over edit/delete events seen in history.
                    progress[cid] = max(progress.get(cid, "0"), newest, key=Decimal)
                batch_deleted = tuple(deleted) if start == 0 else ()
                yield FetchBatch(messages, json.dumps({"channels": progress}, sort_keys=True), batch_deleted)

    def _channels(self) -> Iterator[dict[str, Any]]:
        types = "public_channel,private_channel,mpim,im"
        for channel in self._paged("conversations.list", "channels", types=types, limit=PAGE_SIZE):
            if channel.get("is_archived"):
                continue
            # A bot token only reads public channels it was invited to; DMs/private ones are listed
            # only when readable, so is_member is the test for public channels alone.
            if channel.get("is_channel") and not channel.get("is_private") and not channel.get("is_member"):
                continue
            if self._wanted and not ({channel["id"], channel.get("name")} & self._wanted):
                continue
            yield channel

    def _channel_items(
        self, cid: str, oldest: str | None, limit: int | None
    ) -> tuple[list[dict[str, Any]], list[str], str | None]:
        """All new messages and thread replies of one channel, oldest first, plus deletions."""
        args: dict[str, Any] = {"channel": cid, "limit": PAGE_SIZE}
        if oldest:
            args.update(oldest=oldest, inclusive=False)
        history: list[dict[str, Any]] = []
        for raw in self._paged("conversations.history", "messages", **args):
            history.append(raw)
            # A first backfill takes the newest `limit` messages (history comes newest first);
            # an incremental run must never stop half-way or older unseen messages would be skipped.
            if oldest is None and limit is not None and len(history) >= limit:
                break
        items: dict[str, dict[str, Any]] = {}
        deleted: list[str] = []
        for raw in history:
            self._collect(cid, raw, items, deleted)
            if raw.get("reply_count") and raw.get("thread_ts") == raw.get("ts"):
                replies = self._paged(
                    "conversations.replies", "messages", channel=cid, ts=raw["ts"], limit=PAGE_SIZE
                )
                for reply in replies:
                    if reply.get("ts") != raw["ts"]:
                        self._collect(cid, reply, items, deleted)
        if oldest:
            for parent in self._threads_with_new_replies(cid, oldest):
                replies = self._paged(
                    "conversations.replies",
                    "messages",
                    channel=cid,
                    ts=parent,
                    oldest=oldest,
                    limit=PAGE_SIZE,
                )
                for reply in replies:
                    if reply.get("ts") != parent and Decimal(reply.get("ts") or 0) > Decimal(oldest):
                        self._collect(cid, reply, items, deleted)
        newest = max((raw["ts"] for raw in history if "ts" in raw), key=Decimal, default=None)
        return sorted(items.values(), key=lambda m: Decimal(m["ts"])), deleted, newest

    def _threads_with_new_replies(self, cid: str, cursor: str) -> list[str]:
        """Parents at or before the cursor (within the look-back) whose latest reply is newer."""
        if self._lookback <= 0:
            return []
        start = max(Decimal(cursor) - self._lookback, Decimal(0))
        window = self._paged(
            "conversations.history",
            "messages",
            channel=cid,
            oldest=str(start),
            latest=cursor,
            inclusive="true",
            limit=PAGE_SIZE,
        )
        return [
            str(raw["ts"])
            for raw in window
            if raw.get("reply_count")
            and raw.get("thread_ts") == raw.get("ts")
            and Decimal(str(raw.get("latest_reply") or 0)) > Decimal(cursor)
        ]

    def _collect(
        self, cid: str, raw: dict[str, Any], items: dict[str, dict[str, Any]], deleted: list[str]
    ) -> None:
        subtype = raw.get("subtype")
        if subtype == "message_deleted":
            deleted.append(slack_message_id(self._team or "", cid, str(raw.get("deleted_ts"))))
        elif subtype == "message_changed" and isinstance(raw.get("message"), dict):
            edited = dict(raw["message"], _edited=True)
            items[edited["ts"]] = edited
        elif subtype not in SKIPPED_SUBTYPES and "ts" in raw:
            items.setdefault(raw["ts"], raw)

    def _channel_name(self, channel: dict[str, Any]) -> str:
        if channel.get("is_im"):
            return f"dm:{self._person(channel.get('user'))}"
        return str(channel.get("name") or channel["id"])

    def _person(self, user_id: str | None, fallback: str | None = None) -> str:
        user = self._users.get(user_id or "")
        if not user:
            return fallback or user_id or "unknown"
        profile = user.get("profile") or {}
        return str(
            profile.get("display_name") or profile.get("real_name") or user.get("real_name") or user["name"]
        )

    def _text(self, text: str) -> str:
        # The export importer renders with the same function: sync and import store equal text.
        return render_markup(text, self._person)

    def _convert(self, cid: str, channel: str, raw: dict[str, Any]) -> RawMessage | None:
        files = tuple(
            Attachment(
                name=str(f.get("name") or f.get("title") or f.get("id") or "file"),
                url=f.get("url_private") or f.get("permalink"),
                content_type=f.get("mimetype"),
                size_bytes=f.get("size"),
            )
            for f in raw.get("files") or []
            if f.get("mode") != "tombstone"
        )
        text = self._text(str(raw.get("text") or ""))
        if not text.strip() and not files:
            return None
        user_id = raw.get("user")
        person = self._person(user_id, raw.get("username") or (raw.get("bot_profile") or {}).get("name"))
        email = ((self._users.get(user_id or "") or {}).get("profile") or {}).get("email")
        metadata: dict[str, Any] = {
            "team": self._team,
            "channel_id": cid,
            "person_id": user_id or raw.get("bot_id"),
        }
        if raw.get("thread_ts"):
            metadata["thread_id"] = raw["thread_ts"]
        if raw.get("_edited") or raw.get("edited"):
            metadata["edited"] = True
        if email:
            metadata["email"] = email
        return RawMessage(
            platform=PLATFORM,
            message_id=slack_message_id(self._team or "", cid, raw["ts"]),
            channel=channel,
            person=person,
            timestamp=ts_to_ms(raw["ts"]),
            content=text or ", ".join(a.name for a in files),
            bot_id=raw.get("bot_id"),
            attachments=files,
            metadata={k: v for k, v in metadata.items() if v is not None},
        )
