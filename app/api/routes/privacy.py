"""`GET /api/llm/usage` (LLM tokens and cost against the daily caps) and `GET /api/privacy/scan`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query

from app.api.deps import get_services
from app.bootstrap import Services

router = APIRouter(tags=["privacy"])


@router.get("/llm/usage", summary="LLM usage today against the daily caps, per day, feature and model")
def llm_usage(
    days: int = Query(30, ge=1, le=3650, description="days of history"),
    services: Services = Depends(get_services),
) -> dict[str, Any]:
    return services.privacy.llm_usage(days).to_dict()


@router.get("/privacy/scan", summary="Stored messages and documents holding secrets (masked previews)")
def privacy_scan(
    pii: bool = Query(False, description="also list e-mail addresses and phone numbers"),
    limit: int = Query(1000, ge=1, le=10_000, description="list at most this many records"),
    services: Services = Depends(get_services),
) -> dict[str, Any]:
    return services.privacy.scan(include_pii=pii, limit=limit).to_dict()
