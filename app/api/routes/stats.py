"""`GET /api/stats`: what the memory holds (counts per platform and tier, index facts)."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from app.api.deps import get_services
from app.api.schemas import StatsOut
from app.bootstrap import Services

router = APIRouter(tags=["stats"])


@router.get("/stats", response_model=StatsOut, summary="Memory statistics")
def stats(services: Services = Depends(get_services)) -> StatsOut:
    # As `strata stats --json`: with `keyword_reindex`, how far the background reindex has come.
    return StatsOut(**services.stats())
