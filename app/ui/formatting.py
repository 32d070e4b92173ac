"""Display helpers: sizes, people's initials, places and text in plain words (times: app/ui/when.py).

Nothing internal reaches the screen from here: platforms get their proper names ("WhatsApp",
not "whatsapp"), direct messages read "Direct message with lena" (stored as "dm:lena"),
knowledge-base chunks name their document, and snake_case identifiers become words.
"""

from __future__ import annotations

import re

TIER_COLOURS = {"short": "#2f9e44", "mid": "#e8590c", "long": "#5f3dc4"}
# Memory stages in words a person would use (the store calls them short/mid/long).
TIER_WORDS = {"short": "recent", "mid": "older", "long": "long-term"}
PLATFORM_NAMES = {
    "slack": "Slack",
    "discord": "Discord",
    "telegram": "Telegram",
    "whatsapp": "WhatsApp",
    "mail": "Email",
    "email": "Email",
    "imessage": "iMessage",
    "knowledge_base": "Documents",
    "demo": "Demo",
}
# Platforms whose conversations are #channels; others name chats by their title.
HASH_CHANNELS = frozenset({"slack", "discord"})
DM_PREFIX = "dm:"


def human_size(size: int | None) -> str:
    if size is None:
        return ""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def initials(name: str | None) -> str:
    """ "Anna Berg" → "AB", "anna" → "A", "dm:lena" → "L", "" → "?"."""
    words = [w for w in re.split(r"[\s._@:-]+", (name or "").removeprefix(DM_PREFIX)) if w and w[0].isalnum()]
    if not words:
        return "?"
    letters = words[0][0] + (words[-1][0] if len(words) > 1 else "")
    return letters.upper()


def humanize(identifier: str | None) -> str:
    """snake_case or kebab-case → "Sentence case words"."""
    text = re.sub(r"[_-]+", " ", identifier or "").strip()
    return text[:1].upper() + text[1:]


def platform_name(platform: str | None) -> str:
    key = (platform or "").lower()
    return PLATFORM_NAMES.get(key) or humanize(key)


def channel_label(platform: str | None, channel: str | None) -> str:
    """How a conversation is named on screen: "#launch", "Direct message with lena", "Family"."""
    if not channel:
        return ""
    if channel.startswith(DM_PREFIX):
        return f"Direct message with {channel.removeprefix(DM_PREFIX)}"
    if (platform or "").lower() in HASH_CHANNELS and not channel.startswith("#"):
        return f"#{channel}"
    return channel


def source_label(platform: str | None, channel: str | None) -> str:
    """ "#launch · Slack": the conversation first, then where it lives."""
    if (platform or "").lower() == "knowledge_base":
        return channel or "Document"
    place, name = channel_label(platform, channel), platform_name(platform)
    if place and name:
        return f"{place} · {name}"
    return place or name


# Memory pages cite each line's message as "([source](strata://message/4))": noise in a snippet.
_SOURCE_LINK = re.compile(r"\s*\(\[source\]\([^)]*\)\)")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_WIKI_LINK = re.compile(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]")
_MD_MARKS = re.compile(r"(\*\*|__|`)|^\s*#{1,6}\s+|^\s*[-*]\s+(?:\[[ xX]\]\s+)?", re.MULTILINE)


def plain_markdown(text: str) -> str:
    """Markdown as the words a person reads: links keep their text, marks and bullets go."""
    text = _SOURCE_LINK.sub("", text)
    text = _WIKI_LINK.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    return _MD_MARKS.sub("", text)


def tier_words(tier: str | None) -> str:
    return TIER_WORDS.get(tier or "", humanize(tier))


def tier_badge(tier: str | None) -> str:
    if not tier:
        return ""
    colour = TIER_COLOURS.get(tier, "#868e96")
    return f'<span style="color:{colour};font-weight:600;">{tier}</span>'


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary with an ellipsis, never mid-word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"
