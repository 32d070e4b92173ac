"""When messages are deleted, insights that cite them go too: their titles and text quote the messages.

Insights cite evidence by platform message id; an insight citing any deleted message is removed
(row, weights, access log, keyword entry, vector). Extraction writes it again from the messages
that remain the next time their conversation is processed in full (`strata insights generate --full`).
"""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.core.clock import Clock
from app.core.storage import audit
from app.core.storage.db import Database
from app.core.storage.erasure import ErasedRow
from app.core.storage.keyword import KeywordIndex
from insights.index import INSIGHT_KIND, InsightIndex
from insights.tables import InsightAccessRow, InsightRow, InsightWeightRow

ACTOR = "deletion"


class InsightsDeletion:
    def __init__(self, db: Database, index: InsightIndex, keywords: KeywordIndex, clock: Clock) -> None:
        self.db = db
        self.index = index
        self.keywords = keywords
        self.clock = clock

    def __call__(self, user_id: str, erased: list[ErasedRow]) -> dict[str, int]:
        gone = {(r.platform, r.message_id) for r in erased if r.user_id == user_id}
        removed = self.db.write_with_retry(lambda session: self._remove(session, user_id, gone))
        if removed:
            self.index.collection.delete(removed)
            self.index.collection.purge_history()
        return {"insightsRemoved": len(removed)}

    def _remove(self, session: Session, user_id: str, gone: set[tuple[str, str]]) -> list[str]:
        rows = session.scalars(select(InsightRow).where(InsightRow.user_id == user_id)).all()
        hit = [r for r in rows if any((r.platform, m) in gone for m in r.evidence or ())]
        ids = [r.id for r in hit]
        if not ids:
            return []
        self.keywords.delete(session, INSIGHT_KIND, ids)
        session.execute(delete(InsightWeightRow).where(InsightWeightRow.insight_id.in_(ids)))
        session.execute(delete(InsightAccessRow).where(InsightAccessRow.insight_id.in_(ids)))
        session.execute(delete(InsightRow).where(InsightRow.id.in_(ids)))
        now = self.clock.now_ms()
        for row in hit:
            audit.record(
                session,
                user_id=user_id,
                at=now,
                actor=ACTOR,
                action="insight_removed",
                entity_type="insight",
                entity_id=row.id,
                details={"reason": "a message it cites was deleted", "kind": row.kind},
            )
        return ids
