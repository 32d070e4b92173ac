"""`/api/messages/deletions`: preview and apply a bulk deletion by platform, channel, person and dates."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from app.api.deps import get_services
from app.api.schemas import DeletionPlanOut, DeletionReportOut, MessageSelectorIn
from app.bootstrap import Services
from app.core.jsonl import parse_timestamp
from app.services.deletion_service import MessageSelector

router = APIRouter(tags=["messages"])
ACTOR = "api"


def selector_from(body: MessageSelectorIn) -> MessageSelector:
    return MessageSelector(
        platform=body.platform or None,
        channel=body.channel or None,
        person=body.person or None,
        since=parse_timestamp(body.since) if body.since else None,
        until=parse_timestamp(body.before) if body.before else None,
    )


@router.post("/messages/deletions/preview", response_model=DeletionPlanOut, summary="Preview a bulk deletion")
def preview_deletion(body: MessageSelectorIn, services: Services = Depends(get_services)) -> DeletionPlanOut:
    """How many messages match, where, and the first few; deletes nothing."""
    return DeletionPlanOut(**services.memory.deletion.plan(selector_from(body)).to_dict())


@router.post("/messages/deletions", response_model=DeletionReportOut, summary="Delete messages in bulk")
def delete_messages(body: MessageSelectorIn, services: Services = Depends(get_services)) -> DeletionReportOut:
    """Delete every matching message for good (rows, keyword entries, vectors, audit text, summaries)."""
    report = services.memory.deletion.delete_matching(selector_from(body), actor=ACTOR)
    return DeletionReportOut(**report.to_dict())
