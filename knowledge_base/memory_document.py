"""Keeps insight settings stored and mirrored as the `memory.txt` knowledge-base document."""

from __future__ import annotations

import contextlib
import hashlib

from app.core.errors import Conflict, NotFound
from knowledge_base.models import KbInsightSettingsRow
from knowledge_base.personalization import MEMORY_FILE_NAME, InsightSettings, render_memory_txt
from knowledge_base.store import KnowledgeBase
from knowledge_base.values import DocumentInfo

SOURCE_TAG = "insight-settings"


class MemoryDocument:
    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb

    def get(self) -> tuple[InsightSettings, str | None]:
        """The stored settings and the id of their memory.txt document (None when there is none)."""
        with self.kb.db.read() as session:
            row = self.kb.repo.settings(session, self.kb.config.user_id)
            if row is None:
                return InsightSettings(), None
            settings = InsightSettings(
                tuple(row.focus_people or ()), tuple(row.topics or ()), row.about_me or ""
            )
            document_id = row.document_id
            if (
                document_id is not None
                and self.kb.repo.get(session, self.kb.config.user_id, document_id) is None
            ):
                document_id = None  # the user removed memory.txt by hand; the next save re-creates it
            return settings, document_id

    def set(self, settings: InsightSettings) -> DocumentInfo | None:
        """Store the settings and replace memory.txt: the new one is added before the old one goes."""
        _, old_id = self.get()
        new_doc: DocumentInfo | None = None
        if not settings.is_empty():
            new_doc = self._add(render_memory_txt(settings).encode("utf-8"))
        user_id = self.kb.config.user_id
        now = self.kb.clock.now_ms()

        def work(session):  # type: ignore[no-untyped-def]
            row = self.kb.repo.settings(session, user_id)
            if row is None:
                row = KbInsightSettingsRow(user_id=user_id)
                session.add(row)
            row.focus_people = list(settings.focus_people)
            row.topics = list(settings.topics)
            row.about_me = settings.about_me
            row.updated_at = now
            row.document_id = new_doc.id if new_doc else None

        self.kb.db.write_with_retry(work)
        if old_id is not None and (new_doc is None or new_doc.id != old_id):
            # Already gone when removed by hand or by a concurrent save.
            with contextlib.suppress(NotFound):
                self.kb.delete(old_id, actor="insight-settings")
        return new_doc

    def _add(self, data: bytes) -> DocumentInfo:
        try:
            return self.kb.add(
                data, MEMORY_FILE_NAME, extra_metadata={"source": SOURCE_TAG}, actor="insight-settings"
            )
        except Conflict:
            # Unchanged settings (or an identical file uploaded by hand): keep that document.
            with self.kb.db.read() as session:
                row = self.kb.repo.by_hash(session, self.kb.config.user_id, hashlib.sha256(data).hexdigest())
            if row is None:
                raise
            return self.kb.info(row.id)
