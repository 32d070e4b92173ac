"""Message ranking: relevance from both legs and the conversation window, people boosts, floor, dedupe."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.core.clock import DAY_MS
from app.core.domain import SearchHit
from app.core.search.context import CandidateContext
from app.core.search.fusion import LegHit, Window, near_duplicate_key, score_candidates
from app.core.search.people import Mentions

if TYPE_CHECKING:
    from app.core.search.messages import SearchConfig


@dataclass(frozen=True, slots=True)
class RankedMessages:
    hits: list[SearchHit]
    hidden: int  # candidates below the relevance floor (shown by a loose search)


def message_text(row: Any) -> str:
    """What the lexical evidence reads: the text and who wrote it (as the keyword index does)."""
    return f"{row.content or ''} {row.person or ''}"


def rank_messages(
    *,
    query_text: str,
    vector: Sequence[LegHit],
    keyword: Sequence[LegHit],
    rows: Mapping[str, Any],
    context: CandidateContext | None,
    passes: Callable[[Any], bool],
    mentions: Mentions,
    now_ms: int,
    config: SearchConfig,
    limit: int,
    loose: bool,
    to_hit: Callable[[Any, float, float], SearchHit],
) -> RankedMessages:
    texts = {key: message_text(row) for key, row in rows.items()}
    windows: dict[str, Window] = {}
    if context is not None:
        for key, around in context.neighbours.items():
            words = " ".join(texts[n] for n in around if n in texts)
            windows[key] = Window(context.window_cosines.get(key), words)
    relevance = score_candidates(
        vector,
        keyword,
        query=query_text,
        texts=texts,
        config=config.fusion.config,
        cosines=context.cosines if context is not None else None,
        windows=windows,
    )
    scored: list[tuple[float, float, Any]] = []
    hidden = 0
    for key, value in relevance.items():
        row = rows.get(key)
        if row is None or not passes(row):
            continue  # a vector whose row is gone (crash leftovers) or filtered after the fact
        # A person the query names: their messages and conversations are likelier answers.
        if (row.platform, row.channel) in mentions.channels:
            value += config.mentioned_channel_bonus
        if row.person in mentions.persons:
            value += config.mentioned_person_bonus
        value = min(1.0, value)
        if value < config.fusion.config.floor and not loose:
            hidden += 1
            continue
        age_days = max(0.0, (now_ms - row.timestamp) / DAY_MS)
        score = value + config.recency_weight * math.exp(-age_days / config.recency_half_life_days)
        scored.append((score, value, row))
    scored.sort(key=lambda item: (-item[0], -item[2].timestamp))
    hits: list[SearchHit] = []
    seen: set[str] = set()
    for score, value, row in scored:
        dup = near_duplicate_key(row.content or "")
        if dup in seen:
            continue
        seen.add(dup)
        hits.append(to_hit(row, score, value))
        if len(hits) >= limit:
            break
    return RankedMessages(hits, hidden)
