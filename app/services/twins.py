"""The merge step for messages two accounts number differently (Telegram private chats, basic groups).

A Telegram bot and the account that exports a chat see the same message under different ids
there (Telegram numbers those messages per account), so id-based dedupe cannot match them.
Both sides write a twin key instead (`connectors.ids.telegram_twin_key`: chat, second, sender,
text). Before storing, a message whose twin key is already stored under another id is dropped
and counted as a duplicate; the copy stored first is kept. Imports and live syncs both pass
this step, so the order in which they run does not matter.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from sqlalchemy import select

from app.core.domain import RawMessage
from app.core.storage.db import Database
from app.core.storage.models import RawMessageRow

TWIN_KEY = "twin_key"
CHUNK = 500
# Both sides write whole seconds, but a stored message may have come through a path that kept
# milliseconds; a small window around the chunk keeps such rows in view.
SLACK_MS = 2000


class TwinFilter:
    """Drops messages whose twin is stored; `dropped` counts them for the caller's report."""

    def __init__(self, db: Database, user_id: str) -> None:
        self._db = db
        self._user_id = user_id
        self.dropped = 0

    def drop_known(self, messages: Iterable[RawMessage]) -> Iterator[RawMessage]:
        chunk: list[RawMessage] = []
        for message in messages:
            chunk.append(message)
            if len(chunk) >= CHUNK:
                yield from self._filter(chunk)
                chunk = []
        if chunk:
            yield from self._filter(chunk)

    def _filter(self, chunk: list[RawMessage]) -> Iterator[RawMessage]:
        keyed = [m for m in chunk if m.metadata.get(TWIN_KEY)]
        stored = self._stored_twins(keyed) if keyed else {}
        for message in chunk:
            twin = message.metadata.get(TWIN_KEY)
            owner = stored.get((message.platform, str(twin))) if twin else None
            if owner is not None and owner != message.message_id:
                self.dropped += 1
                continue
            yield message

    def _stored_twins(self, keyed: list[RawMessage]) -> dict[tuple[str, str], str]:
        """(platform, twin key) → message id of stored rows in the chunk's time window."""
        platforms = {m.platform for m in keyed}
        wanted = {str(m.metadata[TWIN_KEY]) for m in keyed}
        low = min(m.timestamp for m in keyed) - SLACK_MS
        high = max(m.timestamp for m in keyed) + SLACK_MS
        stmt = select(RawMessageRow.platform, RawMessageRow.message_id, RawMessageRow.metadata_).where(
            RawMessageRow.user_id == self._user_id,
            RawMessageRow.timestamp.between(low, high),
            RawMessageRow.platform.in_(sorted(platforms)),
        )
        found: dict[tuple[str, str], str] = {}
        with self._db.read() as session:
            for platform, message_id, metadata in session.execute(stmt):
                twin = (metadata or {}).get(TWIN_KEY)
                if twin in wanted:
                    found.setdefault((platform, twin), message_id)
        return found
