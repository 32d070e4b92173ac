"""Flag text that reads like instructions to a language model (prompt injection); never blocks it.

Flagged records keep their text; they get `metadata.flags = ["prompt_injection"]` on ingest, an
audit row, an `untrusted` mark in MCP results and a badge in the UI, so an agent or a person can
treat the text as data. The patterns aim at model-directed phrasing ("ignore all previous
instructions", chat-template tokens, "you are now DAN") rather than ordinary requests between
people ("ignore my previous email", "act as the point of contact"), which the tests keep apart.
"""

from __future__ import annotations

import re

FLAG = "prompt_injection"

_TARGETS = r"(?:instructions?|prompts?|rules|directions|guidelines|guardrails|context|system\s+messages?)"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "override",
        re.compile(
            r"(?i)\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|every\s+)?"
            r"(?:(?:of\s+)?(?:the|your|my|these|those)\s+)?(?:previous|prior|above|earlier|preceding|original|"
            r"initial|system|existing|safety)\s+(?:\w+\s+)?" + _TARGETS + r"\b"
        ),
    ),
    (
        "override",
        re.compile(
            r"(?i)\b(?:ignore|disregard|forget)\s+(?:everything|all)\s+(?:you\s+were\s+told|above|before)\b"
        ),
    ),
    (
        "template-token",
        re.compile(r"<\|(?:im_start|im_end|system|endoftext|start_header_id)\|>|\[/?INST\]|<</?SYS>>"),
    ),
    (
        "role-header",
        re.compile(
            r"(?im)^\s*(?:#{1,4}\s*)?(?:system|assistant)\s*(?:prompt|message|instructions?)?\s*:\s*you\b"
        ),
    ),
    ("role-tag", re.compile(r"(?i)</?(?:system|system_prompt|instructions)>")),
    (
        "persona",
        re.compile(
            r"(?i)\b(?:you\s+are\s+now|from\s+now\s+on,?\s+you\s+(?:are|will\s+act\s+as)|pretend\s+(?:that\s+)?you\s+are|"
            r"act\s+as\s+if\s+you\s+(?:are|were))\s+(?:an?\s+|the\s+)?(?:unrestricted|uncensored|jailbroken|evil|DAN\b|"
            r"different\s+(?:AI|assistant|model)|AI|assistant|language\s+model|chatbot)"
        ),
    ),
    ("jailbreak", re.compile(r"(?i)\b(?:do\s+anything\s+now|developer\s+mode\s+enabled|jailbreak\s+mode)\b")),
    (
        "exfiltrate",
        re.compile(
            r"(?i)\b(?:reveal|print|repeat|show|output|leak)\s+(?:me\s+)?(?:your|the)\s+(?:full\s+|hidden\s+|original\s+)?"
            r"(?:system\s+prompt|initial\s+instructions|hidden\s+instructions)"
        ),
    ),
    (
        "new-instructions",
        re.compile(r"(?i)(?:^|\n|\.\s)\s*(?:new|updated|real)\s+(?:system\s+)?instructions\s*:"),
    ),
    (
        "to-the-model",
        re.compile(
            r"(?i)\b(?:AI|assistant|language\s+model|LLM|chatbot)s?\s*(?:reading\s+this|processing\s+this)\b.{0,80}"
            r"\b(?:must|should|ignore|instead)\b"
        ),
    ),
)


def injection_signals(text: str | None) -> list[str]:
    """Names of the patterns that matched (empty when the text looks like ordinary talk)."""
    if not text:
        return []
    return sorted({name for name, pattern in _PATTERNS if pattern.search(text)})


def looks_like_injection(text: str | None) -> bool:
    return bool(injection_signals(text))
