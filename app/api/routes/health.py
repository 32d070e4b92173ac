"""`GET /api/health`: open liveness probe (no token), with nothing about the user's data."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from app import __version__

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: str
    version: str


@router.get("/health", response_model=Health, summary="Liveness probe; needs no token")
def health() -> Health:
    return Health(status="ok", version=__version__)
