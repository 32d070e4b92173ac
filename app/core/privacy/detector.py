"""Find secrets and personal data in text and mask them with readable placeholders.

Classes (configurable, `[privacy] redact`): `secrets` (API keys, tokens, passwords, PINs and
codes, private keys; see `secret_patterns.py`, `vendor_patterns.py`, `phrase_patterns.py` and
`code_patterns.py`), `cards` (13–19 digits passing Luhn with a card-network prefix), `ibans`
(ISO 13616 checksum), `emails`, `phones` (libphonenumber's validity rules).
Luhn and IBAN checks come from `python-stdnum`, phone numbers from `phonenumberslite`;
both are imported on first use so `import app.core` stays cheap.
"""

from __future__ import annotations

import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from app.core.privacy.code_patterns import CODE_PATTERNS
from app.core.privacy.phrase_patterns import PHRASE_PATTERNS
from app.core.privacy.secret_patterns import FORMAT_PATTERNS
from app.core.privacy.seed_phrases import find_seed_phrases
from app.core.privacy.tables import find_table_secrets
from app.core.privacy.token_scorer import find_scored
from app.core.privacy.typed_secrets import find_typed

SECRET_PATTERNS = FORMAT_PATTERNS + PHRASE_PATTERNS + CODE_PATTERNS
# Each hint word is looked for once per text (not once per pattern that names it): with ~140
# patterns sharing ~360 hints this halves the cost of the gate.
_ALL_HINTS = tuple(sorted({h for p in SECRET_PATTERNS for h in p.hints}))
_PATTERN_HINTS = tuple(frozenset(p.hints) for p in SECRET_PATTERNS)

ALL_CLASSES = ("secrets", "cards", "ibans", "emails", "phones")
PLACEHOLDERS = {"cards": "[CARD]", "ibans": "[IBAN]", "emails": "[EMAIL]", "phones": "[PHONE]"}

