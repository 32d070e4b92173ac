"""`/api/export` and `/api/backup`: write an export or a consistent backup into the data dir.

The folder is always `<data dir>/exports/<name>` or `<data dir>/backups/<name>`: a token holder
(an agent, say) can take a copy but cannot make Strata write elsewhere on the computer.

Restore has no route on purpose: it replaces the data dir this server has open
(`strata restore PATH` with the app and server stopped).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from app.api.deps import get_services
from app.api.schemas import FolderNameIn
from app.bootstrap import Services

router = APIRouter(tags=["data"])


@router.post("/export", summary="Export everything you own in open formats to a new folder")
def export_data(
    body: FolderNameIn | None = None, services: Services = Depends(get_services)
) -> dict[str, Any]:
    """Messages (JSONL import format, archived text included), summaries, insights, KB originals,
    settings without secrets, into `<data dir>/exports/<name>` (a new folder)."""
    assert services.exports is not None
    target = services.exports.folder("exports", body.name if body else None)
    return services.exports.export(target).to_dict()


@router.post("/backup", summary="Take a consistent backup of the data dir into a new folder")
def backup_data(
    body: FolderNameIn | None = None, services: Services = Depends(get_services)
) -> dict[str, Any]:
    """SQLite online backup plus each vector table at its current version, safe while importing,
    into `<data dir>/backups/<name>` (a new folder)."""
    assert services.exports is not None
    target = services.exports.folder("backups", body.name if body else None)
    return services.exports.backup(target).to_dict()
