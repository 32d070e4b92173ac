"""One named credential pattern: a regex, the group to replace, a value check and hint words."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """`group` is the part replaced (0 = the whole match); `check` rejects look-alikes; `hints`
    (lower-case) skip the regex on text holding none of them: most chat has no credential word,
    and the phrase patterns are the costly ones."""

    kind: str
    regex: re.Pattern[str]
    group: int = 0
    check: Callable[[str], bool] | None = None
    hints: tuple[str, ...] = ()


def with_hints(
    patterns: Sequence[SecretPattern], hints: Sequence[tuple[str, ...]]
) -> tuple[SecretPattern, ...]:
    """Attach one hint tuple per pattern, in order (the lengths must match)."""
    if len(patterns) != len(hints):
        raise ValueError(f"{len(patterns)} patterns but {len(hints)} hint tuples")
    return tuple(replace(p, hints=h) for p, h in zip(patterns, hints, strict=True))
