"""The catalogue of credential formats the redactor knows: one named regex (plus a check) per kind.

Why hand-written rather than `detect-secrets`: its plugins are the same regexes (AWS, GitHub,
Slack, Stripe, JWT, private keys…), but it scans line by line through a process-global settings
object, pulls in `requests` and `pyyaml`, and its high-entropy plugins flag every git SHA and
content hash, which are exactly the look-alikes we must leave alone. Each pattern below cites the
vendor's documented token format; entropy is only trusted next to a credential word.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """`group` is the part replaced (0 = the whole match); `check` rejects look-alikes."""

    kind: str
    regex: re.Pattern[str]
    group: int = 0
    check: Callable[[str], bool] | None = None


def shannon_entropy(value: str) -> float:
    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


# Words that follow "password is …" in ordinary talk about passwords, not a password itself.
_STOP_WORDS = """
a an the my your our their his her its this that these those it is was be been being not no
none null nil empty blank required optional needed missing wrong right correct incorrect
invalid valid expired expiring changed reset set unset same different new old weak strong
too very case sensitive ok okay fine good bad here there below above attached in on at of
for to from with without and or but if when stored saved hidden shown encrypted hashed
protected secret private public please thanks sent shared rotated revoked updated still also
just only really already again now later soon long short true false yes unknown same
redacted masked placeholder example changeme tbd todo
"""
_NOT_A_VALUE = frozenset(_STOP_WORDS.split())
_TRAILING = ".,;:!?)]}>'\"`"


def plausible_value(value: str) -> bool:
    """A credential value, not prose: not a stop word, long enough, not a small number."""
    v = value.strip(_TRAILING).strip("'\"`")
    if len(v) < 4 or v.lower() in _NOT_A_VALUE:
        return False
    if "'" in v and v.replace("'", "").isalpha():
        return False  # "secret: it's a surprise" — a contraction is prose
    if v.isdigit() and len(v) < 6:
        return False  # token_limit=4096, "pwd: 1" — counts, not secrets
    # Placeholders and template variables are not values.
    return not (v.startswith(("[SECRET:", "<", "{{", "${", "$")) or v.endswith("…"))


def credential_like(value: str) -> bool:
    """For the loose "password is X" form: X looks made-up (digit, symbol or mixed case)."""
    v = value.strip(_TRAILING)
    if not plausible_value(v):
        return False
    has_digit = any(c.isdigit() for c in v)
    has_symbol = any(not c.isalnum() for c in v)
    mixed = any(c.isupper() for c in v[1:]) and any(c.islower() for c in v)
    return has_digit or has_symbol or mixed or len(v) >= 12


def high_entropy(value: str) -> bool:
    v = value.strip(_TRAILING)
    if len(v) < 20 or not any(c.isdigit() for c in v) or not any(c.isalpha() for c in v):
        return False
    # Hex alphabets top out at 4 bits per char; base64-like keys reach ~5.
    threshold = 3.0 if all(c in "0123456789abcdefABCDEF" for c in v) else 3.5
    return shannon_entropy(v) >= threshold


_WORD_END = r"(?![A-Za-z0-9_\-])"
_LABEL_WORDS = (
    r"password|passwd|passcode|passphrase|pwd|pw|secret|token|api[_\-]?key|apikey|access[_\-]?key"
    r"|private[_\-]?key|client[_\-]?secret|secret[_\-]?key|auth[_\-]?token|credentials?"
)
# A label such as `password`, `DB_PASSWORD`, `aws_secret_access_key`, `X-Api-Key` (not `tokens`,
# `secretary`, `max_tokens`: the keyword must end the label or be joined to the rest by _ - .).
_LABEL = rf"(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_.\-])*(?:{_LABEL_WORDS})(?:[_.\-][A-Za-z0-9]+)*(?![A-Za-z0-9])"
_QUOTED_OR_BARE = r"(\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s,;]{1,400})"

SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern(
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
            re.S,
        ),
    ),
    # AWS access key ids: AKIA (long-term), ASIA (STS), then 16 upper-case letters and digits.
    SecretPattern(
        "aws-key", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])")
    ),
    SecretPattern(
        "github-token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,255}\b|\bgithub_pat_[A-Za-z0-9_]{22,255}\b")
    ),
    # xoxb/xoxp/xoxa/… tokens and app-level tokens (xapp-1-…).
    SecretPattern(
        "slack-token",
        re.compile(
            r"\bxox[abposre]-(?:[A-Za-z0-9]+-?){2,}[A-Za-z0-9]+|\bxapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]{16,}"
        ),
    ),
    SecretPattern(
        "slack-webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/]{20,}"),
    ),
    SecretPattern("stripe-key", re.compile(r"\b(?:sk|rk|pk|whsec)_(?:live|test)_[A-Za-z0-9]{16,}\b")),
    SecretPattern(
        "openai-key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?[A-Za-z0-9_\-]{20,}")
    ),
    SecretPattern("google-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])")),
    SecretPattern("telegram-bot-token", re.compile(r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b")),
    SecretPattern("discord-token", re.compile(r"\b[MNO][A-Za-z\d]{23,25}\.[\w\-]{6}\.[\w\-]{27,38}\b")),
    SecretPattern("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    SecretPattern("bearer-token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._\-~+/]{16,}=*)"), group=1),
    # user:password@host inside a URL: only the password goes.
    SecretPattern(
        "url-password", re.compile(r"\b[a-z][a-z0-9+.\-]*://[^/\s:@]{0,100}:([^/\s@]{1,200})@"), group=1
    ),
    # `password: x`, `DB_PASSWORD=x`, `"api_key": "x"`: keep the label, mask the value.
    SecretPattern(
        "password",
        re.compile(rf"(?i){_LABEL}[\"']?\s*(?::=|[:=]|=>)\s*{_QUOTED_OR_BARE}"),
        group=1,
        check=plausible_value,
    ),
    # "Server password is hunter2", "the token was 8f3k…": looser, so the value must look made-up.
    SecretPattern(
        "password",
        re.compile(
            # The longer "was changed to" must come before "was", or "changed" becomes the value.
            rf"(?i){_LABEL}\s+(?:(?:was\s+|has\s+been\s+|is\s+)?(?:changed|set|updated|reset)\s+to"
            rf"|is|was|will\s+be|=)\s+(?:now\s+)?{_QUOTED_OR_BARE}"
        ),
        group=1,
        check=credential_like,
    ),
    # `with password 'N0t$oS3cure'`: a quoted value right after the label.
    SecretPattern(
        "password",
        re.compile(rf"(?i){_LABEL}\s+(\"[^\"\n]{{4,200}}\"|'[^'\n]{{4,200}}'|`[^`\n]{{4,200}}`)"),
        group=1,
        check=plausible_value,
    ),
    # "login: root / P@ssw0rd", "db creds are admin/…": a user name, a slash, then the password.
    SecretPattern(
        "password",
        re.compile(
            r"(?i)\b(?:login|log-in|user(?:name)?|creds?|credentials|account)"
            r"(?:\s*[:=]\s*|\s+(?:are|is)\s+)[^\s/]{1,64}\s*/\s*([^\s,;]{4,200})"
        ),
        group=1,
        check=credential_like,
    ),
    # A long random-looking string within a few words after a credential word.
    SecretPattern(
        "high-entropy",
        re.compile(
            rf"(?i)(?:{_LABEL_WORDS}|key)(?:\W+\w+){{0,6}}?\W+([A-Za-z0-9+/_\-]{{20,}}={{0,2}}){_WORD_END}"
        ),
        group=1,
        check=high_entropy,
    ),
)
