"""Slack mrkdwn markup to readable text, shared by the live connector and the export importer.

One function for both paths, so a message synced live and the same message imported from an
export store the same text (otherwise alternating sync and import counts every link or mention
as an edit and re-embeds it).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

# <@U123>, <@U123|name>, <#C123|general>, <!here>, <!subteam^S1|@team>, <https://x|label>, <mailto:a@b>
_MARKUP = re.compile(r"<([@#!])?([^<>|]+)(?:\|([^<>]*))?>")


def render_markup(text: str, name_of: Callable[[str], str | None]) -> str:
    """`<@U1>` → `@Name` (via `name_of`), `<#C1|general>` → `#general`, `<url|label>` → `label (url)`."""

    def replace(match: re.Match[str]) -> str:
        sigil, target, label = match.group(1), match.group(2), match.group(3)
        if sigil == "@":
            return "@" + (label or name_of(target) or target)
        if sigil == "#":
            return "#" + (label or target)
        if sigil == "!":
            return "@" + (label or target.split("^")[0])
        if label and label != target:
            return f"{label} ({target})"
        return target.removeprefix("mailto:")

    return html.unescape(_MARKUP.sub(replace, text))
