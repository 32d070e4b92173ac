"""Tokens of a text and the features the learned scorer reads: the token's shape and its context.

Shared by the scorer (`token_scorer.py`) and its training script
(`tests/benchmarks/train_token_scorer.py`), so both see exactly the same features. Features are
plain strings ("cb:ULD-", "c:pw:0", "g:is"): shapes and character classes rather than spellings,
so what is learned from `Trestle_Table88` after "login … and" carries to `Falafel_TLV9` after
"הסיסמה היא". URLs, e-mail addresses and our own placeholders are never tokens (their patterns
own them).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import unicodedata
from dataclasses import dataclass

from app.core.privacy.concepts import concepts, has_credential

# Digit groups ("730 144", "2 7 0 4", "4-0-9-2") are one token; otherwise tokens end at spaces,
# quotes, brackets and the separators of labels and assignments.
_CHUNK = re.compile(r"\S+")
_TOKEN = re.compile(r"[^\s=:,;|()\[\]{}<>\"'`«»“”‘’，。：；、（）「」【】]+")
_GROUP = re.compile(r"\d{1,5}")
# What joins a label to its value, at the end of the gap between them, in the languages we ship.
_CONNECTOR = re.compile(
    r"(?:^|[\s:=>→\-])(?:[:=→>\-]|is|was|are|be|es|est|ist|lautet|è|é|era|je|jest|är|er"
    r"|to|into|as|with|by|mit|avec|con|com|met|hai|היא|הוא|это|—|quedó\s+en|set\s+to|now|just"
    r"|simply|literally|it['’]?s|c['’]est|then|type|enter|use|here|below|:)\s*$"
)
# What a marked token holds: a digit, an inner capital, a symbol inside a word, or a long run.
_SKIP = re.compile(r"\w+://\S+|[^\s@]+@[^\s@]+\.\w+|\[(?:SECRET:[a-z0-9\-]+|EMAIL|PHONE|CARD|IBAN)\]")
_LEAD = "*([{<¿¡'\"`"
_TRAIL = ".,;:?)]}>*'\"`…"
_LEET = re.compile(r"[a-z]\d[a-z]{2}|[a-z]{2}\d[a-z]")
_DIGIT = re.compile(r"\d")
_CAPITAL = re.compile(r"[A-Z]")
_SYMBOL_RUN = re.compile(r"[_!@#$%&*+=~^/\\|?.\-]+(?=\w)")


def _has_marks(text: str) -> bool:
    """A digit, an inner capital or a symbol inside a word: what any marked token holds. Each
    regex starts on a character prose holds few of, and the letter before is checked by hand."""
    if _DIGIT.search(text):
        return True
    for m in _CAPITAL.finditer(text):
        if m.start() and text[m.start() - 1].isalpha():
            return True
    return any(m.start() and text[m.start() - 1].isalnum() for m in _SYMBOL_RUN.finditer(text))


_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_TIME_WORD = re.compile(
    r"(?i)\b(?:since|in|from|until|till|by|before|after|of|around|circa|year|seit|im|bis|depuis|en|desde|dal"
    r"|nel|sinds|od|от|с|в)\s+$"
)
_PARTS = re.compile(r"[^\W\d_]{2,}")
_PARTS_CASED = re.compile(r"[^\W\d_][^\W\d_A-Z]{3,}")
_DATE = re.compile(r"(?:19|20)\d\d-\d\d?-\d\d?|\d\d?[./\-]\d\d?[./\-](?:19|20)?\d\d")
MAX_GAP = 80  # characters between a concept word and a token it gives context to
# Longer tokens are keys and hashes: vendor formats and the high-entropy rules own them, and
# public ones (hashes, ULIDs, SSH keys) look just as random.
MAX_LENGTH = 40


@dataclass(frozen=True, slots=True)
class Token:
    start: int
    end: int
    value: str
    marked: bool  # holds a digit, a symbol or an inner capital, or is long: a value even alone


def _marked(v: str) -> bool:
    return len(v) >= 16 or not v.isalpha() or not (v[1:].islower() or len(v) == 1)


def tokens(text: str) -> list[Token]:
    skip = [m.span() for m in _SKIP.finditer(text)] if ("/" in text or "@" in text or "[" in text) else []
    out: list[Token] = []
    for chunk in _CHUNK.finditer(text):
        word = chunk.group()
        if word.isalpha() and len(word) < 16:  # most of chat: a plain word, nothing to split
            out.append(Token(chunk.start(), chunk.end(), word, not (word[1:].islower() or len(word) == 1)))
            continue
        if skip and any(s <= chunk.start() < e for s, e in skip):
            continue
        for m in _TOKEN.finditer(word):
            raw = m.group()
            lead = len(raw) - len(raw.lstrip(_LEAD))
            value = raw[lead:].rstrip(_TRAIL)
            # "wow!" and "really?!" end a sentence; "Hydrangea1955!" keeps its symbol.
            bare = value.rstrip("!")
            if bare != value and (bare.isalpha() or not bare):
                value = bare
            if value:
                start = chunk.start() + m.start() + lead
                out.append(Token(start, start + len(value), value, _marked(value)))
    return _digit_groups(text, out)


def _digit_groups(text: str, toks: list[Token]) -> list[Token]:
    """ "730 144", "2 7 0 4", "4471 2209 8836": digit groups read as one value."""
    if sum(t.value.isdigit() for t in toks) < 2:
        return toks
    out: list[Token] = []
    for tok in toks:
        prev = out[-1] if out else None
        if (
            prev is not None
            and _GROUP.fullmatch(tok.value)
            and _GROUP.fullmatch(prev.value.replace(" ", "").replace("-", "")[-5:] or "x")
            and text[prev.end : tok.start] in (" ", " - ")
            and prev.value.count(" ") < 6
            and all(c.isdigit() or c in " -" for c in prev.value)
        ):
            out[-1] = Token(prev.start, tok.end, text[prev.start : tok.end], True)
        else:
            out.append(tok)
    return out


def _cls(ch: str) -> str:
    if ch.isdigit():
        return "9"
    if ch.isalpha():
        return "A" if ch.isupper() else "a"
    return ch if ch in "_-.!@#$%&*+/\\?~^" else "s"


def class_string(value: str) -> str:
    """`Trestle_Table88` -> `Aaaa_Aaaa99`: runs longer than 4 are cut to 4."""
    out: list[str] = []
    for ch in value:
        c = _cls(ch)
        if len(out) >= 4 and all(x == c for x in out[-4:]):
            continue
        out.append(c)
    return "".join(out)


@functools.cache
def _dictionary() -> frozenset[str]:
    from app.core.privacy.seed_phrases import _wordlists

    return frozenset().union(*_wordlists())


def is_candidate(tok: Token, concept_before: bool) -> bool:
    """Tokens the scorer looks at: anything but plain words, and plain words in credential context."""
    v = tok.value
    if len(v) < 3 or len(v) > MAX_LENGTH:
        return False
    if tok.marked:
        return sum(c.isalnum() for c in v) >= 3
    return concept_before


def entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def shape_features(v: str) -> list[str]:
    cs = class_string(v)
    upper = any(c.isupper() for c in v)
    lower = any(c.islower() for c in v)
    digit = any(c.isdigit() for c in v)
    symbol = any(not c.isalnum() and not c.isspace() for c in v)
    bits = f"{'U' if upper else '-'}{'L' if lower else '-'}{'D' if digit else '-'}{'S' if symbol else '-'}"
    n = len(v)
    lb = (
        "3"
        if n < 4
        else "4"
        if n < 6
        else "6"
        if n < 8
        else "8"
        if n < 12
        else "12"
        if n < 20
        else "20"
        if n < 32
        else "32"
    )
    feats = [
        f"cb:{bits}",
        f"len:{lb}",
        f"cb:{bits}&len:{lb}",
        f"sh:{cs[:10]}",
        f"ent:{min(5, int(entropy(v)))}",
    ]
    feats += [f"g3:{cs[i : i + 3]}" for i in range(max(1, len(cs) - 2))]
    plain = v.replace(" ", "").replace("-", "")
    if plain.isdigit():
        groups = "-".join(str(len(g)) for g in re.split(r"[ \-]+", v.strip()))
        feats += [f"dn:{min(len(plain), 13)}", f"dg:{groups if ' ' in v or '-' in v else 'one'}"]
        if _YEAR.fullmatch(plain):
            feats.append("year")
    elif digit and _YEAR.search(v):
        feats.append("has-year")
    if _LEET.search(v):
        feats.append("leet")
    lowered = unicodedata.normalize("NFC", v.lower())
    words = _dictionary()
    if lowered in words:
        feats.append("dict")
    parts = _PARTS.findall(lowered)
    if parts:
        known = sum(p in words for p in parts)
        feats.append(f"dp:{len(parts) if len(parts) < 4 else 4}:{known if known < 4 else 4}")
    if upper and not lower and n >= 16:
        feats.append("caps-long")
    if n >= 8 and all(c in "0123456789abcdef" for c in lowered):
        feats.append("hex")
    if v[0].isupper() and v[1:].islower():
        feats.append("capword")
    changes = sum(_cls(a) != _cls(b) for a, b in itertools.pairwise(v))
    feats.append(f"chg:{min(4, 4 * changes // max(1, n - 1))}")
    return feats


def context_features(
    text: str, toks: list[Token], i: int, found: list[tuple[int, int, str]], shape: list[str]
) -> list[str]:
    cb = shape[0]
    tok = toks[i]
    line_start = text.rfind("\n", 0, tok.start) + 1
    line_end = text.find("\n", tok.end)
    line_end = len(text) if line_end < 0 else line_end
    feats: list[str] = []
    nearest: dict[str, tuple[int, int]] = {}
    after: set[str] = set()
    hexed = len(tok.value) >= 8 and all(c in "0123456789abcdefABCDEF-" for c in tok.value)
    for cs, ce, cat in found:
        if ce <= tok.start and tok.start - ce <= MAX_GAP:
            # A label on an earlier line ("backup codes:\n1) 5811…") counts under its own name.
            key = cat if cs >= line_start else f"prev-{cat}"
            between = sum(1 for t in toks if ce <= t.start < tok.start)
            if key not in nearest or between < nearest[key][0]:
                nearest[key] = (between, ce)
        elif cs >= tok.end and ce <= line_end and cs - tok.end <= 40:
            after.add(cat)
    closest = None
    for cat, (dist, ce) in nearest.items():
        b = "0" if dist == 0 else "1" if dist == 1 else "2" if dist == 2 else "3" if dist <= 4 else "5"
        feats += [f"c:{cat}:{b}", f"c:{cat}&{cb}", f"c:{cat}:{b}&{cb}"]
        if hexed:
            feats.append(f"c:{cat}&hex")  # a digest next to "lock", "zip", "session" is a hash
        if not cat.startswith("prev-") and (closest is None or dist < closest[1]):
            closest = (cat, dist, ce)
    if closest is not None:
        gap = " ".join(text[closest[2] : tok.start].lower().split())
        if len(gap) <= 14:
            feats.append(f"g:{gap}")
        # "password manager on Windows11" is prose; "password … is / : / → / opens with X" gives X.
        joined = "conn" if _CONNECTOR.search(gap) else "noconn"
        feats += [joined, f"{joined}&{cb}"]
        feats.append(f"near:{closest[0]}&{cb}")
        nearest_any = min(nearest.items(), key=lambda kv: (kv[1][0], -kv[1][1]))[0]
        feats.append(f"nearest:{nearest_any}&{cb}")
    else:
        # With no credential word near, only a typed-looking token is a secret: ids, hashes and
        # channel names are random too, so the shape features are repeated under "noctx".
        feats += [f"noctx&{f}" for f in shape if not f.startswith("g3:")]
    feats += [f"a:{cat}" for cat in after]
    if i > 0 and toks[i - 1].end >= line_start:
        feats.append(f"p:{toks[i - 1].value.lower()[:16]}")
        sep = text[toks[i - 1].end : tok.start].strip()
        feats.append(f"s:{sep[-1:] or '_'}")
    else:
        feats.append("bol")
    if i + 1 < len(toks) and toks[i + 1].start <= line_end:
        feats.append(f"n:{toks[i + 1].value.lower()[:16]}")
    else:
        feats.append("eol")
    return feats


def features(text: str, toks: list[Token], i: int, found: list[tuple[int, int, str]]) -> list[str]:
    shape = shape_features(toks[i].value)
    # Each feature counts once (a logistic regression over presence, as trained).
    return list(dict.fromkeys(["bias", *shape, *context_features(text, toks, i, found, shape)]))


def typed_looking(v: str) -> bool:
    """Made up by a person, not a machine: a word-like run of letters plus a digit, a symbol or a
    capital (`SoupDumpling88`, `Hydrangea1955!`), not a hex digest or a random id (`ch_3Nq8Lm2e…`)."""
    if all(c in "0123456789abcdefABCDEF-" for c in v):
        return False
    wordy = any(run[1:].islower() for run in _PARTS_CASED.findall(v))
    marked = any(c.isdigit() for c in v) or not v.isalnum() or any(c.isupper() for c in v[1:])
    # People type words and numbers in a few runs; generators alternate classes all the time.
    # Dots between words ("Blue.Kettle.Sings.44") do not count as changes.
    joined = v.replace(".", "")
    changes = sum(_cls(a) != _cls(b) for a, b in itertools.pairwise(joined))
    return wordy and marked and changes <= 0.4 * len(joined)


def _date(v: str) -> bool:
    m = _DATE.fullmatch(v)
    if m is None:
        return False
    parts = [int(x) for x in re.split(r"[./\-]", v)]
    day_month = parts[1:] if parts[0] > 31 else parts[:2]
    return all(1 <= x <= 31 for x in day_month) and min(day_month) <= 12


def candidates(text: str) -> tuple[list[Token], list[int], list[tuple[int, int, str]]]:
    """All tokens, the indexes of the candidate ones, and the concept words found.

    A token is scored when a credential concept is near (before it, or after it on its line), or,
    with none near, when it looks typed by a person: ids and digests without context are left to
    the format rules."""
    # Most chat has neither a marked token nor a credential word: nothing to score, no tokens.
    if not _has_marks(text) and not has_credential(text):
        return [], [], []
    found = concepts(text)
    toks = tokens(text)
    credential = [(s, e) for s, e, cat in found if cat not in ("open", "name")]
    idx = []
    for i, tok in enumerate(toks):
        before = any(e <= tok.start and tok.start - e <= MAX_GAP for s, e in credential)
        if not is_candidate(tok, before) or any(s <= tok.start < e for s, e in credential):
            continue
        # Right after a name label ("username: jake2024", "SSID HomeNet5") a token is a name.
        if any(
            cat == "name" and e <= tok.start and not text[e : tok.start].strip(" :=\t")
            for _s, e, cat in found
        ):
            continue
        # `vpc-0abc…`, `sha256:…`, `subnet-…`: a token that starts with an open word names an id.
        if any(s == tok.start for s, _e, cat in found if cat == "open"):
            continue
        # "since 2021", "in 2019": a year after a time word is a year.
        if _YEAR.fullmatch(tok.value) and _TIME_WORD.search(text[max(0, tok.start - 12) : tok.start]):
            continue
        # A date is a date, unless a label sits right before it ("Sort 09-01-28": a sort code).
        if _date(tok.value) and not any(
            e <= tok.start and not text[e : tok.start].strip(" :=\t") for _s, e in credential
        ):
            continue
        if before or typed_looking(tok.value):
            idx.append(i)
            continue
        line_end = text.find("\n", tok.end)
        line_end = len(text) if line_end < 0 else line_end
        if any(s >= tok.end and e <= line_end and s - tok.end <= 40 for s, e in credential):
            idx.append(i)
    return toks, idx, found
