"""`/api/messages`: ingest a batch (JSONL field format), read, pin and delete single messages."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from app.api.deps import get_services
from app.api.schemas import MAX_ID, DeletedOut, IngestIn, IngestOut, MessageOut, PinIn
from app.bootstrap import Services
from app.core.domain import IngestError, RawMessage
from app.core.errors import InvalidInput, NotFound
from app.core.jsonl import message_from_mapping
from app.core.sanitize import repair_text

router = APIRouter(tags=["messages"])

MessageId = Annotated[int, Path(ge=1, le=MAX_ID, description="record id (`id` of a search hit)")]
# The read options both message routes take, written once.
Context = Annotated[int, Query(ge=0, le=50, description="also return N messages before and after it")]
Reveal = Annotated[bool, Query(description="secrets verbatim (needs [privacy] allow_reveal = true)")]
IncludeArchived = Annotated[
    bool, Query(description="show the verbatim text of archived messages (otherwise `content` is null)")
]
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
            message = message_from_mapping(data, default_user=services.settings.user_id)
            items.append(dataclasses.replace(message, line=position))
        except InvalidInput as exc:
            message_id = data.get("message_id")
            items.append(IngestError(reason=str(exc), line=position, message_id=_text(message_id)))
    # One transaction for the whole request: it is stored entirely or (on a storage error) not at all.
    result = services.memory.ingest(items, total=len(items), actor=ACTOR, atomic=True)
    if items and len(result.errors) == len(items):
        raise InvalidInput(
            f"none of the {len(items)} messages could be stored: "
            + "; ".join(f"item {e.line}: {e.reason}" for e in result.errors[:5])
            + (f"; … and {len(items) - 5} more" if len(items) > 5 else ""),
            hint="fix the items named above and send them again",
        )
    return IngestOut(**result.to_dict(), ids=list(result.ids))


@router.get("/messages/{message_id}", response_model=MessageOut, summary="Get one message")
def get_message(
    message_id: MessageId,
    context: Context = 0,
    reveal: Reveal = False,
    include_archived: IncludeArchived = False,
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


@router.get(
    "/messages/by-source/{platform}/{source_id:path}",
    response_model=MessageOut,
    summary="Get one message by platform and the platform's message id",
)
def get_message_by_source(
    platform: Annotated[str, Path(min_length=1, max_length=64, description="e.g. slack, telegram")],
    source_id: Annotated[
        str, Path(min_length=1, max_length=1000, description="`message_id` as the platform or import gave it")
    ],
    context: Context = 0,
    reveal: Reveal = False,
    include_archived: IncludeArchived = False,
    services: Services = Depends(get_services),
) -> MessageOut:
    """The record whose (platform, message_id) is given; `/messages/{id}` takes the record id instead."""
    found = services.memory.find(platform.strip().lower(), [source_id])
    if not found:
        raise NotFound(
            f"no {platform} message with id {source_id!r}",
            hint="platform and message_id are as in the import or a search hit's `message_id`",
        )
    return get_message(
        found[0].id, context=context, reveal=reveal, include_archived=include_archived, services=services
    )


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
    return None if value in (None, "") else repair_text(str(value))
