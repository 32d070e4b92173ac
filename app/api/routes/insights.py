"""`/api/insights`: list (sort + filters), brief, get (counts a view), favorite, trend."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, Field

from app.api.deps import get_services

router = APIRouter(tags=["insights"])

InsightId = Annotated[str, Path(min_length=1, max_length=64, description="insight id (uuid)")]


class FavoriteIn(BaseModel):
    favorite: bool = Field(True, description="false removes the favorite")


@router.get("/insights", summary="List insights, ranked and filtered")
def list_insights(
    request: Request,
    sort: str = Query("score", description="score, value, recent, due, importance or urgency"),
    label: str | None = Query(None, max_length=64, description="taskLabel, e.g. bug_report"),
    importance: str | None = Query(None, description="critical, high, medium or low"),
    state: str | None = Query(None, description="active or dormant"),
    kind: str | None = Query(None, description="decision, action_item, deadline, question, blocker, meeting"),
    status: str | None = Query(None, description="open or resolved"),
    q: str | None = Query(None, max_length=2000, description="search insights by words and meaning instead"),
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, le=100_000),
) -> dict[str, Any]:
    service = get_services(request).insights
    if q:
        items = service.search(q, min(limit + offset, 500))[offset:]
    else:
        items = service.list_insights(
            sort=sort, label=label, importance=importance, state=state, kind=kind, status=status,
            limit=limit, offset=offset,
        )  # fmt: skip
    page = {"items": [r.to_dict(full=False) for r in items], "count": len(items), "offset": offset}
    return get_services(request).privacy.mask_payload(page)  # text from chats: secrets masked


@router.get("/insights/brief", summary="Open loops: my tasks, what I wait on, questions to me")
def insights_brief(
    request: Request,
    me: list[str] | None = Query(None, description="names you go by (default: insights.identities)"),
    limit: int = Query(20, ge=1, le=200),
) -> dict[str, Any]:
    services = get_services(request)
    return services.privacy.mask_payload(services.insights.brief(limit, me or None).to_dict())


@router.get(
    "/insights/{insight_id}", summary="One insight with details, timeline and evidence (counts a view)"
)
def get_insight(request: Request, insight_id: InsightId) -> dict[str, Any]:
    services = get_services(request)
    return services.privacy.mask_payload(services.insights.get(insight_id).to_dict())


@router.post("/insights/{insight_id}/favorite", summary="Favorite or unfavorite an insight")
def favorite_insight(
    request: Request, insight_id: InsightId, body: FavoriteIn | None = None
) -> dict[str, Any]:
    value = True if body is None else body.favorite
    return get_services(request).insights.favorite(insight_id, value).to_dict(full=False)


@router.get(
    "/insights/{insight_id}/trend", summary="Access trend: rising / falling / stable and a daily series"
)
def insight_trend(
    request: Request, insight_id: InsightId, days: int = Query(30, ge=1, le=365)
) -> dict[str, Any]:
    return get_services(request).insights.trend(insight_id, days)
