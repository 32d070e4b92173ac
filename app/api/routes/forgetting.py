"""Forgetting over REST: GET /api/forgetting/status, POST /api/forgetting/run and /preview,
GET /api/summaries/{summary_id}."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from app.api.deps import get_services
from app.api.schemas import INTEGRAL
from app.core.errors import NotFound

router = APIRouter(tags=["forgetting"])

MAX_PREVIEW_GROUPS = 500


class _Model(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="allow")


class RunIn(_Model):
    model_config = ConfigDict(populate_by_name=True, extra="allow", strict=True)
    user_id: str | None = Field(
        default=None, alias="userId", max_length=64, description="default: configured user"
    )
    # Strict: `{"dryRun": 0}` must not start a real run.
    dry_run: StrictBool = Field(default=False, alias="dryRun", description="plan only, change nothing")
    include_undone: StrictBool = Field(
        default=False,
        alias="includeUndone",
        description="also forget records of runs you undid (left alone by default)",
    )


class PreviewIn(_Model):
    model_config = ConfigDict(populate_by_name=True, extra="allow", strict=True)
    user_id: str | None = Field(default=None, alias="userId", max_length=64)
    details: StrictBool = Field(default=True, description="include per-record decisions and summary drafts")
    max_groups: Annotated[int, Field(ge=1, le=MAX_PREVIEW_GROUPS), INTEGRAL] = Field(
        default=100, alias="maxGroups"
    )


class TierCountsOut(_Model):
    tier: str
    evaluated: int
    promoted: int
    archived: int
    summarized: int
    skipped: int
    deferred: int
    failed: int


class RunOut(_Model):
    runId: str | None
    userId: str
    status: str = Field(
        description="completed | completed_with_errors | skipped_locked | dry_run | failed | …"
    )
    dryRun: bool
    trigger: str
    startedAt: str | None
    finishedAt: str | None
    durationMs: int | None
    tiers: list[TierCountsOut]
    totals: dict[str, int]
    summaries: int
    summaryIds: list[str]
    errors: list[dict[str, Any]]
    message: str


class StatusOut(_Model):
    userId: str
    enabled: bool
    intervalMinutes: int
    llmSummaries: bool
    scheduler: dict[str, Any]
    nextRun: str | None
    lastRun: RunOut | None
    recentRuns: list[RunOut]
    lock: dict[str, Any] | None
    pendingCandidates: dict[str, int]
    summaries: int
    pendingPlan: dict[str, Any] | None = Field(
        None, description="a scheduled run waiting for you (it would archive more than confirmAboveRecords)"
    )
    confirmAboveRecords: int | None = None


class PreviewOut(_Model):
    userId: str
    now: str | None
    tiers: list[TierCountsOut]
    groups: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    truncated: bool


_services = get_services


def _own_user(request: Request, user_id: str | None) -> str | None:
    """The server answers for its configured user only: another user's id is not found here."""
    configured = _services(request).settings.user_id
    if user_id not in (None, "", configured):
        raise NotFound(f"no user {user_id!r} on this server", hint=f"it serves user {configured!r}")
    return user_id or None


@router.get("/forgetting/status", response_model=StatusOut, summary="Forgetting schedule, last run, lock")
def forgetting_status(request: Request, user_id: str | None = None) -> dict[str, Any]:
    return _services(request).forgetting.status(_own_user(request, user_id))


@router.post("/forgetting/run", response_model=RunOut, summary="Run one forgetting cycle now")
def forgetting_run(request: Request, body: RunIn | None = None) -> dict[str, Any]:
    body = body or RunIn()
    report = _services(request).forgetting.run(
        _own_user(request, body.user_id),
        dry_run=body.dry_run,
        trigger="api",
        include_undone=body.include_undone,
    )
    return report.to_dict()


@router.post(
    "/forgetting/pending/dismiss",
    summary="'Not now' for the plan waiting for you (pauses scheduled runs for a day)",
)
def forgetting_dismiss(request: Request) -> dict[str, Any]:
    return _services(request).forgetting.dismiss_pending()


@router.post(
    "/forgetting/preview", response_model=PreviewOut, summary="What a run would do, without doing it"
)
def forgetting_preview(request: Request, body: PreviewIn | None = None) -> dict[str, Any]:
    body = body or PreviewIn()
    plan = _services(request).forgetting.preview(_own_user(request, body.user_id))
    data = plan.to_dict(details=body.details)
    data["truncated"] = len(data["groups"]) > body.max_groups
    data["groups"] = data["groups"][: body.max_groups]
    return data


@router.get("/summaries/{summary_id}", summary="The summary that replaced a group of archived messages")
def get_summary(
    request: Request, summary_id: Annotated[str, Path(min_length=1, max_length=200)]
) -> dict[str, Any]:
    if not summary_id.strip():  # a blank id names no summary: 404 like any unknown id
        raise NotFound("no summary with a blank id", hint="archived messages carry it as summary_ref_id")
    services = _services(request)
    return services.privacy.mask_payload(services.forgetting.summary(summary_id).to_dict())
