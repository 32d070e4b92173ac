"""Checks that tell a credential value from prose, placeholders, code and counts next to a label."""

from __future__ import annotations

import math
import re


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
redacted masked placeholder example changeme tbd todo n/a na
simple easy hard complicated complex secure insecure safe unsafe stupid annoying ridiculous
awful terrible great nice perfect working broken locked blocked disabled enabled active
inactive taped written printed somewhere everywhere nowhere what which who where why how
gone lost forgotten same useless obvious predictable random generated temporary default
standard usual normal different unique personal mine yours ours theirs his hers
in-app on-file attached enclosed pending coming following given listed above-mentioned
password passwords pass passwd pwd pw token tokens secret secrets key keys pin code codes files
your-password your-token your-api-key your-key xxx xxxx none? same-as-before
"""
_NOT_A_VALUE = frozenset(_STOP_WORDS.split())
_TRAILING = ".,;:!?)]}>'\"`"
# Template and documentation values: `your-api-key-here`, `<token>`, `${DB_PASSWORD}`, `xxxx`.
_TEMPLATE = re.compile(
    r"(?i)^(?:your[_\-].*|.*[_\-]here|<.*|\{\{.*|\$\{?.*|%\(?.*|\[.*|\*+|x+|\.+|_+|-+|#+|0+|1234|12345|"
    r"(?:my|some|the)?[_\-]?(?:password|passwd|secret|token|api[_\-]?key|pass|pwd|key|value|user(?:name)?)"
    r"[_\-]?|(?:replace|change|insert|fill|put|enter|set|update)[_\-]?(?:me|this|it|here|in|value)"
    r"|dummy|sample|fixme|redacted|hidden|secret[_\-]?here|tbc)$"
)
_TEMPLATE_PART = re.compile(
    r"(?i)change[_\-]?me|replace[_\-]?(?:me|this)|(?<![a-z])your[_\-]|placeholder|dummy|redacted"
    r"|example[_\-]?(?:key|token|secret|password)"
)
_NUMBER = re.compile(r"^[€$£]?\d{1,4}(?:[.,:/]\d+)+[€$£%]?$")
# Code, not a value: `os.environ['API_KEY']`, `getpass.getpass()`, `request.headers.get(…)`.
_CODE = re.compile(r"^[A-Za-z_][\w.]*\s*[(\[].*[)\]]$")
# A reference to where the value lives, not the value: var.db_password, secrets.DB_PASS, env.TOKEN.
_REFERENCE = re.compile(
    r"(?i)^(?:var|vars|env|secrets?|config|settings|process\.env|local|locals|data|module|inputs|params|self"
    r"|this|ctx|context|values|props|options|opts|args|cfg|conf)\.[\w.\[\]'\"]+$"
)
# Prose and YAML around a label: "(ask Maria)", "!vault |", "(the usual)".
_ASIDE = re.compile(r"^(?:\(|![a-z])")


# A value made of mask characters only ("••••••••", "****"), or a run of them in a key
# ("AKIAXXXXXXXXXXXXXXXX", "sk-xxxxxxxx…"): documentation and screenshots, not a secret.
_MASK_CHARS = frozenset("•●∙·⋅*xX.…-_#0")
_PLACEHOLDER_RUN = re.compile(r"([Xx*•●0.])\1{7,}")


def not_placeholder_run(value: str) -> bool:
    """False when most of a vendor key is one filler character (AKIAXXXXXXXXXXXXXXXX)."""
    run = _PLACEHOLDER_RUN.search(value)
    return run is None or value.count(run.group(1)) < 0.6 * len(value)


def plausible_value(value: str) -> bool:
    """A credential value, not prose: not a stop word, long enough, not a small number."""
    raw = value.strip().strip("'\"`")
    if _ASIDE.match(raw) or _CODE.match(raw):
        return False
    v = value.strip(_TRAILING).strip("'\"`")
    if len(v) < 4 or v.lower() in _NOT_A_VALUE or set(v) <= _MASK_CHARS or not not_placeholder_run(v):
        return False
    if _TEMPLATE_PART.search(v):
        return False  # django-insecure-change-me, sk-your-key-here
    if "'" in v and v.replace("'", "").isalpha():
        return False  # "secret: it's a surprise" — a contraction is prose
    if v.isdigit() and len(v) < 6:
        return False  # token_limit=4096, "pwd: 1" — counts, not secrets
    if _NUMBER.match(v):
        return False  # "pass is 2.50", "token: 3.11.4", "pin: 10:30" — prices, versions, times
    if _TEMPLATE.match(v) or _CODE.match(v) or _ASIDE.match(v) or v.endswith("…") or _REFERENCE.match(v):
        return False
    return not v.startswith("[SECRET:")


def code_value(value: str) -> bool:
    """A PIN, door code or one-time code after its label: 3–10 digits (maybe grouped) or a short
    code mixing letters and digits; not a count, a time, a price or a year-like date."""
    v = value.strip(_TRAILING).strip("*#")
    digits = re.sub(r"[\s\-]", "", v)
    if not digits or re.search(r"[:.,/€$£%]", v):
        return False
    if digits.isdigit():
        return 3 <= len(digits) <= 12
    return bool(re.fullmatch(r"[^\W_]{4,10}", digits)) and any(c.isdigit() for c in digits)


def credential_like(value: str) -> bool:
    """For the loose "password is X" form: X looks made-up (digit, symbol or mixed case)."""
    v = value.strip(_TRAILING)
    if not plausible_value(v):
        return False
    has_digit = any(c.isdigit() for c in v)
    has_symbol = any(not c.isalnum() for c in v)
    mixed = any(c.isupper() for c in v[1:]) and any(c.islower() for c in v)
    if has_symbol and not (has_digit or mixed) and re.fullmatch(r"[a-z]+(?:-[a-z]+)?", v):
        return False  # "case-sensitive", "well-known": one hyphen between words is prose
    return has_digit or has_symbol or mixed or len(v) >= 12


def quoted_or_credential(value: str) -> bool:
    """A quoted value is taken as given ("secret is 'ilovecats'"); a bare one must look made-up."""
    if value[:1] in "\"'`":
        return plausible_value(value)
    return credential_like(value)


def last_word_value(value: str) -> bool:
    """`password is bananas.`: a single plain word closing the clause after a strong label.

    Accepted only when it is not a word people use *about* passwords (the stop list)."""
    v = value.strip(_TRAILING)
    return plausible_value(v) and (v.isalpha() or credential_like(v))


def high_entropy(value: str) -> bool:
    v = value.strip(_TRAILING)
    if len(v) < 20 or not any(c.isdigit() for c in v) or not any(c.isalpha() for c in v):
        return False
    parts = v.split("/")
    if sum(p.isdigit() or (p.isalpha() and p.islower()) for p in parts) >= 2:
        return False  # a path ("uploads/2024/03/IMG_4821"), not a key
    # Hex alphabets top out at 4 bits per char; base64-like keys reach ~5.
    threshold = 3.0 if all(c in "0123456789abcdefABCDEF" for c in v) else 3.5
    return shannon_entropy(v) >= threshold


def url_secret(value: str) -> bool:
    """A query-string value or URL password: not a documentation template, long or made-up."""
    v = value.strip(_TRAILING)
    return plausible_value(v) and (len(v) >= 12 or credential_like(v))


def direct_value(value: str) -> bool:
    """`temp password Xk92!pqL` (no "is" or colon): the value must hold a digit and a letter or a
    symbol, so "password manager" and "password policy v2" stay prose."""
    v = value.strip(_TRAILING)
    if not plausible_value(v):
        return False
    has_digit = any(c.isdigit() for c in v)
    has_alpha = any(c.isalpha() for c in v)
    has_symbol = any(not c.isalnum() for c in v)
    if v.isdigit():
        return len(v) >= 6
    return len(v) >= 6 and has_digit and (has_alpha or has_symbol)
