"""The sync runner: fetch a batch, hand it to the processor, and only then advance the cursor."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.clock import Clock, iso
from app.core.domain import IngestResult, RawMessage
from app.core.errors import ConnectorError, StrataError
from connectors.base import Connector
from connectors.state import ConnectorStateStore

log = logging.getLogger(__name__)

# What the runner needs from storage; app/services wires these to the processor.
StoreMessages = Callable[[Sequence[RawMessage]], IngestResult]
DeleteMessages = Callable[[Sequence[str]], int]


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What one sync run did; `error` is set (and the cursor kept) when it stopped early."""

    connector_id: str
    started_at: int
    finished_at: int
    fetched: int = 0
    imported: int = 0
    updated: int = 0
    duplicates: int = 0
    deleted: int = 0
    rejected: int = 0
    batches: int = 0
    warnings: tuple[str, ...] = ()
    error: str | None = None
    error_code: str | None = None
    retry_after: float | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "connector": self.connector_id,
            "ok": self.ok,
            "started_at": iso(self.started_at),
            "finished_at": iso(self.finished_at),
            "fetched": self.fetched,
            "imported": self.imported,
            "updated": self.updated,
            "duplicates": self.duplicates,
            "deleted": self.deleted,
            "rejected": self.rejected,
            "batches": self.batches,
            "warnings": list(self.warnings),
            "error": self.error,
            "error_code": self.error_code,
            "retry_after": self.retry_after,
        }


class SyncRunner:
    """Runs one connector's fetch into storage. The order per batch is the whole point:

    1. the connector yields a batch and the cursor that covers it;
    2. `store` writes the messages (the processor: idempotent by (platform, message id));
    3. only then a separate transaction saves the cursor.

    A crash after 1 or 2 leaves the old cursor, so the next run fetches the batch again and the
    processor's dedupe turns the repeat into "duplicates": nothing skipped, nothing doubled.
    """

    def __init__(
        self, states: ConnectorStateStore, store: StoreMessages, delete: DeleteMessages, clock: Clock
    ) -> None:
        self.states = states
        self.store = store
        self.delete = delete
        self.clock = clock

    def run(self, connector: Connector, *, limit: int | None = None, full: bool = False) -> SyncReport:
        state = self.states.get(connector.id)
        cursor = None if full else state.cursor
        started = self.clock.now_ms()
        if not self.states.begin_run(connector.id, started):
            connector.close()
            return SyncReport(
                connector.id,
                started,
                started,
                error="a sync of this connector is already running",
                error_code="sync_running",
            )
        totals = dict(fetched=0, imported=0, updated=0, duplicates=0, deleted=0, rejected=0, batches=0)
        warnings: list[str] = []
        error: Exception | None = None
        try:
            for batch in connector.fetch(cursor, limit=limit):
                result = self.store(batch.messages) if batch.messages else IngestResult()
                deleted = self.delete(batch.deleted) if batch.deleted else 0
                self.states.commit_batch(
                    connector.id,
                    batch.cursor,
                    imported=result.imported,
                    updated=result.updated,
                    deleted=deleted,
                    now=self.clock.now_ms(),
                )
                totals["fetched"] += len(batch.messages)
                totals["imported"] += result.imported
                totals["updated"] += result.updated
                totals["duplicates"] += result.duplicates
                totals["rejected"] += len(result.errors)
                totals["deleted"] += deleted
                totals["batches"] += 1
                warnings.extend(batch.warnings)
                # An incremental run with a limit stops between batches; the saved cursor resumes it.
                if limit is not None and cursor is not None and totals["fetched"] >= limit:
                    break
        except ConnectorError as exc:
            error = exc
            log.warning("sync of %s stopped: %s", connector.id, exc.code)
        except StrataError as exc:
            # Storage failed: the cursor stays before the batch that did not make it.
            error = exc
            log.warning("sync of %s could not store a batch: %s", connector.id, exc.code)
        except Exception as exc:
            # A bug, not an outcome: record it so status does not stay "running", then surface it.
            self.states.finish_run(connector.id, self.clock.now_ms(), error=exc)
            raise
        finally:
            connector.close()
        finished = self.clock.now_ms()
        self.states.finish_run(connector.id, finished, error=error)
        return SyncReport(
            connector_id=connector.id,
            started_at=started,
            finished_at=finished,
            warnings=tuple(warnings),
            error=str(error) if error else None,
            error_code=getattr(error, "code", None) if error else None,
            retry_after=getattr(error, "retry_after", None),
            fetched=totals["fetched"],
            imported=totals["imported"],
            updated=totals["updated"],
            duplicates=totals["duplicates"],
            deleted=totals["deleted"],
            rejected=totals["rejected"],
            batches=totals["batches"],
        )
