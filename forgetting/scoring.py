"""The value score (spec formula): recency, log-scaled access, importance, media and pin boost."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from app.core.domain import MessageRecord
from forgetting import constants as c


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """Each component of the score, so previews can say why a record is kept or archived."""

    recency: float
    access: float
    importance: float
    inferred_importance: float
    media: float
    pinned_boost: float
    score: float

    def to_dict(self) -> dict[str, float]:
        return {
            "recency": round(self.recency, 6),
            "access": round(self.access, 6),
            "importance": round(self.importance, 6),
            "inferredImportance": round(self.inferred_importance, 6),
            "media": round(self.media, 6),
            "pinnedBoost": round(self.pinned_boost, 6),
            "score": round(self.score, 6),
        }


def clamp01(value: float) -> float:
    # NaN would poison every comparison downstream; treat it as "no signal".
    if value != value:
        return 0.0
    return 0.0 if value < 0.0 else 1.0 if value > 1.0 else value


def _keyword_pattern(keyword: str) -> re.Pattern[str]:
    # Whole words only ("bug" must not fire on "debug"), plural allowed, and multi-word keywords
    # accept a space, hyphen or nothing between words ("follow up", "follow-up", "followup").
    parts = [re.escape(p) for p in keyword.split()]
    body = r"[\s\-_]?".join(parts)
    if keyword == "todo":
        body = r"to[\s\-]?do"
    return re.compile(rf"(?<![\w]){body}(?:s|es)?(?![\w])", re.IGNORECASE)


_PATTERNS = tuple((kw, _keyword_pattern(kw)) for kw in c.IMPORTANCE_KEYWORDS)


def importance_hits(text: str | None) -> tuple[str, ...]:
    """The distinct importance keywords present in `text` (each keyword counts once)."""
    if not text:
        return ()
    return tuple(kw for kw, pattern in _PATTERNS if pattern.search(text))


def inferred_importance(text: str | None) -> float:
    return clamp01(len(importance_hits(text)) / c.IMPORTANCE_HITS_FOR_FULL)


def recency_score(timestamp_ms: int, now_ms: int) -> float:
    # Clock skew: a record stamped in the future has age 0, never a negative age.
    age = max(0, now_ms - timestamp_ms)
    return clamp01(1.0 - age / c.RECENCY_HORIZON_MS)


def access_score(access_count: int | None) -> float:
    count = max(0, int(access_count or 0))
    return clamp01(math.log1p(count) / math.log(c.ACCESS_LOG_BASE))


def media_score(has_media: bool) -> float:
    return c.MEDIA_SCORE_WITH_MEDIA if has_media else c.MEDIA_SCORE_WITHOUT_MEDIA


def score_parts(
    *,
    timestamp_ms: int,
    now_ms: int,
    access_count: int | None,
    provided_importance: float | None,
    text: str | None,
    has_media: bool,
    is_pinned: bool,
) -> ScoreBreakdown:
    recency = recency_score(timestamp_ms, now_ms)
    access = access_score(access_count)
    inferred = inferred_importance(text)
    provided = clamp01(float(provided_importance)) if provided_importance is not None else 0.0
    importance = max(provided, inferred)
    media = media_score(has_media)
    boost = c.PINNED_BOOST if is_pinned else 0.0
    total = clamp01(
        c.WEIGHT_RECENCY * recency
        + c.WEIGHT_ACCESS * access
        + c.WEIGHT_IMPORTANCE * importance
        + c.WEIGHT_MEDIA * media
        + boost
    )
    return ScoreBreakdown(recency, access, importance, inferred, media, boost, total)


def score_record(record: MessageRecord, now_ms: int) -> ScoreBreakdown:
    """Score one stored record at `now_ms` (Unix ms from the injected clock)."""
    return score_parts(
        timestamp_ms=record.timestamp,
        now_ms=now_ms,
        access_count=record.access_count,
        provided_importance=record.importance_score,
        text=record.content,
        has_media=record.has_media,
        is_pinned=record.is_pinned,
    )
