"""Display helpers: local times, sizes, source labels, tier badges."""

from __future__ import annotations

from datetime import datetime

TIER_COLOURS = {"short": "#2f9e44", "mid": "#e8590c", "long": "#5f3dc4"}


def local_time(ms: int | None, *, with_seconds: bool = False) -> str:
    if ms is None:
        return ""
    fmt = "%Y-%m-%d %H:%M:%S" if with_seconds else "%Y-%m-%d %H:%M"
    return datetime.fromtimestamp(ms / 1000).strftime(fmt)


def human_size(size: int | None) -> str:
    if size is None:
        return ""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def source_label(platform: str | None, channel: str | None) -> str:
    if platform and channel:
        return f"{platform} · #{channel}" if not channel.startswith("#") else f"{platform} · {channel}"
    return platform or channel or ""


def tier_badge(tier: str | None) -> str:
    if not tier:
        return ""
    colour = TIER_COLOURS.get(tier, "#868e96")
    return f'<span style="color:{colour};font-weight:600;">{tier}</span>'
