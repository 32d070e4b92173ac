"""Every number of the forgetting engine from the specification (reference/003, "The Forgetting Engine")."""

from __future__ import annotations

from app.core.clock import DAY_MS
from app.core.domain import Tier

# --- Value score -------------------------------------------------------------------------------
# score = clamp01(0.35*recency + 0.30*access + 0.25*importance + 0.10*media + pinnedBoost)
WEIGHT_RECENCY = 0.35
WEIGHT_ACCESS = 0.30
WEIGHT_IMPORTANCE = 0.25
WEIGHT_MEDIA = 0.10

# recencyScore = clamp01(1 - ageMs / (180 * DAY_MS)); a timestamp in the future counts as age 0.
RECENCY_HORIZON_MS = 180 * DAY_MS

# accessScore = clamp01(log1p(accessCount) / log(10)): 9 reads already score 1.0.
ACCESS_LOG_BASE = 10.0

# inferredImportance = hits / 4 over this keyword list; importanceScore = max(provided, inferred).
IMPORTANCE_KEYWORDS: tuple[str, ...] = (
    "deadline",
    "todo",
    "urgent",
    "risk",
    "decision",
    "blocker",
    "meeting",
    "action item",
    "milestone",
    "bug",
    "incident",
    "follow up",
)
IMPORTANCE_HITS_FOR_FULL = 4

# mediaScore = hasMediaRefs ? 0.7 : 0.25
MEDIA_SCORE_WITH_MEDIA = 0.7
MEDIA_SCORE_WITHOUT_MEDIA = 0.25

# pinnedBoost = isPinned ? 0.3 : 0
PINNED_BOOST = 0.3

# --- Tiers ---------------------------------------------------------------------------------------
# short (minutes–7 days) → mid (7–90 days) → long (90+ days). A record is evaluated once its age
# strictly exceeds its tier's maximum age; it is promoted when score >= threshold, else archived.
SHORT_MAX_AGE_MS = 7 * DAY_MS
MID_MAX_AGE_MS = 90 * DAY_MS
SHORT_TO_MID_THRESHOLD = 0.65
MID_TO_LONG_THRESHOLD = 0.45

# Group window per source tier: short uses 1-day buckets, mid uses 7-day buckets.
SHORT_BUCKET_MS = 1 * DAY_MS
MID_BUCKET_MS = 7 * DAY_MS
# Buckets are aligned to UTC midnight; week buckets start on Monday (1970-01-01 was a Thursday,
# so boundaries at 4 days + k weeks after the epoch fall on Mondays 00:00 UTC).
WEEK_BUCKET_OFFSET_MS = 4 * DAY_MS

# Tier → summary tier (memory_summaries.summaryTier).
SUMMARY_TIER: dict[Tier, str] = {Tier.SHORT: "L1", Tier.MID: "L2", Tier.LONG: "L3"}

# --- Grouping -----------------------------------------------------------------------------------
MIN_GROUP_SIZE = 3
MAX_CANDIDATES_PER_TIER = 500
# Dimension key: a bucket only holds records sharing all of these values.
DIMENSION_FIELDS: tuple[str, ...] = ("platform", "channel", "person", "botId")

# --- Summaries ----------------------------------------------------------------------------------
SUMMARY_ID_PREFIX = "ms_"
MAX_KEY_POINTS = 5
MAX_KEYWORDS = 10
MAX_KEY_POINT_CHARS = 280
MAX_SUMMARY_TEXT_CHARS = 1200

# --- Lock ---------------------------------------------------------------------------------------
# Key memory_forgetting:<userId>, TTL 60,000 ms, token <key>:<timestamp>:<random>.
LOCK_KEY_PREFIX = "memory_forgetting"
LOCK_TTL_MS = 60_000
# The owner renews well before expiry so a slow group never lets a second run in.
LOCK_RENEW_EVERY_MS = 20_000


def lock_key(user_id: str) -> str:
    return f"{LOCK_KEY_PREFIX}:{user_id}"