_EMAIL = re.compile(r"(?<![\w.+\-])[A-Za-z0-9._%+\-]{1,64}@(?:[A-Za-z0-9\-]{1,63}\.)+[A-Za-z]{2,24}\b")
_CARD = re.compile(r"(?<![\d\-.])(?:\d[ \-]?){12,18}\d(?![\d\-.])")
# Card networks by leading digits: Visa 4, Mastercard 51–55 / 22–27, Amex 34/37, Discover 6,
# Diners 30/36/38, JCB 35. Order numbers and millisecond timestamps rarely start like this.
_CARD_PREFIX = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|3[068]|35|6)")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
# Reference numbers that happen to pass Luhn: "order 4000…", "invoice #…", "tracking no. …",
# unless a card word is nearer ("order paid with card 4111…").
# Device identifiers pass Luhn too (IMEI, ICCID) and are shared with insurers and carriers.
_REFERENCE_WORD = re.compile(
    r"(?i)(?:\b(?:order|invoice|tracking|shipment|ref|reference|id|sku|isbn|imei|meid|iccid|serial|s/n)\b|#)"
)
_CARD_WORD = re.compile(r"(?i)\b(?:card|visa|mastercard|amex|credit|debit|cc)\b")
_PHONE_HINT = re.compile(r"\+?\(?\d[\d ()./\-]{6,}\d")
_PHONE_CONTEXT = re.compile(
    r"(?i)\b(?:call\s+me(?:\s+on|\s+at)?|ring\s+me(?:\s+on)?|text\s+me(?:\s+on|\s+at)?|my\s+(?:mobile|cell|phone)"
    r"|(?:his|her|their|the)\s+(?:mobile|cell|phone)|mobile|cell|tel\.?|phone|whatsapp|portable|téléphone|handy"
    r"|handynummer|telefon|telefono|teléfono|móvil|movil|celular|cellulare|telemóvel|mobiel|komórka|номер"
    r"|landline|festnetz|fixe|fijo|fisso|vast\s+nummer|home\s+(?:number|phone)|office\s+(?:number|phone)"
    r"|appel(?:le|ez)[\s\-]moi|rappel(?:le|ez)[\s\-]moi|ruf\s+mich|llámame|llamame|chiamami|me\s+liga|bel\s+me)\b"
    # CJK phone words have no word edges: 電話番号は 090-…
    r"|電話番号|電話|携帯|手机号?|电话|手機|電話號碼|전화번호|휴대폰"
)
_CONTEXT_REGIONS = ("GB", "FR", "DE", "ES", "IT", "NL", "AU", "IN", "BR", "PT", "PL", "JP", "CN", "KR", "TW")
# Our own placeholders: masking already-masked text must change nothing (results are nested).
_PLACEHOLDER = re.compile(r"\[(?:SECRET:[a-z0-9\-]+|EMAIL|PHONE|CARD|IBAN)\]")
# Public material that looks random next to the word "key": certificates, public-key blocks and
# SSH public keys. Secret findings inside them are dropped (a private key has its own pattern).
_PUBLIC = re.compile(
    r"-----BEGIN (?:CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY|PGP PUBLIC KEY BLOCK|CERTIFICATE REQUEST)-----"
    r".*?(?:-----END [A-Z ]+-----|\Z)"
    r"|\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+AAAA[A-Za-z0-9+/=]+"
    # age recipients (public keys; the secret ones start AGE-SECRET-KEY-1).
    r"|\bage1[02-9ac-hj-np-z]{58}\b"
    # Key fingerprints are published to be compared: "SHA256:nThbg6k…", "fingerprint: 4E1F 7A2C …".
    r"|\b(?:SHA256|MD5):[A-Za-z0-9+/=:]{16,}"
    r"|(?i:\bfingerprint\b)[\s:=]*(?:is\s+)?(?:[0-9A-Fa-f]{2,4}[\s:]){5,}[0-9A-Fa-f]{2,4}"
    # Anything named a public key: "minisign public key RWQ…", "pubkey: …", "public_key = …".
    r"|(?i:\b(?:public|pub)[\s_\-]?key\b|\bpubkey\b)[\"']?\s*[:=]?\s*[\"']?[A-Za-z0-9+/=_\-]{16,}",
    re.S,
)
CACHE_SIZE = 4096


@dataclass(frozen=True, slots=True)
class Finding:
    start: int
    end: int
    kind: str  # "aws-key", "password", …, "email", "phone", "card", "iban"
    cls: str  # one of ALL_CLASSES

    @property
    def placeholder(self) -> str:
        return f"[SECRET:{self.kind}]" if self.cls == "secrets" else PLACEHOLDERS[self.cls]


