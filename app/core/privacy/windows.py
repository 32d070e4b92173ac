"""Masking a slice of a longer text (a page, a chunk) so no secret leaks through a cut edge.

Masking each slice on its own lets a secret cut by the page edge survive as two halves that no
pattern recognizes (or the second half of a private key with no BEGIN line). Here the detector
runs on the slice plus a margin on both sides, findings are clipped to the slice, and a page end
that would cut a finding moves to its edge, so the next page starts with whole text.
"""

from __future__ import annotations

from app.core.privacy.detector import Detector, Finding, apply

# Wider than any one-line credential; a private-key block can be longer, so its BEGIN line is
# looked for further back (below).
MARGIN = 2048
KEY_LOOKBACK = 16_384


def findings_around(detector: Detector, text: str, start: int, end: int) -> list[Finding]:
    """Findings of `text` that touch [start, end), in text coordinates, seen with context."""
    lo = max(0, start - MARGIN)
    hi = min(len(text), end + MARGIN)
    begin = text.rfind("-----BEGIN", max(0, start - KEY_LOOKBACK), start)
    if begin != -1 and begin < lo and "-----END" not in text[begin:start]:
        lo = begin  # the slice starts inside a key block: read from its BEGIN line
    return [
        Finding(f.start + lo, f.end + lo, f.kind, f.cls)
        for f in detector.find(text[lo:hi])
        if f.end + lo > start and f.start + lo < end
    ]


def _clip(findings: list[Finding], start: int, end: int) -> list[Finding]:
    return [Finding(max(f.start, start) - start, min(f.end, end) - start, f.kind, f.cls) for f in findings]


def masked_page(detector: Detector, text: str, offset: int, size: int) -> tuple[str, int]:
    """The masked page text[offset:end] and its end; the end never falls inside a finding."""
    end = min(len(text), offset + size)
    found = findings_around(detector, text, offset, end)
    for f in found:
        if f.start < end < f.end:
            # Stop before the secret; if it starts the page, take it whole (one placeholder).
            end = f.start if f.start > offset else f.end
    inside = [f for f in found if f.start < end]
    return apply(text[offset:end], _clip(inside, offset, end)), end


def masked_excerpt(detector: Detector, excerpt: str, container: str | None) -> str:
    """An excerpt (a knowledge-base chunk) masked as it reads inside its whole document."""
    pos = container.find(excerpt) if container and excerpt else -1
    if pos < 0:
        return detector.mask(excerpt)
    end = pos + len(excerpt)
    return apply(excerpt, _clip(findings_around(detector, container or "", pos, end), pos, end))
