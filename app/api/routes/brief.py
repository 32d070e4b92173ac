"""`GET /api/brief`: the wake-up brief for an assistant (open loops, decisions, deadlines, activity)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request

from app.api.deps import get_services
from app.api.schemas import TIME_SCHEMA
from app.core.search.filters import parse_bound
from app.services.brief_service import DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, MIN_MAX_TOKENS

router = APIRouter(tags=["brief"])


@router.get("/brief", summary="Wake-up brief: what an assistant should know to start, size-bounded")
def get_brief(
    request: Request,
    since: str | None = Query(
        None,
        max_length=40,
        description="report what changed since this ISO time (default: 24 h ago)",
        json_schema_extra=TIME_SCHEMA,
    ),
    max_tokens: int = Query(
        DEFAULT_MAX_TOKENS, ge=MIN_MAX_TOKENS, le=MAX_MAX_TOKENS, description="size budget (≈4 chars/token)"
    ),
    format: str = Query("json", pattern="^(json|markdown)$", description="json, or markdown text"),
) -> dict[str, Any]:
    services = get_services(request)
    assert services.brief is not None
    brief = services.brief.brief(since=parse_bound(since, end_of_day=False), max_tokens=max_tokens)
    # Headed for an agent: detected secrets are masked like every other agent-facing result.
    if format == "markdown":
        markdown = services.privacy.mask(brief.to_markdown())
        return {"markdown": markdown, "approxTokens": brief.to_dict()["approxTokens"]}
    return services.privacy.mask_payload(brief.to_dict())
