"""Keep MCP tool results inside an LLM's token budget, with an offset to fetch the rest."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# ~4 characters per token is the usual estimate for English text under BPE tokenizers; we only
# need the right order of magnitude, never an exact count.
CHARS_PER_TOKEN = 4
DEFAULT_MAX_TOKENS = 2000
MAX_TOKENS_CEILING = 20_000
ELLIPSIS = "…"


def estimate_tokens(value: Any) -> int:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return len(text) // CHARS_PER_TOKEN + 1


def clip(text: str | None, max_chars: int) -> str:
    """`text` cut at a word boundary near `max_chars`, marked with an ellipsis when cut."""
    if text is None:
        return ""
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    space = cut.rfind(" ")
    if space > max_chars * 0.6:
        cut = cut[:space]
    return cut.rstrip() + ELLIPSIS


@dataclass(frozen=True, slots=True)
class Page:
    """A budget-bounded slice of results. `next_offset` is None when nothing is left."""

    items: list[dict[str, Any]]
    offset: int
    next_offset: int | None
    truncated_by_budget: bool

    def envelope(self, key: str, **extra: Any) -> dict[str, Any]:
        body: dict[str, Any] = {key: self.items, "offset": self.offset, "next_offset": self.next_offset}
        if self.next_offset is not None:
            body["note"] = f"more results exist; call again with offset={self.next_offset}" + (
                " or a larger max_tokens" if self.truncated_by_budget else ""
            )
        body.update(extra)
        return body


def paginate(
    items: Sequence[dict[str, Any]], *, offset: int, max_tokens: int, has_more: bool = False
) -> Page:
    """Take items (already starting at `offset`) while they fit `max_tokens`; always at least one.

    `has_more` says whether the source holds items beyond `items` (e.g. the search asked for
    one extra), so the caller learns there is another page even when the budget was not hit.
    """
    budget = min(max(max_tokens, 1), MAX_TOKENS_CEILING)
    taken: list[dict[str, Any]] = []
    used = 0
    for item in items:
        cost = estimate_tokens(item)
        if taken and used + cost > budget:
            return Page(taken, offset, offset + len(taken), truncated_by_budget=True)
        taken.append(item)
        used += cost
    next_offset = offset + len(taken) if has_more else None
    return Page(taken, offset, next_offset, truncated_by_budget=False)
