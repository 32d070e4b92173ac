"""Slack workspace export (zip or unpacked folder) → RawMessage, one day file at a time.

Layout: `users.json`, `channels.json` (+ `groups.json`, `mpims.json`, `dms.json` in exports
that include private conversations), and a folder per conversation holding `YYYY-MM-DD.json`
lists of messages. Ids are `slack:<team>:<channel id>:<ts>`, the live connector's format.
The team id is the workspace's, from `team_id` in users.json (as the live connector uses
auth.test's team, not a shared channel sender's `team`); an export
without one gets `E` + the first 10 hex digits of sha1 over its sorted conversation ids, which is
stable across re-imports of the same workspace but cannot match a live sync's ids.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from app.core.domain import Attachment, RawMessage
from app.core.errors import InvalidInput
from connectors import slack_markup
from connectors.ids import slack_message_id
from connectors.importers.base import ImportLog, describe, malformed, nonempty, require_exists

PLATFORM = "slack"
_CONVERSATION_FILES = ("channels.json", "groups.json", "mpims.json", "dms.json")
_DAY_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}\.json$")
# Deleted thread parents and similar placeholders carry no user content.
_SKIPPED_SUBTYPES = {"tombstone", "message_deleted"}


def ts_to_ms(ts: str) -> int:
    """Slack's `ts` ("1600000000.000100") to Unix ms without float rounding."""
    seconds, _, fraction = str(ts).partition(".")
    return int(seconds) * 1000 + int((fraction + "000")[:3])


