"""Sentence keys as a vector-only corpus kind whose hits resolve to the messages they came from.

Each key is stored under `<message id>:<n>` with the message's prefilter columns, so the one
typed filter of a message search applies to keys unchanged, and a hit on any key of a message
counts as vector evidence for that message (the best key's cosine, or the message's own if
higher). Keys are derived data: rebuilt from `raw_messages` (`key_text.message_keys`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from app.core.index.corpus import IndexDoc, KindSpec
from app.core.index.key_text import message_keys
from app.core.index.legs import LegHit, ranked
from app.core.index.message_kind import MESSAGE_VECTOR_COLUMNS

MESSAGE_KEY_KIND = "message_key"
# The message's prefilter columns that never change; tier and archived are left out (a key hit
# is checked against its message row like every candidate, and archiving drops the keys:
# `MessageKeys.on_messages_archived`).
MESSAGE_KEY_COLUMNS = tuple(c for c in MESSAGE_VECTOR_COLUMNS if c not in ("tier", "archived"))
MESSAGE_KEY_SPEC = KindSpec(
    kind=MESSAGE_KEY_KIND, collection="message_keys", columns=MESSAGE_KEY_COLUMNS, keyword=False
)


def key_of(message_id: int | str, n: int) -> str:
    return f"{message_id}:{n}"


def message_of(key: str) -> str:
    """The message a key points back to."""
    return key.split(":", 1)[0]


def key_docs(row: Any, *, content_hash: str = "", stamped_hash: str | None = None) -> list[IndexDoc]:
    """A message row's keys as index documents (vectors only: the message's own keyword entry
    already holds every word of them). The hashes are the message's text hash, now and as
    stamped when its keys were embedded."""
    columns = {
        "platform": row.platform,
        "channel": row.channel,
        "person": row.person,
        "timestamp": row.timestamp,
    }
    return [
        IndexDoc(
            key=key_of(row.id, n),
            user_id=row.user_id,
            document=text,
            keyword_text="",
            columns=columns,
            content_hash=content_hash,
            stamped_hash=stamped_hash,
        )
        for n, text in enumerate(message_keys(row.person, row.content))
    ]


def resolve(
    message_hits: Sequence[LegHit],
    key_hits: Iterable[LegHit],
    own: Callable[[list[str]], Mapping[str, float]],
    weight: float,
    min_cosine: float = 0.0,
) -> tuple[LegHit, ...]:
    """One vector leg over messages. A message a key found counts its own cosine raised by
    `weight` × how far its best key's cosine is above it (1: the best key's; 0: only found).
    Keys under `min_cosine` count for nothing (one shared word is no evidence)."""
    best: dict[str, float] = {}
    for hit in key_hits:
        if hit.value < min_cosine:
            continue
        message = message_of(hit.key)
        best[message] = max(hit.value, best.get(message, -2.0))
    values = {h.key: h.value for h in message_hits}
    unknown = [m for m in best if m not in values]
    values |= own(unknown) if unknown else {}
    for message, key_cosine in best.items():
        base = values.get(message)
        if base is None:
            continue  # no vector of its own (not embedded yet, or deleted since)
        values[message] = base + weight * max(0.0, key_cosine - base)
    return ranked(sorted(values.items(), key=lambda kv: -kv[1]))
