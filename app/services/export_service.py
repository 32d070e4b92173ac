"""`strata export`: everything the user owns, in open formats, into a folder they can read or re-import.

Layout of an export folder:
    manifest.json          what, when, whose, and counts
    messages.jsonl         the JSONL import format (archived text included), oldest first
    summaries.jsonl        forgetting summaries (key points, keywords, source message ids)
    insights.jsonl         extracted insights
    knowledge_base/        the uploaded originals, plus documents.jsonl with their metadata
    settings.json          the settings in effect, without secrets (keys and tokens never leave)
`strata import jsonl messages.jsonl` into an empty data dir gives back the same messages.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from app import __version__
from app.core.clock import Clock, SystemClock, iso
from app.core.errors import Conflict, InvalidInput, StorageError
from app.core.paths import DataLayout
from app.core.settings import Settings
from app.core.storage import backup as snapshots
from app.core.storage.db import Database
from app.core.storage.models import MemorySummaryRow, RawMessageRow
from app.core.storage.vectors import VectorStore
from app.services.knowledge_service import KnowledgeService
from forgetting import schedule
from insights.tables import InsightRow

PAGE = 2000
# Setting names that could hold a secret; never exported even if a future setting adds one.
SECRET_WORDS = ("key", "token", "secret", "password")


@dataclass(frozen=True, slots=True)
class ExportReport:
    path: Path
    counts: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), **self.counts}


def message_line(row: RawMessageRow) -> dict[str, Any]:
    """A stored message in the JSONL import format (field names of `strata import jsonl`)."""
    line: dict[str, Any] = {
        "platform": row.platform,
        "message_id": row.message_id,
        "channel": row.channel,
        "person": row.person,
        "timestamp": iso(row.timestamp),
        "content": row.content,  # verbatim, also when archived
    }
    if row.bot_id:
        line["bot_id"] = row.bot_id
    if row.attachments:
        line["attachments"] = list(row.attachments)
    if row.metadata_:
        line["metadata"] = dict(row.metadata_)
    if row.importance_score is not None:
        line["importance_score"] = row.importance_score
    return line


def without_secrets(data: Any) -> Any:
    if isinstance(data, dict):
        return {
            k: without_secrets(v) for k, v in data.items() if not any(w in k.lower() for w in SECRET_WORDS)
        }
    if isinstance(data, list):
        return [without_secrets(v) for v in data]
    return data


def _write_json_line(handle: TextIO, data: dict[str, Any]) -> None:
    handle.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")


class ExportService:
    def __init__(
        self,
        db: Database,
        knowledge: KnowledgeService,
        settings: Settings,
        clock: Clock,
        *,
        user_id: str,
        layout: DataLayout,
        vectors: VectorStore,
    ) -> None:
        self.db = db
        self.knowledge = knowledge
        self.settings = settings
        self.clock = clock
        self.user_id = user_id
        self.layout = layout
        self.vectors = vectors

    def folder(self, kind: str, name: str | None = None) -> Path:
        """`<data dir>/<kind>/<name>`: where REST exports and backups go (never outside the data dir)."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(self.clock.now_ms() / 1000))
        return self.layout.root / kind / (name or f"strata-{kind.rstrip('s')}-{stamp}")

    def backup(self, target: Path) -> snapshots.BackupReport:
        """A consistent snapshot of the whole data dir (all users) while the app keeps running."""
        return snapshots.backup(self.layout, self.vectors, target)

    def export(self, target: Path) -> ExportReport:
        """Write the export folder; refuses a non-empty target so nothing is overwritten."""
        target = target.expanduser()
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise InvalidInput(
                f"{target} already exists and is not an empty folder",
                hint="choose a new folder name; the export creates it",
            )
        target.mkdir(parents=True, exist_ok=True)
        with os.scandir(target):  # fails early, with a clear OSError, when the folder is unusable
            pass
        counts = {
            "messages": self._rows(target / "messages.jsonl", self._messages()),
            "summaries": self._rows(target / "summaries.jsonl", self._summaries()),
            "insights": self._rows(target / "insights.jsonl", self._insights()),
            "documents": self._documents(target / "knowledge_base"),
        }
        settings = without_secrets(self.settings.model_dump(mode="json"))
        (target / "settings.json").write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
        manifest = {
            "format": "strata-export/1",
            "strataVersion": __version__,
            "exportedAt": iso(self.clock.now_ms()),
            "userId": self.user_id,
            "counts": counts,
            "reimport": "strata import jsonl messages.jsonl",
        }
        (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        return ExportReport(target, counts)

    @staticmethod
    def _rows(path: Path, rows: Iterator[dict[str, Any]]) -> int:
        n = 0
        with path.open("w", encoding="utf-8") as handle:
            for data in rows:
                _write_json_line(handle, data)
                n += 1
        return n

    def _messages(self) -> Iterator[dict[str, Any]]:
        # Pages by id keep memory flat and keep import order = original order (same ids on re-import).
        last = 0
        while True:
            with self.db.read() as session:
                rows = session.scalars(
                    select(RawMessageRow)
                    .where(RawMessageRow.user_id == self.user_id, RawMessageRow.id > last)
                    .order_by(RawMessageRow.id)
                    .limit(PAGE)
                ).all()
            if not rows:
                return
            for row in rows:
                yield message_line(row)
            last = rows[-1].id

    def _summaries(self) -> Iterator[dict[str, Any]]:
        with self.db.read() as session:
            rows = session.scalars(
                select(MemorySummaryRow)
                .where(MemorySummaryRow.user_id == self.user_id)
                .order_by(MemorySummaryRow.start_timestamp)
            ).all()
        for r in rows:
            yield {
                "summaryId": r.summary_id,
                "tier": r.summary_tier,
                "sourceTier": r.source_tier,
                "start": iso(r.start_timestamp),
                "end": iso(r.end_timestamp),
                "messageCount": r.message_count,
                "sourceRecordIds": list(r.source_record_ids or ()),
                "keyPoints": list(r.key_points or ()),
                "keywords": list(r.keywords or ()),
                "summaryText": r.summary_text,
                "dimensions": dict(r.dimensions or {}),
                "qualityScore": r.quality_score,
            }

    def _insights(self) -> Iterator[dict[str, Any]]:
        with self.db.read() as session:
            rows = session.scalars(
                select(InsightRow).where(InsightRow.user_id == self.user_id).order_by(InsightRow.occurred_at)
            ).all()
        for r in rows:
            yield {
                "id": r.id,
                "kind": r.kind,
                "title": r.title,
                "description": r.description,
                "status": r.status,
                "importance": r.importance,
                "urgency": r.urgency,
                "owner": r.owner,
                "author": r.author,
                "dueAt": iso(r.due_at),
                "occurredAt": iso(r.occurred_at),
                "platform": r.platform,
                "channel": r.channel,
                "details": list(r.details or ()),
                "evidence": list(r.evidence or ()),
            }

    def _documents(self, folder: Path) -> int:
        folder.mkdir()
        n = 0
        with (folder / "documents.jsonl").open("w", encoding="utf-8") as index:
            offset = 0
            while True:
                page = self.knowledge.list_documents(limit=200, offset=offset)
                if not page:
                    break
                for info in page:
                    # Prefix with the id: two uploads may share a file name.
                    name = f"{info.id}-{Path(info.file_name).name}"
                    (folder / name).write_bytes(self.knowledge.kb.read_original(info.id))
                    _write_json_line(index, {**info.to_dict(), "file": name})
                    n += 1
                offset += len(page)
        return n


def restore_data_dir(source: Path, root: Path, *, force: bool = False) -> Path | None:
    """Bring a backup back into `root` (before any service opens it); see app/core/storage/backup.py.

    Refuses while a scheduler host (the app or `strata serve`) is alive on `root`: it would keep
    writing into the files being replaced.
    """
    layout = DataLayout(root)
    if force and layout.database.exists():
        host: dict[str, Any] = {"active": False}
        try:
            db = Database(layout.database)
        except StorageError:
            db = None  # damaged or unreadable: nothing can be hosting jobs on it
        if db is not None:
            try:
                host = schedule.describe(db, SystemClock())
            except (SQLAlchemyError, StorageError):
                pass  # no schedule table yet: nothing has hosted jobs here
            finally:
                db.dispose()
        if host["active"]:
            raise Conflict(
                f"Strata is running on {root} (pid {host['pid']} on {host['host']})",
                hint="quit the app or stop `strata serve`, then restore",
            )
    return snapshots.restore(source, root, force=force)