class _Export:
    """Uniform read access to a zip or an unpacked export folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._zip: zipfile.ZipFile | None = None
        self._prefix = ""
        if path.is_dir():
            self.names = sorted(p.relative_to(path).as_posix() for p in path.rglob("*.json"))
        else:
            try:
                self._zip = zipfile.ZipFile(path)
                self.names = sorted(n for n in self._zip.namelist() if n.endswith(".json"))
            except (zipfile.BadZipFile, OSError) as exc:
                raise malformed(
                    path.name, None, f"is not a readable zip file ({exc}); it may be truncated"
                ) from exc
        # Some tools zip the export folder itself; find where users.json lives.
        anchors = [n for n in self.names if PurePosixPath(n).name in ("users.json", "channels.json")]
        if anchors:
            self._prefix = str(PurePosixPath(min(anchors, key=len)).parent).removeprefix(".")
            self._prefix = f"{self._prefix}/" if self._prefix else ""

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()

    def has(self, name: str) -> bool:
        return self._prefix + name in self.names

    def day_files(self, folder: str) -> list[str]:
        start = f"{self._prefix}{folder}/"
        return [
            n[len(self._prefix) :]
            for n in self.names
            if n.startswith(start) and _DAY_FILE.match(n[len(start) :])
        ]

    def load(self, name: str) -> Any:
        full = self._prefix + name
        try:
            data = self._zip.read(full) if self._zip is not None else (self.path / full).read_bytes()
        except (zipfile.BadZipFile, OSError, EOFError, zipfile.LargeZipFile) as exc:
            raise malformed(
                self.path.name, name, f"cannot be read ({exc}); the zip may be truncated"
            ) from exc
        except zlib.error as exc:  # a corrupt deflate stream inside an otherwise listed member
            raise malformed(self.path.name, name, f"cannot be decompressed ({exc})") from exc
        try:
            return json.loads(data.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise malformed(self.path.name, f"{name} line {line}", "is not valid UTF-8") from exc
        except json.JSONDecodeError as exc:
            raise malformed(self.path.name, f"{name} line {exc.lineno}", f"invalid JSON: {exc.msg}") from exc


class SlackExportImporter:
    """Streams a Slack workspace export; only one day file is in memory at a time."""

    format = "slack"

    def messages(self, path: Path, log: ImportLog) -> Iterator[RawMessage]:
        require_exists(path)
        export = _Export(path)
        try:
            yield from self._read(export, log)
        finally:
            export.close()

    def _read(self, export: _Export, log: ImportLog) -> Iterator[RawMessage]:
        source = export.path.name
        if not export.has("users.json") and not export.has("channels.json"):
            raise malformed(source, None, "is not a Slack export: no users.json or channels.json inside")
        users = self._users(export, source) if export.has("users.json") else {}
        conversations: list[dict[str, Any]] = []
        for name in _CONVERSATION_FILES:
            if export.has(name):
                listed = export.load(name)
                if not isinstance(listed, list):
                    raise malformed(source, name, "wrong JSON shape: expected a list of conversations")
                for i, conv in enumerate(listed):
                    if not isinstance(conv, dict) or "id" not in conv:
                        log.reject(
                            source,
                            None,
                            "wrong shape: a conversation needs an 'id'; its messages were skipped",
                            entry=f"{name} entry {i + 1}",
                        )
                        continue
                    conversations.append(conv)
        team = self._team(export, users, conversations, log)
        for conv in conversations:
            # Channels, private channels and group DMs (mpdm-…) are folders by name; DMs (no name) by id.
            folder = str(conv.get("name") or conv["id"])
            channel = str(conv.get("name") or _dm_name(conv, users))
            for day in export.day_files(folder):
                # A day file is its own JSON document: a broken one is skipped, the others import.
                try:
                    entries = export.load(day)
                except InvalidInput as exc:
                    log.reject_located(f"{exc.args[0]}; the day's messages were skipped")
                    continue
                if not isinstance(entries, list):
                    log.reject(
                        source, None, "wrong JSON shape: a day file must be a list of messages", entry=day
                    )
                    continue
                for i, raw in enumerate(entries):
                    where = f"{day} entry {i + 1}"
                    if not isinstance(raw, dict) or "ts" not in raw:
                        log.reject(source, None, "wrong shape: a message needs a 'ts'; skipped", entry=where)
                        continue
                    try:
                        message = self._message(raw, team, str(conv["id"]), channel, users, log)
                    except (KeyError, TypeError, ValueError, AttributeError) as exc:
                        log.reject(
                            source, None, f"unreadable message ({describe(exc)}); skipped", entry=where
                        )
                        continue
                    if message is not None:
                        yield message

    def _users(self, export: _Export, source: str) -> dict[str, dict[str, Any]]:
        listed = export.load("users.json")
        if not isinstance(listed, list):
            raise malformed(source, "users.json", "wrong JSON shape: expected a list of users")
        return {str(u["id"]): u for u in listed if isinstance(u, dict) and "id" in u}

    def _team(
        self,
        export: _Export,
        users: dict[str, dict[str, Any]],
        convs: list[dict[str, Any]],
        log: ImportLog,
    ) -> str:
        for user in users.values():
            if user.get("team_id"):
                log.note("team", str(user["team_id"]))
                return str(user["team_id"])
        digest = hashlib.sha1("\n".join(sorted(str(c["id"]) for c in convs)).encode()).hexdigest()[:10]
        team = f"E{digest.upper()}"
        log.note("team", f"{team} (derived: the export names no team id)")
        log.warn(
            "the export has no team id; message ids use a derived one and will not match a live Slack sync"
        )
        return team

    def _message(
        self,
        raw: dict[str, Any],
        team: str,
        channel_id: str,
        channel: str,
        users: dict[str, dict[str, Any]],
        log: ImportLog,
    ) -> RawMessage | None:
        subtype = raw.get("subtype")
        if subtype in _SKIPPED_SUBTYPES:
            log.skip(f"deleted ({subtype})")
            return None
        ts = str(raw["ts"])
        files = [f for f in raw.get("files") or [] if isinstance(f, dict)]
        attachments = tuple(
            Attachment(
                name=str(f.get("name") or f.get("title") or f.get("id") or "file"),
                url=f.get("url_private") or f.get("permalink"),
                content_type=f.get("mimetype"),
                size_bytes=f.get("size"),
            )
            for f in files
            if f.get("mode") != "tombstone"
        )
        legacy = [
            a.get("fallback") or a.get("text") for a in raw.get("attachments") or [] if isinstance(a, dict)
        ]
        content = nonempty(
            render_markup(str(raw.get("text") or ""), users),
            *legacy,
            *(f"[file: {a.name}]" for a in attachments),
        )
        if not content:
            log.skip("empty message")
            return None
        # The live connector's keys (team, channel_id, person_id, thread_id, edited, email) plus extras.
        metadata: dict[str, Any] = {
            "team": team,
            "channel_id": channel_id,
            "ts": ts,
            "source": "slack_export",
        }
        if raw.get("user") or raw.get("bot_id"):
            metadata["person_id"] = raw.get("user") or raw.get("bot_id")
        email = ((users.get(str(raw.get("user"))) or {}).get("profile") or {}).get("email")
        if email:
            metadata["email"] = email
        if subtype:
            metadata["subtype"] = subtype
        if raw.get("thread_ts"):
            metadata["thread_id"] = raw["thread_ts"]
            if raw["thread_ts"] != ts:
                metadata["parent_ts"] = raw["thread_ts"]
        if isinstance(raw.get("edited"), dict):
            metadata["edited"] = True
            metadata["edited_ts"] = raw["edited"].get("ts")
        return RawMessage(
            platform=PLATFORM,
            message_id=slack_message_id(team, channel_id, ts),
            channel=channel,
            person=_person(raw, users),
            timestamp=ts_to_ms(ts),
            content=content,
            bot_id=raw.get("bot_id"),
            attachments=attachments,
            metadata=metadata,
        )


def user_name(user: dict[str, Any] | None) -> str | None:
    if not user:
        return None
    profile = user.get("profile") or {}
    return (
        profile.get("display_name")
        or profile.get("real_name")
        or user.get("real_name")
        or user.get("name")
        or None
    )


def _person(raw: dict[str, Any], users: dict[str, dict[str, Any]]) -> str:
    known = user_name(users.get(str(raw.get("user"))))
    if known:
        return known
    profile = raw.get("user_profile") or {}
    return str(
        profile.get("display_name")
        or profile.get("real_name")
        or raw.get("username")  # bot messages
        or (raw.get("bot_profile") or {}).get("name")
        or raw.get("user")
        or raw.get("bot_id")
        or "unknown"
    )


def _dm_name(conv: dict[str, Any], users: dict[str, dict[str, Any]]) -> str:
    members = conv.get("members") or ([conv["user"]] if conv.get("user") else [])
    names = [user_name(users.get(str(m))) or str(m) for m in members]
    return "dm:" + ", ".join(names) if names else str(conv["id"])


def render_markup(text: str, users: dict[str, dict[str, Any]]) -> str:
    """Slack mrkdwn markup to readable text (the same rendering as the live connector's)."""
    return slack_markup.render_markup(text, lambda user_id: user_name(users.get(user_id)))