class Detector:
    """Thread-safe; results are cached per text (search results repeat the same messages)."""

    def __init__(
        self,
        classes: Iterable[str] = ALL_CLASSES,
        *,
        phone_regions: Iterable[str] = ("US",),
        cache_size: int = CACHE_SIZE,
    ) -> None:
        chosen = tuple(dict.fromkeys(classes))
        unknown = set(chosen) - set(ALL_CLASSES)
        if unknown:
            raise ValueError(f"unknown redaction classes {sorted(unknown)}; known: {', '.join(ALL_CLASSES)}")
        self.classes = chosen
        self.phone_regions = tuple(r.upper() for r in phone_regions)
        # 0 for texts that never repeat (log lines carry their time): caching them only holds memory.
        self.cache_size = cache_size
        self._cache: OrderedDict[str, tuple[Finding, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def find(self, text: str) -> tuple[Finding, ...]:
        if not text:
            return ()
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
        found = _resolve(_outside_placeholders(text, self._scan(text)))
        if self.cache_size <= 0:
            return found
        with self._lock:
            self._cache[text] = found
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return found

    def mask(self, text: str) -> str:
        return apply(text, self.find(text))

    def has_secrets(self, text: str) -> bool:
        return bool(self.find(text))

    def _scan(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        if "secrets" in self.classes:
            out.extend(_secrets(text))
        if "emails" in self.classes and "@" in text:
            out.extend(_emails(text))
        if "ibans" in self.classes:
            out.extend(_ibans(text))
        if "cards" in self.classes:
            out.extend(_cards(text))
        if "phones" in self.classes and _PHONE_HINT.search(text):
            out.extend(_phones(text, self.phone_regions))
        if "secrets" in self.classes:
            out.extend(_learned(text, out))
        return out


def apply(text: str, findings: Iterable[Finding]) -> str:
    """Replace each finding (non-overlapping, sorted) with its placeholder."""
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(f.placeholder)
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def placeholders(text: str) -> Counter[str]:
    """How often each of our placeholders (`[SECRET:<kind>]`, `[EMAIL]`, …) appears in `text`."""
    return Counter(m.group() for m in _PLACEHOLDER.finditer(text)) if "[" in text else Counter()


def _outside_placeholders(text: str, findings: list[Finding]) -> list[Finding]:
    if "[" not in text:
        return findings
    spans = [m.span() for m in _PLACEHOLDER.finditer(text)]
    if not spans:
        return findings
    return [f for f in findings if not any(f.start < end and start < f.end for start, end in spans)]


def _resolve(findings: list[Finding]) -> tuple[Finding, ...]:
    """Overlaps: the earliest start wins, then the longest span, so one secret gets one placeholder."""
    findings.sort(key=lambda f: (f.start, -(f.end - f.start)))
    kept: list[Finding] = []
    for f in findings:
        if kept and f.start < kept[-1].end:
            if f.end > kept[-1].end and kept[-1].cls == f.cls:
                kept[-1] = Finding(kept[-1].start, f.end, kept[-1].kind, kept[-1].cls)
            continue
        kept.append(f)
    return tuple(kept)


def _secrets(text: str) -> list[Finding]:
    out: list[Finding] = []
    lowered = text.lower()
    public = (
        [m.span() for m in _PUBLIC.finditer(text)]
        if (
            "-----BEGIN" in text
            or "AAAA" in text
            or "age1" in text
            or "pub" in lowered
            or "fingerprint" in lowered
            or "SHA256:" in text
            or "MD5:" in text
        )
        else []
    )
    present = {h for h in _ALL_HINTS if h in lowered}
    for pattern, hints in zip(SECRET_PATTERNS, _PATTERN_HINTS, strict=True):
        if hints and hints.isdisjoint(present):
            continue
        for m in pattern.regex.finditer(text):
            start, end = m.span(pattern.group)
            value = text[start:end]
            if pattern.check is not None and not pattern.check(value):
                continue
            # A bare value keeps its closing punctuation ("hunter2." ends a sentence).
            stripped = value.rstrip(".,;:!?)]}>") if value[:1] not in "\"'`" else value
            if any(s <= start and start + len(stripped) <= e for s, e in public):
                continue
            out.append(Finding(start, start + len(stripped), pattern.kind, "secrets"))
    out.extend(
        Finding(t.start, t.end, "password", "secrets")
        for t in find_typed(text)
        if not any(s <= t.start and t.end <= e for s, e in public)
    )
    out.extend(Finding(start, end, "seed-phrase", "secrets") for start, end in find_seed_phrases(text))
    out.extend(Finding(start, end, "password", "secrets") for start, end in find_table_secrets(text))
    return out


def _learned(text: str, found: list[Finding]) -> list[Finding]:
    """The learned scorer (token_scorer.py) fills gaps: made-up values near credential concepts in
    phrasings no pattern knows. What a pattern or a PII check already found keeps its own kind."""
    out = []
    public: list[tuple[int, int]] | None = None
    for s in find_scored(text):
        if any(f.start < s.end and s.start < f.end for f in found):
            continue
        if public is None:
            public = [m.span() for m in _PUBLIC.finditer(text)]
        if any(a <= s.start and s.end <= b for a, b in public):
            continue
        kind = "password" if any(c.isalpha() for c in text[s.start : s.end]) else "code"
        out.append(Finding(s.start, s.end, kind, "secrets"))
    return out


def _emails(text: str) -> list[Finding]:
    # `git@github.com:org/repo` is an scp-style remote, and `scheme://user:pw@host` holds a
    # password (the url-password pattern's job), not a mailbox.
    out = []
    for m in _EMAIL.finditer(text):
        if text.startswith(":", m.end()):
            continue
        token_start = max(text.rfind(" ", 0, m.start()), text.rfind("\n", 0, m.start())) + 1
        if "://" in text[token_start : m.start()]:
            continue
        out.append(Finding(m.start(), m.end(), "email", "emails"))
    return out


def _cards(text: str) -> list[Finding]:
    from stdnum import luhn

    out = []
    for m in _CARD.finditer(text):
        before = text[max(0, m.start() - 24) : m.start()]
        if _REFERENCE_WORD.search(before) and not _CARD_WORD.search(before):
            continue
        raw = m.group(0)
        # Greedy over spaced groups: "4484705843082364 06/28" holds a card and an expiry month, so
        # the run is also tried cut at each space or dash, longest first.
        ends = [len(raw)] + [i for i in range(len(raw) - 1, 12, -1) if raw[i] in " -"]
        for end in ends:
            digits = re.sub(r"[ \-]", "", raw[:end])
            if 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) and luhn.is_valid(digits):
                out.append(Finding(m.start(), m.start() + end, "card", "cards"))
                break
    return out


def _ibans(text: str) -> list[Finding]:
    from stdnum import iban

    out = []
    for m in _IBAN.finditer(text):
        raw = m.group(0)
        # The regex is greedy over spaced groups; try shorter prefixes so "… IBAN DE89… thanks" fits.
        for end in range(len(raw), 14, -1):
            candidate = raw[:end].rstrip()
            if iban.is_valid(candidate):
                out.append(Finding(m.start(), m.start() + len(candidate), "iban", "ibans"))
                break
    return out


def _phones(text: str, regions: tuple[str, ...]) -> list[Finding]:
    import phonenumbers

    out: list[Finding] = []
    for region in regions or ("ZZ",):
        matcher = phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID)
        out.extend(
            Finding(m.start, m.end, "phone", "phones")
            for m in matcher
            if _dialable(text, m.start) and not _reference_before(text, m.start)
        )
    if "+" in text:
        # "+44 7700 900 731": an international prefix says "phone number" even in ranges
        # libphonenumber holds unassigned (the UK's drama numbers), so a possible number will do.
        matcher = phonenumbers.PhoneNumberMatcher(text, "ZZ", leniency=phonenumbers.Leniency.POSSIBLE)
        out.extend(
            Finding(m.start, m.end, "phone", "phones")
            for m in matcher
            if m.raw_string.startswith("+") and (m.start == 0 or text[m.start - 1] in " \t\n(:")
        )
    for context in _PHONE_CONTEXT.finditer(text):
        # "call me on 07700 900482", "mon portable c'est le 06 12 48 97 35": a national number
        # right after a phone word, read in the regions whose languages use that word.
        rest = text[context.end() : context.end() + 40]
        for region in _CONTEXT_REGIONS:
            found = next(
                iter(phonenumbers.PhoneNumberMatcher(rest, region, leniency=phonenumbers.Leniency.POSSIBLE)),
                None,
            )
            if found is not None and found.start <= 16 and len(re.sub(r"\D", "", found.raw_string)) >= 9:
                start = context.end() + found.start
                out.append(Finding(start, start + len(found.raw_string), "phone", "phones"))
                break
    return out


def _reference_before(text: str, start: int) -> bool:
    """ "Etsy order 3098127744": a number right after a reference word is that reference."""
    before = text[max(0, start - 16) : start]
    return bool(_REFERENCE_WORD.search(before)) and not _PHONE_CONTEXT.search(before)


def _dialable(text: str, start: int) -> bool:
    """Digits glued to a code ("INV-2024-000123", "A1-555…") are references, not numbers to dial."""
    return start == 0 or not (text[start - 1].isalnum() or text[start - 1] in "-/#_")
