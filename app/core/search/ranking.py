"""Message ranking: relevance from both legs and the conversation window, people boosts, floor, dedupe."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from app.core.clock import DAY_MS
from app.core.domain import SearchHit
from app.core.search.attachment_words import floor_texts
from app.core.search.context import CandidateContext
from app.core.search.fusion import (
    FusionConfig,
    LegHit,
    Window,
    near_duplicate_key,
    query_scorer,
    score_candidates,
)
from app.core.search.people import Mentions

if TYPE_CHECKING:
    from app.core.search.search_config import SearchConfig


_NAME_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# How many of the best candidates are scored again with their conversation window.
WINDOWED = 40
# keys -> (their cosines, windows and neighbours; the neighbours' rows), or (None, {}) when
# the vectors are not held in memory.
WindowSource = Callable[[Sequence[str]], tuple[CandidateContext | None, Mapping[str, Any]]]


def without_names(query: str, mentions: Mentions) -> str:
    """The query minus the words of the people it names (the query itself if nothing else is left)."""
    names = {w.lower() for person in mentions.persons for w in _NAME_WORD.findall(person)}
    if not names:
        return query
    words = [w for w in query.split() if w.lower().strip(".,;:!?\"'()").removesuffix("'s") not in names]
    return " ".join(words) if any(c.isalnum() for c in "".join(words)) else query


def _boosted(value: float, row: Any, mentions: Mentions, config: SearchConfig) -> float:
    """A person the query names: their messages and conversations are likelier answers."""
    if row is None:
        return value
    if (row.platform, row.channel) in mentions.channels:
        value += config.mentioned_channel_bonus
    if row.person in mentions.persons:
        value += config.mentioned_person_bonus
    # Not capped at 1: a capped boost ties the best hits and throws their evidence away.
    return value


# Reciprocal-rank constant for fusing a list question's second order (small: top ranks count).
LIST_RRF_K = 10
T = TypeVar("T")


def fused_with(ranked: Sequence[T], second: Sequence[str], *, key: Callable[[T], str]) -> list[T]:
    """`ranked` reordered by reciprocal-rank fusion with `second` (keys, best first; keys not in
    `ranked` are ignored, so what the floor or the filters dropped stays dropped). Used for list
    questions: the ranking keeps what matches the question well, the second order (the named
    people's messages nearest in meaning) brings up the ones that name the things asked for."""
    present = {key(item) for item in ranked}
    place = {k: rank for rank, k in enumerate(k for k in second if k in present)}

    def score(rank: int, item: T) -> float:
        own = 1.0 / (LIST_RRF_K + rank + 1)
        at = place.get(key(item))
        return own + (1.0 / (LIST_RRF_K + at + 1) if at is not None else 0.0)

    scores = [(score(rank, item), rank, item) for rank, item in enumerate(ranked)]
    scores.sort(key=lambda entry: (-entry[0], entry[1]))
    return [item for _, _, item in scores]


def _unheld_word(query: str, texts: Mapping[str, str], fusion: Any) -> bool:
    """Whether a content word of `query` is in none of the candidates' texts: the keyword leg ranks
    a rare word's messages first, so one it did not bring is (nearly always) in no message."""
    scorer = fusion.relevance.for_query(query, 0.0)
    held: set[str] = set()
    for text in texts.values():
        held |= scorer.present(text)
    return any(t not in held for t in scorer.terms)


@dataclass(frozen=True, slots=True)
class RankedMessages:
    hits: list[SearchHit]
    hidden: int  # candidates below the relevance floor (shown by a loose search)


def message_text(row: Any) -> str:
    """What the lexical evidence reads: the text, its attachments' names and who wrote it (as the
    keyword index does)."""
    names = attachment_names(getattr(row, "attachments", None))
    return (
        f"{row.content or ''} {names} {row.person or ''}"
        if names
        else f"{row.content or ''} {row.person or ''}"
    )


def attachment_names(value: Any) -> str:
    """The names (file names, photo captions) in a row's attachments, read raw (JSON text) or decoded."""
    if not value or value == "[]":
        return ""  # most messages: no parsing
    items = json.loads(value) if isinstance(value, str) else value
    return " ".join(str(a.get("name") or "") for a in items or () if isinstance(a, dict)).strip()


def floor_fusion(fusion: FusionConfig, partial_support: float) -> FusionConfig:
    """The fusion config the floor judges with: partial word matches need the vector leg's support."""
    return replace(fusion, relevance=replace(fusion.relevance, partial_support=partial_support))


def rank_messages(
    *,
    query_text: str,
    vector: Sequence[LegHit],
    keyword: Sequence[LegHit],
    rows: Mapping[str, Any],
    cosines: Mapping[str, float] | None,
    windows_for: WindowSource | None,
    passes: Callable[[Any], bool],
    mentions: Mentions,
    now_ms: int,
    config: SearchConfig,
    limit: int,
    loose: bool,
    to_hit: Callable[[Any, float, float], SearchHit],
    named: Sequence[str] = (),
    instances: Callable[[Mapping[str, str]], dict[str, float]] | None = None,
    nameless_context: Callable[[Sequence[str]], CandidateContext | None] | None = None,
) -> RankedMessages:
    """Candidates scored on their own evidence, then the best `WINDOWED` of them again with their
    conversation window (reading every candidate's neighbours cost a third of the query at 100k
    messages, for 0.002 R@10 on LoCoMo)."""
    rows = dict(rows)
    texts = {key: message_text(row) for key, row in rows.items()}
    fusion = config.fusion.config
    # One scorer for both passes (same query, keyword hits and config): the windowed pass reads
    # the best candidates' own texts again, and their words are known from the first.
    scorer = query_scorer(keyword, query=query_text, config=fusion)
    relevance = score_candidates(
        vector, keyword, query=query_text, texts=texts, config=fusion, cosines=cosines, scorer=scorer
    )
    windows: dict[str, Window] = {}
    all_cosines = dict(cosines or {})
    if windows_for is not None:
        best = sorted(relevance, key=lambda k: -_boosted(relevance[k], rows.get(k), mentions, config))
        context, neighbours = windows_for(best[:WINDOWED])
        if context is not None:
            # The turns around the best candidates join them: an answer ("we even won a
            # trophy!") often sits beside the turn that holds the question's words.
            extra = [
                n
                for key in best[: config.neighbour_candidates]
                for n in context.neighbours.get(key, ())
                if n not in relevance and n in neighbours
            ]
            extra = list(dict.fromkeys(extra))
            if extra:
                more, around_more = windows_for(extra)
                if more is not None:
                    context = CandidateContext(
                        {**context.cosines, **more.cosines},
                        {**context.window_cosines, **more.window_cosines},
                        {**context.neighbours, **more.neighbours},
                    )
                    neighbours = {**around_more, **neighbours}
                    for key in extra:
                        rows[key] = neighbours[key]
                        texts[key] = message_text(neighbours[key])
                    vector = [*vector, *(LegHit(k, 0, more.cosines[k]) for k in extra if k in more.cosines)]
            # Neighbours lend their words to a window (candidates among them are in `rows`).
            nearby = {**{key: message_text(row) for key, row in neighbours.items()}, **texts}
            for key, around in context.neighbours.items():
                words = tuple(nearby[n] for n in around if n in nearby)
                windows[key] = Window(context.window_cosines.get(key), words)
            all_cosines |= context.cosines
            relevance |= score_candidates(
                vector,
                keyword,
                query=query_text,
                texts=texts,
                config=fusion,
                cosines=all_cosines,
                windows=windows,
                only=set(windows) | set(extra),
                scorer=scorer,
            )
    # A name the query uses to say *whose* messages (people understanding) is not evidence that a
    # message of theirs is about the rest of the query: the floor (and the reported relevance)
    # judge the query without it, while the order keeps the name's evidence and the boost.
    evidence = relevance
    unnamed = without_names(query_text, mentions)
    if unnamed != query_text:
        fusion = floor_fusion(fusion, config.floor_partial_support)
        # A caption's word counts for the floor only when it completes the match (attachment_words.py).
        judged = texts
        if not config.floor_partial_captions:
            judged = floor_texts(texts, rows, fusion.relevance.for_query(unnamed, 0.0), attachment_names)
        ctx = None
        if nameless_context is not None and _unheld_word(unnamed, texts, fusion):
            # A word nobody wrote: what is left to match is the name (and the question's frame).
            ctx = nameless_context(list(relevance))
        if ctx is not None:
            # The name's pull (full cosine over nameless) comes off whatever the vector leg gave,
            # so a sentence key's lift stays.
            def unpulled(h: LegHit) -> float:
                own, bare = all_cosines.get(h.key), ctx.cosines.get(h.key)
                return h.value if own is None or bare is None else h.value - max(0.0, own - bare)

            ev_vector = [LegHit(h.key, h.rank, unpulled(h)) for h in vector]
            ev_windows = {
                k: Window(
                    min(w.cosine, ctx.window_cosines.get(k, w.cosine)) if w.cosine is not None else None,
                    w.texts,
                )
                for k, w in windows.items()
            }
            evidence = score_candidates(
                ev_vector,
                keyword,
                query=unnamed,
                texts=judged,
                config=fusion,
                cosines={**all_cosines, **{k: min(c, all_cosines.get(k, c)) for k, c in ctx.cosines.items()}},
                windows=ev_windows,
            )
        else:
            evidence = score_candidates(
                vector,
                keyword,
                query=unnamed,
                texts=judged,
                config=fusion,
                cosines=all_cosines,
                windows=windows,
            )
    # A list question asking for a kind of thing: the named people's nearest messages are also
    # judged on the thing they name ("Chicago" for "cities"), evidence the question's words miss.
    named_instances: dict[str, float] = {}
    if instances is not None:
        judged = [k for k in named if k in relevance and k in rows][: config.list_instances]
        named_instances = instances({k: rows[k].content or "" for k in judged})
    scored: list[tuple[float, float, Any]] = []
    hidden = 0
    for key, full in relevance.items():
        row = rows.get(key)
        if row is None or not passes(row):
            continue  # a vector whose row is gone (crash leftovers) or filtered after the fact
        value = evidence.get(key, full)
        if key in named_instances:
            # The floor only: ordering by it cost 0.004-0.006 multi-hop R@10 on LoCoMo.
            value = max(value, named_instances[key])
        if value < fusion.floor and not loose:
            hidden += 1
            continue
        age_days = max(0.0, (now_ms - row.timestamp) / DAY_MS)
        recency = config.recency_weight * math.exp(-age_days / config.recency_half_life_days)
        score = _boosted(full, row, mentions, config) + recency
        scored.append((score, value, row))
    scored.sort(key=lambda item: (-item[0], -item[2].timestamp))
    if named:
        scored = fused_with(scored, named, key=lambda item: str(item[2].id))
    hits: list[SearchHit] = []
    seen: set[str] = set()
    for score, value, row in scored:
        dup = near_duplicate_key(row.content or "")
        if dup in seen:
            continue
        seen.add(dup)
        hits.append(to_hit(row, min(1.0, score), value))
        if len(hits) >= limit:
            break
    return RankedMessages(hits, hidden)
