"""Wallet seed phrases with no label: 12 to 24 words in a row, all from one BIP-39 word list.

A labelled seed phrase is a code pattern ("seed phrase: …"); people also paste the words alone or
as a numbered list ("1. canyon 2. velvet …", "1 canyon 2 velvet …"). Each BIP-39 list holds
2,048 words but none of the little words prose is made of ("the", "is", "to", "my"), so twelve of
them in a row, separated by nothing but spaces, commas or list numbers, do not happen in ordinary
text: across 2,760 chat turns and 646,000 lines of manual pages the longest run was 11 (one word
repeated in a table), which is why at least 8 different words are also required. The lists come
from `mnemonic` (Trezor's reference implementation), loaded on first use.
"""

from __future__ import annotations

import functools
import re
import unicodedata

MIN_WORDS = 12
MIN_DISTINCT = 8
# Latin-script lists: the words of a run must all come from the same one.
LANGUAGES = ("english", "spanish", "french", "italian", "portuguese", "czech")
_TOKEN = re.compile(r"\S+")
_NUMBERING = re.compile(r"\d{1,2}[.):]?|[-*•]")
# A cheap first pass: twelve or more words of 3–10 letters separated only by spaces, commas and
# list numbers. Only such runs are looked up in the word lists.
_WORD = r"[a-zà-ž]{3,10}"  # every list's words are lower-case, 3 to 10 letters
_NUMBER = r"(?:(?:\d{1,2}[.):]?|[-*•])\s+)?"
_RUN = re.compile(rf"(?<!\S)(?>(?:{_NUMBER}{_WORD},?\s+){{11,}}){_NUMBER}{_WORD}")


@functools.cache
def _wordlists() -> tuple[frozenset[str], ...]:
    from mnemonic import Mnemonic

    # Some lists spell accents as combining marks; chat text arrives composed (NFC).
    return tuple(
        frozenset(unicodedata.normalize("NFC", w) for w in Mnemonic(lang).wordlist) for lang in LANGUAGES
    )


def mostly_seed_words(value: str) -> bool:
    """For a labelled phrase: at least three words in four come from one list (people mistype)."""
    words = re.findall(r"[^\W\d_]+", value.lower())
    return any(sum(w in wl for w in words) >= 0.75 * len(words) for wl in _wordlists())


def find_seed_phrases(text: str) -> list[tuple[int, int]]:
    """Spans of runs of at least MIN_WORDS words from one BIP-39 list."""
    spans: list[tuple[int, int]] = []
    for candidate in _RUN.finditer(text):
        offset = candidate.start()
        tokens = [
            (offset + m.start(), offset + m.start() + len(m.group().rstrip(",")), m.group().rstrip(","))
            for m in _TOKEN.finditer(candidate.group())
            if not _NUMBERING.fullmatch(m.group())
        ]
        for words in _wordlists():
            spans.extend(_runs(tokens, words))
    return spans


def _runs(tokens: list[tuple[int, int, str]], words: frozenset[str]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    run: list[tuple[int, int, str]] = []
    for token in [*tokens, (0, 0, "")]:
        if token[2] in words:
            run.append(token)
            continue
        if len(run) >= MIN_WORDS and len({w for _, _, w in run}) >= MIN_DISTINCT:
            out.append((run[0][0], run[-1][1]))
        run = []
    return out
