"""Rule-based summaries: key points picked for information (TF-IDF centrality + MMR) and YAKE keywords."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import yake

from app.core.clock import iso
from app.core.domain import MessageRecord
from forgetting import constants as c
from forgetting import text as tx
from forgetting.scoring import importance_hits

# MMR trade-off: 0.7 relevance vs 0.3 novelty; candidates nearly identical to a chosen point are dropped.
MMR_LAMBDA = 0.7
NEAR_DUPLICATE = 0.8
# Sentences shorter than this many content tokens carry little information ("ok", "thanks!").
MIN_SENTENCE_TOKENS = 3
# Off-topic sentences far below the best one are not worth a key point even when slots are free.
RELEVANCE_FLOOR = 0.2


@dataclass(frozen=True, slots=True)
class KeyPoint:
    """One highlight and the raw_messages ids it came from."""

    text: str
    source_ids: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "sourceRecordIds": list(self.source_ids)}


@dataclass(frozen=True, slots=True)
class SummaryDraft:
    """What a summarizer produced for one group, before it is stored as a memory_summaries row."""

    key_points: tuple[KeyPoint, ...]
    keywords: tuple[str, ...]
    summary_text: str
    quality_score: float
    summarizer: str = "rules"
    note: str | None = None  # why a fallback happened, reported with the run

    @property
    def keywords_text(self) -> str:
        return " ".join(self.keywords)

    def to_dict(self) -> dict[str, Any]:
        return {
            "keyPoints": [k.to_dict() for k in self.key_points],
            "keywords": list(self.keywords),
            "keywordsText": self.keywords_text,
            "summaryText": self.summary_text,
            "qualityScore": round(self.quality_score, 4),
            "summarizer": self.summarizer,
            **({"note": self.note} if self.note else {}),
        }


class Summarizer(Protocol):
    name: str

    def summarize(self, records: tuple[MessageRecord, ...]) -> SummaryDraft: ...


@dataclass(frozen=True, slots=True)
class _Unit:
    text: str
    record_ids: tuple[int, ...]
    timestamp: int
    tokens: tuple[str, ...]


def _units(records: tuple[MessageRecord, ...]) -> list[_Unit]:
    """Sentences of every record; identical sentences merge and remember all their sources."""
    merged: dict[str, _Unit] = {}
    for record in sorted(records, key=lambda r: (r.timestamp, r.id)):
        parts = tx.sentences(record.content or "")
        for part in parts:
            toks = tuple(tx.tokens(part))
            key = " ".join(toks) or part.lower()
            if key in merged:
                old = merged[key]
                if record.id not in old.record_ids:
                    merged[key] = _Unit(old.text, (*old.record_ids, record.id), old.timestamp, old.tokens)
            else:
                merged[key] = _Unit(part, (record.id,), record.timestamp, toks)
    return list(merged.values())


def select_key_points(records: tuple[MessageRecord, ...], limit: int) -> tuple[KeyPoint, ...]:
    every = [u for u in _units(records) if u.tokens]
    # Short acknowledgements ("ok", "sounds good") only speak for a group that has nothing else.
    units = [u for u in every if len(u.tokens) >= MIN_SENTENCE_TOKENS] or every
    if not units:
        return ()
    vectors = tx.tfidf([list(u.tokens) for u in units])
    center = tx.centroid(vectors)
    relevance = []
    for unit, vec in zip(units, vectors, strict=True):
        centrality = tx.cosine(vec, center)
        # A sentence repeated by several messages, or naming a decision/deadline/etc., matters more.
        repeat = 1.0 + 0.15 * (len(unit.record_ids) - 1)
        flagged = 1.0 + 0.25 * len(importance_hits(unit.text))
        length = min(1.0, len(unit.tokens) / 6)
        relevance.append(centrality * repeat * flagged * (0.5 + 0.5 * length))
    floor = RELEVANCE_FLOOR * max(relevance)
    chosen: list[int] = []
    remaining = {i for i in range(len(units)) if relevance[i] >= floor}
    while remaining and len(chosen) < limit:

        def mmr(i: int) -> float:
            overlap = max((tx.cosine(vectors[i], vectors[j]) for j in chosen), default=0.0)
            return MMR_LAMBDA * relevance[i] - (1 - MMR_LAMBDA) * overlap

        best = max(sorted(remaining), key=mmr)
        remaining.discard(best)
        if any(tx.cosine(vectors[best], vectors[j]) >= NEAR_DUPLICATE for j in chosen):
            continue
        chosen.append(best)
    # Read in conversation order, not score order.
    chosen.sort(key=lambda i: (units[i].timestamp, i))
    return tuple(
        KeyPoint(tx.clip(units[i].text, c.MAX_KEY_POINT_CHARS), tuple(sorted(units[i].record_ids)))
        for i in chosen
    )


def extract_keywords(texts: list[str], limit: int) -> tuple[str, ...]:
    """YAKE keyphrases (1–2 words); CJK-heavy text uses frequent character bigrams instead."""
    joined = " ".join(tx.normalize(t) for t in texts if t)
    if not joined:
        return ()
    if tx.is_cjk_heavy(joined):
        return _frequent_terms(joined, limit)
    extractor = yake.KeywordExtractor(lan="en", n=2, dedup_lim=0.7, top=limit * 2)
    found: list[str] = []
    for phrase, _score in extractor.extract_keywords(joined):
        word = phrase.lower().strip()
        if word and not any(word == f or word in f.split() for f in found):
            found.append(word)
        if len(found) >= limit:
            break
    return tuple(found) or _frequent_terms(joined, limit)


def _frequent_terms(text: str, limit: int) -> tuple[str, ...]:
    counts: dict[str, int] = {}
    for tok in tx.tokens(text):
        counts[tok] = counts.get(tok, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return tuple(t for t, _ in ranked[:limit])


def quality(
    key_points: tuple[KeyPoint, ...], keywords: tuple[str, ...], records: tuple[MessageRecord, ...]
) -> float:
    """0–1: how much of the group's content the key points cover, how distinct they are, keywords found.

    coverage  = share of the group's TF-IDF term mass whose terms appear in some key point
    diversity = 1 − mean pairwise cosine between key points (1.0 for a single point)
    quality   = 0.6·coverage + 0.25·diversity + 0.15·min(1, keywords / 5); 0 without key points.
    """
    if not key_points:
        return 0.0
    docs = [tx.tokens(r.content or "") for r in records]
    mass: dict[str, float] = {}
    for vec in tx.tfidf([d for d in docs if d]):
        for term, weight in vec.items():
            mass[term] = mass.get(term, 0.0) + weight
    covered_terms = {t for kp in key_points for t in tx.tokens(kp.text)}
    total = sum(mass.values())
    coverage = sum(w for t, w in mass.items() if t in covered_terms) / total if total else 0.0
    vecs = [tx.unit({t: 1.0 for t in tx.tokens(kp.text)}) for kp in key_points]
    pairs = [(i, j) for i in range(len(vecs)) for j in range(i + 1, len(vecs))]
    diversity = 1.0 - (sum(tx.cosine(vecs[i], vecs[j]) for i, j in pairs) / len(pairs)) if pairs else 1.0
    value = 0.6 * coverage + 0.25 * diversity + 0.15 * min(1.0, len(keywords) / 5)
    return round(max(0.0, min(1.0, value)), 4)


def describe_group(records: tuple[MessageRecord, ...]) -> str:
    """The opening of every summary text: how many messages, where, with whom, when."""
    first = min(records, key=lambda r: r.timestamp)
    last = max(records, key=lambda r: r.timestamp)
    start, end = (iso(first.timestamp) or "")[:10], (iso(last.timestamp) or "")[:10]
    when = start if start == end else f"{start} to {end}"
    where = f"{first.platform} #{first.channel}" if first.channel else first.platform
    who = f" with {first.person}" if first.person else ""
    return f"{len(records)} messages on {where}{who}, {when}."


def compose_text(
    records: tuple[MessageRecord, ...], key_points: tuple[KeyPoint, ...], keywords: tuple[str, ...]
) -> str:
    text = describe_group(records)
    if key_points:
        text += " Key points: " + " ".join(kp.text.rstrip() for kp in key_points)
    if keywords:
        text += " Topics: " + ", ".join(keywords[:6]) + "."
    return tx.clip(text, c.MAX_SUMMARY_TEXT_CHARS)


class RuleBasedSummarizer:
    """Offline summarizer (spec: RuleBasedMemorySummarizer); pure and deterministic."""

    name = "rules"

    def __init__(self, max_key_points: int = c.MAX_KEY_POINTS, max_keywords: int = c.MAX_KEYWORDS) -> None:
        self.max_key_points = max_key_points
        self.max_keywords = max_keywords

    def summarize(self, records: tuple[MessageRecord, ...]) -> SummaryDraft:
        key_points = select_key_points(records, self.max_key_points)
        keywords = extract_keywords([r.content or "" for r in records], self.max_keywords)
        return SummaryDraft(
            key_points=key_points,
            keywords=keywords,
            summary_text=compose_text(records, key_points, keywords),
            quality_score=quality(key_points, keywords, records),
            summarizer=self.name,
        )
