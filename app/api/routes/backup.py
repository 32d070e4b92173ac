"""`/api/export` and `/api/backup`: write an export or a consistent backup to a folder on this computer.

Restore has no route on purpose: it replaces the data dir this server has open
(`strata restore PATH` with the app and server stopped).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends

from app.api.deps import get_services
from app.api.schemas import PathIn
from app.bootstrap import Services

router = APIRouter(tags=["data"])


@router.post("/export", summary="Export everything you own in open formats to a new folder")
def export_data(body: PathIn, services: Services = Depends(get_services)) -> dict[str, Any]:
    """Messages (JSONL import format, archived text included), summaries, insights, KB originals,
    settings without secrets; `path` must not exist yet or be an empty folder."""
    assert services.exports is not None
    return services.exports.export(Path(body.path)).to_dict()


@router.post("/backup", summary="Take a consistent backup of the data dir into a new folder")
def backup_data(body: PathIn, services: Services = Depends(get_services)) -> dict[str, Any]:
    """SQLite online backup plus each vector table at its current version; safe while importing."""
    assert services.exports is not None
    return services.exports.backup(Path(body.path)).to_dict()
