"""Engine configuration values: tier rules, caps and per-channel retention overrides."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.core.domain import Tier
from app.core.errors import ConfigError
from forgetting import constants as c


@dataclass(frozen=True, slots=True)
class TierRule:
    """One transition: records of `source` older than `max_age_ms` go to `target` or are archived."""

    source: Tier
    target: Tier
    max_age_ms: int
    threshold: float
    bucket_ms: int
    bucket_offset_ms: int = 0

    @property
    def summary_tier(self) -> str:
        return c.SUMMARY_TIER[self.source]


@dataclass(frozen=True, slots=True)
class RetentionOverride:
    """Per-channel retention: keep forever (never archived) or custom promotion thresholds.

    `platform` None matches the channel on every platform. Thresholds None keep the default.
    """

    channel: str
    platform: str | None = None
    keep_forever: bool = False
    short_to_mid_threshold: float | None = None
    mid_to_long_threshold: float | None = None

    def __post_init__(self) -> None:
        for name in ("short_to_mid_threshold", "mid_to_long_threshold"):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise ConfigError(
                    f"retention override for channel {self.channel!r}: {name}={value} is outside 0..1",
                    hint="use a threshold between 0 and 1, or keep_forever = true",
                )

    def matches(self, platform: str, channel: str) -> bool:
        return self.channel == channel and (self.platform is None or self.platform == platform)

    def threshold_for(self, source: Tier) -> float | None:
        if source is Tier.SHORT:
            return self.short_to_mid_threshold
        if source is Tier.MID:
            return self.mid_to_long_threshold
        return None


DEFAULT_RULES: tuple[TierRule, ...] = (
    TierRule(Tier.SHORT, Tier.MID, c.SHORT_MAX_AGE_MS, c.SHORT_TO_MID_THRESHOLD, c.SHORT_BUCKET_MS),
    TierRule(
        Tier.MID,
        Tier.LONG,
        c.MID_MAX_AGE_MS,
        c.MID_TO_LONG_THRESHOLD,
        c.MID_BUCKET_MS,
        c.WEEK_BUCKET_OFFSET_MS,
    ),
)


@dataclass(frozen=True, slots=True)
class ForgetConfig:
    """Everything `plan()` needs besides records and a clock; defaults are the specification."""

    rules: tuple[TierRule, ...] = DEFAULT_RULES
    min_group_size: int = c.MIN_GROUP_SIZE
    max_candidates_per_tier: int = c.MAX_CANDIDATES_PER_TIER
    max_key_points: int = c.MAX_KEY_POINTS
    max_keywords: int = c.MAX_KEYWORDS
    retention: tuple[RetentionOverride, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.min_group_size < 1:
            raise ConfigError(f"min_group_size must be at least 1, got {self.min_group_size}")
        if self.max_candidates_per_tier < self.min_group_size:
            raise ConfigError(
                f"max_candidates_per_tier ({self.max_candidates_per_tier}) is below min_group_size "
                f"({self.min_group_size}); no group could ever be processed",
                hint="raise max_candidates_per_tier",
            )

    def rule_for(self, source: Tier) -> TierRule | None:
        return next((r for r in self.rules if r.source is source), None)

    def override_for(self, platform: str, channel: str) -> RetentionOverride | None:
        # Most specific wins: a platform-qualified override beats a channel-only one.
        best: RetentionOverride | None = None
        for item in self.retention:
            if item.matches(platform, channel) and (best is None or item.platform is not None):
                best = item
        return best

    def threshold_for(self, rule: TierRule, platform: str, channel: str) -> float:
        override = self.override_for(platform, channel)
        custom = override.threshold_for(rule.source) if override else None
        return rule.threshold if custom is None else custom

    def keeps_forever(self, platform: str, channel: str) -> bool:
        override = self.override_for(platform, channel)
        return bool(override and override.keep_forever)
