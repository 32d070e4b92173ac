"""Reading and writing insight rows, weights, the access log and group cursors (caller owns the session)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.storage.db import chunked
from insights.model import (
    Importance,
    Insight,
    InsightDraft,
    InsightKind,
    InsightStatus,
    InsightWeights,
    TimelineEvent,
    Urgency,
    insight_id,
)
from insights.tables import (
    InsightAccessRow,
    InsightAliasRow,
    InsightCursorRow,
    InsightRow,
    InsightWeightRow,
)


def content_hash(draft: InsightDraft) -> str:
    """Changes to what an insight says (not to its weights) bump `updated_at` and trigger re-embedding."""
    data = asdict(draft)
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:32]


def to_draft(row: InsightRow) -> InsightDraft:
    return InsightDraft(
        kind=InsightKind(row.kind),
        title=row.title,
        description=row.description,
        importance=Importance(row.importance),
        urgency=Urgency(row.urgency),
        task_label=row.task_label,
        dedupe_key=row.dedupe_key,
        evidence=tuple(row.evidence or ()),
        occurred_at=row.occurred_at,
        platform=row.platform,
        channel=row.channel,
        author=row.author,
        owner=row.owner,
        due_at=row.due_at,
        addressed_to=tuple(row.addressed_to or ()),
        status=InsightStatus(row.status),
        details=tuple(row.details or ()),
        timeline=tuple(
            TimelineEvent(at=int(t["at"]), event=str(t["event"]), message_id=t.get("messageId"))
            for t in row.timeline or ()
        ),
    )


def to_weights(row: InsightWeightRow | None, counts: tuple[int, int] = (0, 0)) -> InsightWeights:
    if row is None:
        return InsightWeights(access_count_7d=counts[0], access_count_30d=counts[1])
    return InsightWeights(
        access_count_30d=counts[1],
        access_count_7d=counts[0],
        current_event_rank=row.current_event_rank,
        custom_weight_multiplier=row.custom_weight_multiplier,
        favorite=bool(row.favorite),
        favorited_at=row.favorited_at,
        last_viewed_at=row.last_viewed_at,
        view_boost_at=row.view_boost_at,
    )


def to_insight(row: InsightRow, weights: InsightWeights) -> Insight:
    return Insight(
        id=row.id, bot_id=row.bot_id, user_id=row.user_id, draft=to_draft(row),
        created_at=row.created_at, updated_at=row.updated_at, weights=weights,
    )  # fmt: skip


class InsightRepository:
    def upsert(
        self, session: Session, *, user_id: str, bot_id: str, draft: InsightDraft, extractor: str, now: int
    ) -> tuple[str, str]:
        """Insert or update by (botId, dedupeKey); returns (id, "created" | "updated" | "unchanged")."""
        key = insight_id(bot_id, draft.dedupe_key, user_id)
        digest = content_hash(draft)
        row = session.get(InsightRow, key)
        if row is not None and row.content_hash == digest:
            return key, "unchanged"
        values = dict(
            kind=draft.kind.value, title=draft.title, description=draft.description,
            importance=draft.importance.value, urgency=draft.urgency.value, task_label=draft.task_label,
            status=draft.status.value, owner=draft.owner, author=draft.author,
            addressed_to=list(draft.addressed_to), due_at=draft.due_at, occurred_at=draft.occurred_at,
            platform=draft.platform, channel=draft.channel, details=list(draft.details),
            timeline=[{"at": t.at, "event": t.event, "messageId": t.message_id} for t in draft.timeline],
            evidence=list(draft.evidence), extractor=extractor, content_hash=digest, updated_at=now,
        )  # fmt: skip
        if row is None:
            session.add(
                InsightRow(
                    id=key,
                    user_id=user_id,
                    bot_id=bot_id,
                    dedupe_key=draft.dedupe_key,
                    created_at=now,
                    **values,
                )
            )
            return key, "created"
        for name, value in values.items():
            setattr(row, name, value)
        return key, "updated"

    def rows(self, session: Session, user_id: str, ids: Sequence[str] | None = None) -> list[InsightRow]:
        query = select(InsightRow).where(InsightRow.user_id == user_id)
        if ids is None:
            return list(session.scalars(query))
        found: list[InsightRow] = []
        for part in chunked(list(ids)):
            found.extend(session.scalars(query.where(InsightRow.id.in_(part))))
        return found

    def weight_rows(self, session: Session, user_id: str) -> dict[str, InsightWeightRow]:
        rows = session.scalars(select(InsightWeightRow).where(InsightWeightRow.user_id == user_id))
        return {r.insight_id: r for r in rows}

    def weight_row(self, session: Session, user_id: str, insight: str) -> InsightWeightRow:
        row = session.get(InsightWeightRow, (insight, user_id))
        if row is None:
            row = InsightWeightRow(
                insight_id=insight, user_id=user_id, custom_weight_multiplier=1.0, favorite=False
            )
            session.add(row)
        return row

    def access_times(self, session: Session, user_id: str, since: int) -> dict[str, list[int]]:
        rows = session.execute(
            select(InsightAccessRow.insight_id, InsightAccessRow.at).where(
                InsightAccessRow.user_id == user_id, InsightAccessRow.at >= since
            )
        )
        out: dict[str, list[int]] = {}
        for insight, at in rows:
            out.setdefault(insight, []).append(int(at))
        return out

    def record_access(self, session: Session, *, user_id: str, insight: str, kind: str, at: int) -> None:
        session.add(InsightAccessRow(insight_id=insight, user_id=user_id, kind=kind, at=at))

    # -- merged restatements -----------------------------------------------------------------------
    def alias(self, session: Session, bot_id: str, dedupe_key: str) -> InsightAliasRow | None:
        return session.get(InsightAliasRow, (bot_id, dedupe_key))

    def set_alias(
        self, session: Session, *, user_id: str, bot_id: str, draft: InsightDraft, insight: str
    ) -> None:
        row = self.alias(session, bot_id, draft.dedupe_key)
        if row is None:
            session.add(
                InsightAliasRow(
                    bot_id=bot_id, dedupe_key=draft.dedupe_key, user_id=user_id, insight_id=insight,
                    content_hash=content_hash(draft),
                )
            )  # fmt: skip
        else:
            row.insight_id, row.content_hash = insight, content_hash(draft)

    def rows_between(self, session: Session, user_id: str, start: int, end: int) -> list[InsightRow]:
        return list(
            session.scalars(
                select(InsightRow).where(
                    InsightRow.user_id == user_id,
                    InsightRow.occurred_at >= start,
                    InsightRow.occurred_at <= end,
                )
            )
        )

    # -- incremental generation ------------------------------------------------------------------
    def cursors(self, session: Session, user_id: str) -> dict[tuple[str, str], int]:
        rows = session.scalars(select(InsightCursorRow).where(InsightCursorRow.user_id == user_id))
        return {(r.platform, r.channel): r.last_row_id for r in rows}

    def set_cursor(
        self, session: Session, *, user_id: str, platform: str, channel: str, row_id: int, at: int
    ) -> None:
        row = session.get(InsightCursorRow, (user_id, platform, channel))
        if row is None:
            session.add(
                InsightCursorRow(
                    user_id=user_id, platform=platform, channel=channel, last_row_id=row_id, last_run_at=at
                )
            )
        else:
            row.last_row_id, row.last_run_at = row_id, at
