"""Fixtures for forgetting tests: a fixed clock and a MessageRecord factory."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from app.core.clock import DAY_MS, FixedClock
from app.core.domain import Attachment, MessageRecord, Tier
from tests.forgetting.factory import NOW

RecordFactory = Callable[..., MessageRecord]


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture
def make_record() -> RecordFactory:
    ids = itertools.count(1)

    def make(
        *,
        age_ms: int = 10 * DAY_MS,
        content: str | None = "plain words here",
        tier: Tier = Tier.SHORT,
        access_count: int = 0,
        importance: float | None = None,
        media: bool = False,
        pinned: bool = False,
        platform: str = "slack",
        channel: str = "general",
        person: str = "alice",
        bot_id: str | None = None,
        user_id: str = "local",
        archived_at: int | None = None,
        now: int = NOW,
        **extra: Any,
    ) -> MessageRecord:
        rid = extra.pop("id", None) or next(ids)
        return MessageRecord(
            id=rid,
            user_id=user_id,
            platform=platform,
            message_id=f"m{rid}",
            channel=channel,
            person=person,
            bot_id=bot_id,
            timestamp=now - age_ms,
            created_at=now - age_ms,
            content=content,
            attachments=(Attachment("photo.png"),) if media else (),
            metadata={},
            memory_stage=tier,
            access_count=access_count,
            last_access_at=None,
            importance_score=importance,
            archived_at=archived_at,
            is_pinned=pinned,
            summary_ref_id=extra.pop("summary_ref_id", None),
        )

    return make


def seed_group(
    services: Any,
    *,
    day: int,
    n: int = 3,
    channel: str = "general",
    person: str = "alice",
    texts: list[str] | None = None,
    prefix: str = "g",
    **overrides: Any,
) -> list[int]:
    """Ingest `n` messages `day` days before NOW (same UTC day, one minute apart); returns their ids."""
    from app.core.domain import RawMessage

    base = NOW - day * DAY_MS - 12 * 3_600_000
    messages = [
        RawMessage(
            platform=overrides.get("platform", "slack"),
            message_id=f"{prefix}{day}-{channel}-{person}-{i}",
            channel=channel,
            person=person,
            timestamp=base + i * 60_000,
            content=(
                texts[i % len(texts)] if texts else f"note {i} about the {channel} project on day {day}"
            ),
            bot_id=overrides.get("bot_id"),
            user_id=overrides.get("user_id", "local"),
        )
        for i in range(n)
    ]
    result = services.memory.ingest(messages)
    assert not result.errors, result.errors
    return list(result.ids)
