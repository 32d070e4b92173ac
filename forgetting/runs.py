"""Run reports: what a forgetting run (or its undo) did, as returned to the shells and stored."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from app.core.clock import iso
from app.core.domain import Tier
from forgetting.models import ForgetRunRow
from forgetting.planner import TierCounts

RUNNING = "running"
COMPLETED = "completed"
COMPLETED_WITH_ERRORS = "completed_with_errors"
SKIPPED_LOCKED = "skipped_locked"
LOCK_LOST = "lock_lost"
FAILED = "failed"
INTERRUPTED = "interrupted"
DRY_RUN = "dry_run"
DISABLED = "disabled"
# A scheduled run that would archive more than `confirm_above_records` records: nothing applied,
# the plan waits for the user (run it, or "not now" → DISMISSED, which snoozes scheduled runs).
AWAITING = "awaiting_confirmation"
DISMISSED = "dismissed"
SNOOZED = "snoozed"
CONFIRMED = "confirmed"  # a waiting plan the user then ran (see the run that followed it)


def new_run_id(now_ms: int) -> str:
    stamp = (iso(now_ms) or "").replace("-", "").replace(":", "")[:15]
    return f"fr_{stamp}_{secrets.token_hex(3)}"


@dataclass(frozen=True, slots=True)
class RunReport:
    run_id: str | None
    user_id: str
    status: str
    dry_run: bool
    trigger: str
    started_at: int
    finished_at: int | None
    tiers: tuple[TierCounts, ...] = ()
    errors: tuple[dict[str, Any], ...] = ()
    summary_ids: tuple[str, ...] = ()
    message: str = ""
    undone_at: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "userId": self.user_id,
            "status": self.status,
            "dryRun": self.dry_run,
            "trigger": self.trigger,
            "startedAt": iso(self.started_at),
            "finishedAt": iso(self.finished_at),
            "durationMs": (self.finished_at - self.started_at) if self.finished_at is not None else None,
            "undoneAt": iso(self.undone_at),
            "tiers": [t.to_dict() for t in self.tiers],
            "totals": totals(self.tiers),
            "summaries": len(self.summary_ids),
            "summaryIds": list(self.summary_ids),
            "errors": list(self.errors),
            "message": self.message,
            **self.extra,
        }

    @classmethod
    def from_row(cls, row: ForgetRunRow) -> RunReport:
        tiers = tuple(
            TierCounts(
                Tier(t["tier"]),
                **{
                    k: int(t.get(k, 0))
                    for k in (
                        "evaluated",
                        "promoted",
                        "archived",
                        "summarized",
                        "skipped",
                        "deferred",
                        "failed",
                    )
                },
            )
            for t in row.counts or []
        )
        return cls(
            run_id=row.run_id,
            user_id=row.user_id,
            status=row.status,
            dry_run=bool(row.dry_run),
            trigger=row.trigger,
            started_at=row.started_at,
            finished_at=row.finished_at,
            tiers=tiers,
            errors=tuple(row.errors or ()),
            summary_ids=tuple(row.summary_ids or ()),
            message=row.message or "",
            undone_at=row.undone_at,
        )


def totals(tiers: tuple[TierCounts, ...]) -> dict[str, int]:
    keys = ("evaluated", "promoted", "archived", "summarized", "skipped", "deferred", "failed")
    return {k: sum(getattr(t, k) for t in tiers) for k in keys}


@dataclass(frozen=True, slots=True)
class UndoReport:
    run_id: str
    status: str  # undone | skipped_locked | already_undone
    restored: int = 0
    unarchived: int = 0
    summaries_removed: int = 0
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "status": self.status,
            "restored": self.restored,
            "unarchived": self.unarchived,
            "summariesRemoved": self.summaries_removed,
            "message": self.message,
        }
