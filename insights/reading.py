"""What one insight run reads of a conversation: its new messages in chunks by row id, and around
them only the context the extractor's windows can use (bounded in time and in count).

Before, a run re-read everything from 14 days before the first new message to the end of the
conversation: 200 messages imported into the middle of a 100k archive cost a quarter of the archive
per run. Now each chunk of new messages brings at most `CONTEXT_MESSAGES` earlier and later
messages on each side, within `CONTEXT_MS`; the caller moves the group's cursor after each chunk,
so a run stopped by its budget (or a crash) resumes where it ended.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy import select

from app.core.clock import DAY_MS
from app.core.storage.db import Database, chunked
from app.core.storage.models import RawMessageRow
from insights.model import ChatMessage

# The rule extractor's longest window (a task "done" up to 14 days later); answers and acceptances
# need hours. Closures of older items go through the stored candidates, not through context.
CONTEXT_MS = 14 * DAY_MS
CONTEXT_MESSAGES = 200  # each side of a new message: enough for a busy channel's day
CHUNK = 1000  # new messages per step; the cursor moves after each


@dataclass(frozen=True, slots=True)
class Chunk:
    messages: list[ChatMessage]  # new ones and their context, by time
    new_ids: frozenset[str]  # message ids of the new ones (drafts must rest on one of them)
    new_count: int
    max_row_id: int  # the cursor after this chunk
    bot_id: str | None  # the first bot id seen among the chunk's rows


def chunks(
    db: Database, user_id: str, platform: str, channel: str, seen: int, *, size: int = CHUNK
) -> Iterator[Chunk]:
    """Chunks of the messages after row `seen` (in row order), each with its bounded context."""
    base = (
        RawMessageRow.user_id == user_id,
        RawMessageRow.platform == platform,
        RawMessageRow.channel == channel,
    )
    after = seen
    while True:
        with db.read() as session:
            new = session.scalars(
                select(RawMessageRow)
                .where(*base, RawMessageRow.id > after)
                .order_by(RawMessageRow.id)
                .limit(size)
            ).all()
            if not new:
                return
            new_row_ids = {r.id for r in new}
            times = sorted(r.timestamp for r in new)
            # Row ids and times only: cheap even when the span is long (a back-fill across years).
            around = session.execute(
                select(RawMessageRow.id, RawMessageRow.timestamp)
                .where(
                    *base,
                    RawMessageRow.timestamp >= times[0] - CONTEXT_MS,
                    RawMessageRow.timestamp <= times[-1] + CONTEXT_MS,
                )
                .order_by(RawMessageRow.timestamp, RawMessageRow.id)
            ).all()
            wanted = context_ids([(int(i), int(t)) for i, t in around], new_row_ids)
            context = []
            for ids in chunked(sorted(wanted)):
                context.extend(session.scalars(select(RawMessageRow).where(RawMessageRow.id.in_(ids))).all())
        rows = sorted([*new, *context], key=lambda r: (r.timestamp, r.id))
        bots = [r.bot_id for r in rows if r.bot_id]
        yield Chunk(
            messages=[_message(r) for r in rows],
            new_ids=frozenset(r.message_id for r in new),
            new_count=len(new),
            max_row_id=max(new_row_ids),
            bot_id=bots[0] if bots else None,
        )
        after = max(new_row_ids)
        if len(new) < size:
            return


def context_ids(
    ordered: list[tuple[int, int]], new: set[int], *, count: int = CONTEXT_MESSAGES, span_ms: int = CONTEXT_MS
) -> set[int]:
    """Row ids (not new) within `count` positions and `span_ms` of a new one; `ordered` is by time."""
    keep: set[int] = set()
    for direction in (1, -1):  # nearest new message before, then after, each position
        last: tuple[int, int] | None = None  # (position, time) of the nearest new message so far
        positions = range(len(ordered)) if direction == 1 else range(len(ordered) - 1, -1, -1)
        for pos in positions:
            row_id, at = ordered[pos]
            if row_id in new:
                last = (pos, at)
            elif last is not None and abs(pos - last[0]) <= count and abs(at - last[1]) <= span_ms:
                keep.add(row_id)
    return keep


def _message(r: RawMessageRow) -> ChatMessage:
    return ChatMessage(
        message_id=r.message_id, person=r.person, timestamp=r.timestamp, content=r.content,
        platform=r.platform, channel=r.channel, bot_id=r.bot_id,
    )  # fmt: skip
