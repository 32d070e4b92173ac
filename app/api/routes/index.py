"""`GET /api/index`: the indexed corpus per kind, the re-embed job's status and the embedding backlog."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from app.api.deps import get_services
from app.bootstrap import Services

router = APIRouter(tags=["index"])


@router.get("/index", summary="Index state per kind and re-embed progress")
def index_status(services: Services = Depends(get_services)) -> dict[str, Any]:
    """Read-only: counts SQLite rows against vectors per kind (no repair on this path), and says
    whether an approximate vector index serves each kind (`vector_index`)."""
    ann = services.index.vector_indexes()
    return {
        "kinds": [{**r.to_dict(), "vector_index": ann.get(r.kind)} for r in services.index.verify()],
        "reembed": services.reembed.status(),
        "backlog": services.memory.embedding_backlog(),
    }
