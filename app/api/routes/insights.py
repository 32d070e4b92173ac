"""`/api/insights`: list (sort + filters), brief, get (counts a view), favorite, trend."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, Field, StrictBool

from app.api.deps import get_services
from app.services.insights_service import SORTS, STATES
from insights.model import Importance, InsightKind, InsightStatus

router = APIRouter(tags=["insights"])

InsightId = Annotated[str, Path(min_length=1, max_length=64, description="insight id (uuid)")]


def _enum(values: Sequence[str], optional: bool = False) -> dict[str, Any]:
    choices: list[dict[str, Any]] = [{"type": "string", "enum": list(values)}]
    return {"anyOf": [*choices, {"type": "null"}]} if optional else choices[0]


class FavoriteIn(BaseModel):
    favorite: StrictBool = Field(True, description="false removes the favorite")


@router.get("/insights", summary="List insights, ranked and filtered")
def list_insights(
    request: Request,
    # Plain strings at run time (the service answers 400 naming the choices); enums in the schema.
    sort: str = Query("score", description="sort order", json_schema_extra=_enum(SORTS)),
    label: str | None = Query(None, max_length=64, description="taskLabel, e.g. bug_report"),
    importance: str | None = Query(None, json_schema_extra=_enum([v.value for v in Importance], True)),
    state: str | None = Query(None, json_schema_extra=_enum(STATES, True)),
    kind: str | None = Query(None, json_schema_extra=_enum([k.value for k in InsightKind], True)),
    status: str | None = Query(None, json_schema_extra=_enum([s.value for s in InsightStatus], True)),
    q: str | None = Query(None, max_length=2000, description="search insights by words and meaning instead"),
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, le=100_000),
) -> dict[str, Any]:
    service = get_services(request).insights
    # The filters are checked even when `q` searches instead, so a bad value is never ignored.
    service.check_filters(sort=sort, importance=importance, state=state, kind=kind, status=status)
    if q and q.strip():
        items = service.search(q, min(limit + offset, 500))[offset:]
    else:
        items = service.list_insights(
            sort=sort, label=label, importance=importance, state=state, kind=kind, status=status,
            limit=limit, offset=offset,
        )  # fmt: skip
    return {"items": [r.to_dict(full=False) for r in items], "count": len(items), "offset": offset}


@router.get("/insights/brief", summary="Open loops: my tasks, what I wait on, questions to me")
def insights_brief(
    request: Request,
    me: list[str] | None = Query(None, description="names you go by (default: insights.identities)"),
    limit: int = Query(20, ge=1, le=200),
) -> dict[str, Any]:
    return get_services(request).insights.brief(limit, me or None).to_dict()


@router.get(
    "/insights/{insight_id}", summary="One insight with details, timeline and evidence (counts a view)"
)
def get_insight(request: Request, insight_id: InsightId) -> dict[str, Any]:
    return get_services(request).insights.get(insight_id).to_dict()


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
