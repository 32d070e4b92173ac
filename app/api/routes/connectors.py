"""`GET /api/connectors`, `GET /api/connectors/{id}/status`, `POST /api/connectors/{id}/sync`."""

from __future__ import annotations

import threading
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, status
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from app.api.deps import get_services
from app.api.schemas import INTEGRAL
from app.services.connector_service import ConnectorService

router = APIRouter(tags=["connectors"])


def get_connectors(request: Request) -> ConnectorService:
    services = get_services(request)
    assert services.connectors is not None, "bootstrap always builds the connector service"
    return services.connectors


class LastRunOut(BaseModel):
    imported: int
    updated: int
    deleted: int


class ConnectorOut(BaseModel):
    id: str = Field(..., description="connector name, e.g. slack or slack-work")
    kind: str = Field(..., description="slack, discord or telegram")
    enabled: bool
    interval_minutes: int = Field(..., description="scheduled sync interval")
    status: str = Field(..., description="never, running, ok or error")
    last_sync_at: str | None
    last_success_at: str | None
    last_error: str | None
    last_error_code: str | None = Field(
        None, description="e.g. connector_auth_failed, connector_rate_limited"
    )
    messages_total: int
    last_run: LastRunOut
    has_cursor: bool
    options: dict[str, Any]


class KindOut(BaseModel):
    kind: str
    title: str
    options: list[str]
    token_help: str


class ConnectorListOut(BaseModel):
    connectors: list[ConnectorOut]
    kinds: list[KindOut]


class SyncIn(BaseModel):
    # Strict: JSON types are taken as declared (`true` is not 1, "5" is not 5).
    model_config = ConfigDict(strict=True)
    limit: Annotated[int, Field(ge=1, le=1_000_000), INTEGRAL] | None = Field(
        None, description="first sync: newest N per channel"
    )
    full: StrictBool = Field(
        False, description="ignore the cursor (already stored messages count as duplicates)"
    )
    background: StrictBool = Field(
        False, description="start the sync and answer 202 at once; poll the status route"
    )


class SyncReportOut(BaseModel):
    connector: str
    ok: bool = Field(..., description="false when the run stopped early; the cursor stays before the failure")
    started_at: str | None
    finished_at: str | None
    fetched: int
    imported: int
    updated: int
    duplicates: int
    deleted: int
    rejected: int
    batches: int
    warnings: list[str]
    error: str | None
    error_code: str | None
    retry_after: float | None


@router.get(
    "/connectors", response_model=ConnectorListOut, summary="Configured connectors and available kinds"
)
def list_connectors(connectors: ConnectorService = Depends(get_connectors)) -> ConnectorListOut:
    return ConnectorListOut(
        connectors=[ConnectorOut(**s.to_dict()) for s in connectors.list_all()],
        kinds=[KindOut(**k) for k in connectors.kinds()],
    )


@router.get(
    "/connectors/{connector_id}/status", response_model=ConnectorOut, summary="One connector's sync state"
)
def connector_status(
    connector_id: str, connectors: ConnectorService = Depends(get_connectors)
) -> ConnectorOut:
    return ConnectorOut(**connectors.status(connector_id).to_dict())


@router.post(
    "/connectors/{connector_id}/sync",
    response_model=SyncReportOut,
    summary="Sync a connector now",
    responses={202: {"description": "background sync started; poll /connectors/{id}/status"}},
)
def sync_connector(
    connector_id: str, body: SyncIn | None = None, connectors: ConnectorService = Depends(get_connectors)
) -> Any:
    body = body or SyncIn()
    connectors.status(connector_id)  # 404 before anything starts
    if body.background:
        thread = threading.Thread(
            target=connectors.sync,
            args=(connector_id,),
            kwargs={"limit": body.limit, "full": body.full},
            name=f"sync-{connector_id}",
            daemon=True,
        )
        thread.start()
        return JSONResponse(
            {"started": True, "connector": connector_id}, status_code=status.HTTP_202_ACCEPTED
        )
    return SyncReportOut(**connectors.sync(connector_id, limit=body.limit, full=body.full).to_dict())
