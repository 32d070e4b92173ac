"""`/api/insights`: list (sort + filters), brief, me, get (counts a view), favorite, lifecycle, trend."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, Field, StrictBool

from app.api.deps import get_services
from app.core.clock import datetime_to_ms
from app.services.insights_service import LIFECYCLE_FILTERS, SORTS, STATES
from insights.model import Importance, InsightKind, InsightStatus

router = APIRouter(tags=["insights"])

InsightId = Annotated[str, Path(min_length=1, max_length=64, description="insight id (uuid)")]


def _enum(values: Sequence[str], optional: bool = False) -> dict[str, Any]:
    choices: list[dict[str, Any]] = [{"type": "string", "enum": list(values)}]
    return {"anyOf": [*choices, {"type": "null"}]} if optional else choices[0]


class FavoriteIn(BaseModel):
    favorite: StrictBool = Field(True, description="false removes the favorite")


class LifecycleIn(BaseModel):
    state: Literal["open", "done", "dismissed", "snoozed"] = Field(
        ..., description="done / dismissed leave the default list; snoozed hides it until `until`"
    )
    until: datetime | None = Field(None, description="snoozed: when it comes back (ISO 8601, UTC if no zone)")


class MeIn(BaseModel):
    names: list[Annotated[str, Field(min_length=1, max_length=256)]] = Field(
        ..., min_length=1, max_length=20, description="the names and handles you go by in your chats"
    )


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
    lifecycle: str | None = Query(
        None,
        description="open (default), done, dismissed, snoozed or all; status=resolved alone implies all",
        json_schema_extra=_enum(LIFECYCLE_FILTERS, True),
    ),
    q: str | None = Query(None, max_length=2000, description="search insights by words and meaning instead"),
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, le=100_000),
    reveal: bool = Query(False, description="secrets verbatim (needs [privacy] allow_reveal = true)"),
) -> dict[str, Any]:
    get_services(request).privacy.check_reveal(reveal)  # refused before any work when not allowed
    service = get_services(request).insights
    # The filters are checked even when `q` searches instead, so a bad value is never ignored.
    service.check_filters(
        sort=sort, importance=importance, state=state, kind=kind, status=status, lifecycle_state=lifecycle
    )
    if q and q.strip():
        items = service.search(q, min(limit + offset, 500))[offset:]
    else:
        items = service.list_insights(
            sort=sort, label=label, importance=importance, state=state, kind=kind, status=status,
            limit=limit, offset=offset, lifecycle_state=lifecycle,
        )  # fmt: skip
    page = {"items": [r.to_dict(full=False) for r in items], "count": len(items), "offset": offset}
    return get_services(request).privacy.mask_payload(page, reveal=reveal)  # chat text: secrets masked


@router.get("/insights/brief", summary="Open loops: my tasks, what I wait on, questions to me")
def insights_brief(
    request: Request,
    me: list[str] | None = Query(None, description="names you go by (default: insights.identities)"),
    limit: int = Query(20, ge=1, le=200),
    reveal: bool = Query(False, description="secrets verbatim (needs [privacy] allow_reveal = true)"),
) -> dict[str, Any]:
    services = get_services(request)
    services.privacy.check_reveal(reveal)
    return services.privacy.mask_payload(services.insights.brief(limit, me or None).to_dict(), reveal=reveal)


@router.get("/insights/me", summary="The names you go by in your chats (drives the open loops)")
def insights_me(request: Request) -> dict[str, Any]:
    return {"names": list(get_services(request).insights.me())}


@router.put("/insights/me", summary="Tell Strata the names you go by (first-run question)")
def set_insights_me(request: Request, body: MeIn) -> dict[str, Any]:
    return {"names": list(get_services(request).insights.set_me(body.names))}


@router.get(
    "/insights/{insight_id}", summary="One insight with details, timeline and evidence (counts a view)"
)
def get_insight(
    request: Request,
    insight_id: InsightId,
    reveal: bool = Query(False, description="secrets verbatim (needs [privacy] allow_reveal = true)"),
) -> dict[str, Any]:
    services = get_services(request)
    services.privacy.check_reveal(reveal)  # before `get`, which counts a view
    return services.privacy.mask_payload(services.insights.get(insight_id).to_dict(), reveal=reveal)


@router.post("/insights/{insight_id}/favorite", summary="Favorite or unfavorite an insight")
def favorite_insight(
    request: Request, insight_id: InsightId, body: FavoriteIn | None = None
) -> dict[str, Any]:
    value = True if body is None else body.favorite
    return get_services(request).insights.favorite(insight_id, value).to_dict(full=False)


@router.post(
    "/insights/{insight_id}/lifecycle",
    summary="Mark an insight done, dismissed, snoozed until a time, or open",
)
def insight_lifecycle(request: Request, insight_id: InsightId, body: LifecycleIn) -> dict[str, Any]:
    until = None
    if body.until is not None:
        at = body.until if body.until.tzinfo else body.until.replace(tzinfo=UTC)
        until = datetime_to_ms(at)
    return get_services(request).insights.set_lifecycle(insight_id, body.state, until).to_dict(full=False)


@router.get(
    "/insights/{insight_id}/trend", summary="Access trend: rising / falling / stable and a daily series"
)
def insight_trend(
    request: Request, insight_id: InsightId, days: int = Query(30, ge=1, le=365)
) -> dict[str, Any]:
    return get_services(request).insights.trend(insight_id, days)
