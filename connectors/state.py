"""Per-connector state in SQLite: configuration, cursor, last sync, last error, counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from app.core.clock import iso
from app.core.domain import DEFAULT_USER_ID
from app.core.errors import Conflict, NotFound
from app.core.storage.db import Database
from connectors.models import ConnectorStateRow

# A sync run holds its connector for at most this long; a crashed run stops blocking after it.
RUN_LEASE_MS = 30 * 60 * 1000


@dataclass(frozen=True, slots=True)
class ConnectorState:
    id: str
    kind: str
    options: dict[str, Any]
    enabled: bool
    interval_minutes: int
    cursor: str | None
    status: str  # never | running | ok | error
    last_sync_at: int | None
    last_success_at: int | None
    last_error: str | None
    last_error_code: str | None
    messages_total: int
    last_run: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The public shape (CLI --json, REST, MCP): never the cursor's internals, never a token."""
        return {
            "id": self.id,
            "kind": self.kind,
            "enabled": self.enabled,
            "interval_minutes": self.interval_minutes,
            "status": self.status,
            "last_sync_at": iso(self.last_sync_at),
            "last_success_at": iso(self.last_success_at),
            "last_error": self.last_error,
            "last_error_code": self.last_error_code,
            "messages_total": self.messages_total,
            "last_run": self.last_run,
            "has_cursor": self.cursor is not None,
            "options": {k: v for k, v in self.options.items() if k != "base_url"},
        }


def _value(row: ConnectorStateRow) -> ConnectorState:
    return ConnectorState(
        id=row.id,
        kind=row.kind,
        options=dict(row.options or {}),
        enabled=bool(row.enabled),
        interval_minutes=row.interval_minutes,
        cursor=row.cursor,
        status=row.status,
        last_sync_at=row.last_sync_at,
        last_success_at=row.last_success_at,
        last_error=row.last_error,
        last_error_code=row.last_error_code,
        messages_total=row.messages_total,
        last_run={
            "imported": row.last_run_imported,
            "updated": row.last_run_updated,
            "deleted": row.last_run_deleted,
        },
    )


class ConnectorStateStore:
    """Every method is one short write (or read) transaction of its own."""

    def __init__(self, db: Database, user_id: str = DEFAULT_USER_ID) -> None:
        self.db = db
        # Connectors belong to one user: another user's connectors are invisible here.
        self.user_id = user_id

    def list(self) -> list[ConnectorState]:
        with self.db.read() as session:
            rows = session.scalars(
                select(ConnectorStateRow)
                .where(ConnectorStateRow.user_id == self.user_id)
                .order_by(ConnectorStateRow.id)
            ).all()
            return [_value(r) for r in rows]

    def find(self, connector_id: str) -> ConnectorState | None:
        with self.db.read() as session:
            row = session.get(ConnectorStateRow, connector_id)
            return _value(row) if row is not None and row.user_id == self.user_id else None

    def get(self, connector_id: str) -> ConnectorState:
        state = self.find(connector_id)
        if state is None:
            raise NotFound(
                f"no connector named {connector_id!r}",
                hint="see `strata connectors list`",
            )
        return state

    def add(
        self, connector_id: str, kind: str, options: dict[str, Any], interval_minutes: int, now: int
    ) -> ConnectorState:
        with self.db.write() as session:
            if session.get(ConnectorStateRow, connector_id) is not None:
                # Connector ids name their secret-store entry and scheduler job, so they stay unique
                # across users on one data dir.
                raise Conflict(
                    f"a connector named {connector_id!r} already exists",
                    hint="remove it first or pick another --id",
                )
            row = ConnectorStateRow(
                id=connector_id,
                user_id=self.user_id,
                kind=kind,
                options=options,
                enabled=True,
                interval_minutes=interval_minutes,
                status="never",
                messages_total=0,
                last_run_imported=0,
                last_run_updated=0,
                last_run_deleted=0,
                created_at=now,
                updated_at=now,
            )
            session.add(row)
            session.flush()
            return _value(row)

    def remove(self, connector_id: str) -> bool:
        with self.db.write() as session:
            row = session.get(ConnectorStateRow, connector_id)
            if row is None or row.user_id != self.user_id:
                return False
            session.delete(row)
            return True

    def _update(self, connector_id: str, **values: Any) -> None:
        with self.db.write() as session:
            row = session.get(ConnectorStateRow, connector_id)
            if row is None:
                raise NotFound(f"connector {connector_id!r} was removed during the sync")
            for key, value in values.items():
                setattr(row, key, value)

    def begin_run(self, connector_id: str, now: int, lease_ms: int = RUN_LEASE_MS) -> bool:
        """Claim the connector for one run (compare-and-set in one write transaction).

        False when another process (the app's scheduler, a CLI `sync`) is running it and its
        lease has not expired; a crashed run's lease expires, so a dead process never blocks.
        """
        with self.db.write() as session:
            row = session.get(ConnectorStateRow, connector_id)
            if row is None:
                raise NotFound(f"no connector named {connector_id!r}", hint="see `strata connectors list`")
            if row.status == "running" and row.last_sync_at is not None and row.last_sync_at + lease_ms > now:
                return False
            row.status = "running"
            row.last_sync_at = now
            row.last_run_imported = row.last_run_updated = row.last_run_deleted = 0
            row.updated_at = now
            return True

    def commit_batch(
        self, connector_id: str, cursor: str | None, *, imported: int, updated: int, deleted: int, now: int
    ) -> None:
        """Advance the cursor: called only after the batch it covers is stored."""
        with self.db.write() as session:
            row = session.get(ConnectorStateRow, connector_id)
            if row is None:
                raise NotFound(f"connector {connector_id!r} was removed during the sync")
            if cursor is not None:
                row.cursor = cursor
            row.messages_total += imported
            row.last_run_imported += imported
            row.last_run_updated += updated
            row.last_run_deleted += deleted
            row.updated_at = now

    def finish_run(self, connector_id: str, now: int, *, error: Exception | None = None) -> None:
        if error is None:
            self._update(
                connector_id,
                status="ok",
                last_success_at=now,
                last_error=None,
                last_error_code=None,
                updated_at=now,
            )
        else:
            self._update(
                connector_id,
                status="error",
                last_error=str(error),
                last_error_code=getattr(error, "code", type(error).__name__),
                updated_at=now,
            )

    def reset_cursor(self, connector_id: str, now: int) -> None:
        self._update(connector_id, cursor=None, updated_at=now)

    def set_enabled(self, connector_id: str, enabled: bool, now: int) -> None:
        self._update(connector_id, enabled=enabled, updated_at=now)
