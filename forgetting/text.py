"""Text helpers for summaries: sentence split, tokens (CJK-aware), TF-IDF vectors, cosine."""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

import yake

_WS = re.compile(r"\s+")
# Sentence ends: Latin punctuation followed by space, CJK full stops (no space needed), newlines.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？!?])|\n+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_TOKEN = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+|[^\W_]+(?:['’][^\W_]+)?"
)
_URL = re.compile(r"https?://\S+")

Vector = dict[str, float]


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    # yake ships curated stop-word lists; reuse its English list instead of keeping our own.
    return frozenset(yake.KeywordExtractor(lan="en").stopword_set)


def normalize(text: str) -> str:
    return _WS.sub(" ", text).strip()


def is_cjk_heavy(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and sum(1 for ch in letters if _CJK.match(ch)) / len(letters) >= 0.3


def sentences(text: str) -> list[str]:
    """Split a message into sentences; URLs are kept whole."""
    parts = [normalize(p) for p in _SENTENCE_END.split(text or "")]
    return [p for p in parts if p]


def tokens(text: str) -> list[str]:
    """Content tokens: lower-cased words without stop words or digits; CJK runs become bigrams."""
    out: list[str] = []
    stop = stopwords()
    for match in _TOKEN.finditer(_URL.sub(" ", text.lower().replace("’", "'"))):
        word = match.group(0)
        if _CJK.match(word):
            # No spaces between CJK words: character bigrams are a robust stand-in for words.
            out.extend(word[i : i + 2] for i in range(max(1, len(word) - 1)))
        elif len(word) > 1 and not word.isdigit() and word not in stop:
            out.append(word)
    return out


def tfidf(docs: list[list[str]]) -> list[Vector]:
    """Smoothed TF-IDF (sublinear tf), each vector L2-normalised."""
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(set(doc))
    n = len(docs)
    vectors: list[Vector] = []
    for doc in docs:
        counts = Counter(doc)
        vec = {t: (1.0 + math.log(k)) * (math.log((n + 1) / (df[t] + 1)) + 1.0) for t, k in counts.items()}
        vectors.append(unit(vec))
    return vectors


def unit(vec: Vector) -> Vector:
    norm = math.sqrt(sum(v * v for v in vec.values()))
    return {t: v / norm for t, v in vec.items()} if norm else {}


def cosine(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(t, 0.0) for t, v in a.items())


def centroid(vectors: list[Vector]) -> Vector:
    total: Counter[str] = Counter()
    for vec in vectors:
        total.update(vec)
    return unit(dict(total))


def clip(text: str, limit: int) -> str:
    """Cut at a word boundary with an ellipsis when longer than `limit`."""
    text = normalize(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"
