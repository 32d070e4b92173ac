"""Secrets are removed from chat text before any of it leaves the machine for an LLM endpoint."""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"

_PATTERNS = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S),
    re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}\b"),  # OpenAI / Anthropic keys
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b"),  # Slack tokens
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}\b|\bgithub_pat_[A-Za-z0-9_]{20,}\b"),
    re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),  # AWS access key ids
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),  # Google API keys
    re.compile(r"\b\d{8,10}:[A-Za-z0-9_\-]{35}\b"),  # Telegram bot tokens
    re.compile(r"\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,38}\b"),  # Discord bot tokens
    re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\b"),  # JWTs
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._\-~+/]{16,}=*"),
    re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^/\s:@]+:[^/\s@]+@"),  # credentials inside URLs
    re.compile(r"\b(?:\d[ -]?){13,19}\b"),  # card-like digit runs
]
# "password: hunter2", "api_key=abc…": keep the label, drop the value.
_LABELLED = re.compile(
    r"(?i)\b(pass(?:word|wd|phrase)?|pwd|secret|api[_ -]?key|token|access[_ -]?key|client[_ -]?secret)"
    r"(\s*(?:is|[:=])\s*)(\S+)"
)


def redact(text: str) -> str:
    for pattern in _PATTERNS:
        text = pattern.sub(REDACTED, text)
    return _LABELLED.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
