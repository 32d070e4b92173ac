"""`/api/messages`: ingest a batch (JSONL field format), read, pin and delete single messages."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from app.api.deps import get_services
from app.api.schemas import MAX_ID, DeletedOut, IngestIn, IngestOut, MessageOut, PinIn
from app.bootstrap import Services
from app.core.domain import IngestError, RawMessage
from app.core.errors import InvalidInput
from app.core.jsonl import message_from_mapping

router = APIRouter(tags=["messages"])

MessageId = Annotated[int, Path(ge=1, le=MAX_ID, description="record id (`id` of a search hit)")]
ACTOR = "api"


@router.post("/messages", response_model=IngestOut, summary="Ingest a batch of messages")
def ingest_messages(body: IngestIn, services: Services = Depends(get_services)) -> IngestOut:
    """Store messages; re-sending the same (platform, message_id) is a no-op, an edit updates in place."""
    items: list[RawMessage | IngestError] = []
    for position, item in enumerate(body.messages, start=1):
        data = item.model_dump()
        # One local user: the API stores everything under the configured user, whatever the item says.
        data["user_id"] = services.settings.user_id
        try:
            items.append(message_from_mapping(data, default_user=services.settings.user_id))
        except InvalidInput as exc:
            message_id = data.get("message_id")
            items.append(IngestError(reason=str(exc), line=position, message_id=_text(message_id)))
    result = services.memory.ingest(items, total=len(items), actor=ACTOR)
    return IngestOut(**result.to_dict(), ids=list(result.ids))


@router.get("/messages/{message_id}", response_model=MessageOut, summary="Get one message")
def get_message(
    message_id: MessageId,
    context: int = Query(0, ge=0, le=50, description="also return N messages before and after it"),
    reveal: bool = Query(False, description="secrets verbatim (needs [privacy] allow_reveal = true)"),
    include_archived: bool = Query(
        False, description="show the verbatim text of archived messages (otherwise `content` is null)"
    ),
    services: Services = Depends(get_services),
) -> MessageOut:
    reveal = services.privacy.check_reveal(reveal)
    if context == 0:
        return _outgoing(
            services,
            MessageOut.from_record(services.memory.get(message_id, reveal_archived=include_archived)),
            reveal,
        )
    found = services.memory.context(
        message_id, before=context, after=context, reveal_archived=include_archived
    )
    neighbours = [_outgoing(services, MessageOut.from_record(r), reveal) for r in found.neighbours]
    return _outgoing(services, MessageOut.from_record(found.record, neighbours), reveal)


def _outgoing(services: Services, out: MessageOut, reveal: bool) -> MessageOut:
    """Mask detected secrets in the text (stored text stays verbatim) and mark injection-like text."""
    flags = services.privacy.flags(out.content, out.metadata)
    if out.content and not reveal:
        out.content = services.privacy.mask(out.content)
    if flags:
        out.metadata = {**out.metadata, "flags": flags, "untrusted": True}
    return out


@router.post("/messages/{message_id}/pin", response_model=MessageOut, summary="Pin or unpin a message")
def pin_message(
    message_id: MessageId, body: PinIn | None = None, services: Services = Depends(get_services)
) -> MessageOut:
    """Pinned messages are never forgotten. Body `{"pinned": false}` unpins."""
    pinned = True if body is None else body.pinned
    return MessageOut.from_record(services.memory.pin(message_id, pinned, actor=ACTOR))


@router.delete("/messages/{message_id}", response_model=DeletedOut, summary="Delete a message (audited)")
def delete_message(message_id: MessageId, services: Services = Depends(get_services)) -> DeletedOut:
    services.memory.delete(message_id, actor=ACTOR)
    return DeletedOut(deleted=message_id)


def _text(value: object) -> str | None:
    return None if value in (None, "") else str(value)
