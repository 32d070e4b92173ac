"""Calibrated relevance and score-level fusion: bounds, exact matches first, windows, the floor."""

from __future__ import annotations

from app.core.domain import SearchHit
from app.core.search.fusion import LegHit, Window, above_floor, score_candidates
from app.core.search.merge import merge_hits
from app.core.search.relevance import Evidence, RelevanceModel, stem

TEXTS = {
    "car": "The car needs its service before the winter",
    "policy": "Vacation policy: every employee gets 25 days of paid leave",
    "words": "our policy on vacation days is in the handbook",
}


def test_relevance_stays_in_the_unit_interval_for_any_evidence() -> None:
    scorer = RelevanceModel().for_query("vacation policy", best_bm25=3.0)
    for cosine in (-1.0, 0.0, 0.3, 0.7, 1.0, None):
        for bm25 in (None, 0.0, 3.0, 30.0):
            for text in (None, "", TEXTS["policy"], TEXTS["car"]):
                value = scorer.relevance(Evidence(cosine=cosine, bm25=bm25, text=text, window_cosine=cosine))
                assert 0.0 <= value <= 1.0


def test_a_hit_with_every_query_word_outranks_any_vector_only_hit() -> None:
    # The car line is the vector leg's best (cosine 0.95); the policy page only matched words.
    vector = [LegHit("car", 1, 0.95), LegHit("policy", 2, 0.10)]
    keyword = [LegHit("policy", 1, 4.2), LegHit("words", 2, 2.0)]
    scores = score_candidates(vector, keyword, query="vacation policy", texts=TEXTS)
    assert scores["policy"] > scores["words"] > scores["car"]  # phrase > all words > vector only
    assert scores["car"] < RelevanceModel().exact_base <= scores["words"]


def test_both_legs_together_beat_either_alone() -> None:
    texts = {"both": "budget review on friday", "vec": "money meeting at the end of week", "kw": "budget"}
    vector = [LegHit("both", 1, 0.5), LegHit("vec", 2, 0.5)]
    keyword = [LegHit("both", 1, 2.0), LegHit("kw", 2, 2.0)]
    scores = score_candidates(vector, keyword, query="budget meeting friday", texts=texts)
    assert scores["both"] > max(scores["vec"], scores["kw"])


def test_the_window_lends_a_reply_the_words_of_its_question() -> None:
    texts = {"reply": "Lisbon, with my sister", "other": "Lisbon is lovely"}
    vector = [LegHit("reply", 1, 0.3), LegHit("other", 2, 0.3)]
    asked = {"reply": Window(0.5, ("where did you go on holiday?",))}
    with_window = score_candidates(vector, [], query="holiday Lisbon", texts=texts, windows=asked)
    alone = score_candidates(vector, [], query="holiday Lisbon", texts=texts)
    assert with_window["reply"] > alone["reply"] == alone["other"]


def test_nothing_close_falls_under_the_floor() -> None:
    vector = [LegHit("car", 1, 0.18), LegHit("policy", 2, 0.12)]
    scores = score_candidates(vector, [], query="zzqxv", texts=TEXTS)
    assert above_floor(scores, 0.30) == {}


def test_suffixes_and_cjk_count_as_the_same_word() -> None:
    assert stem("policies") == stem("policy") and stem("painted") == stem("painting")
    scorer = RelevanceModel().for_query("會議 policies", best_bm25=1.0)
    assert scorer.coverage("明天的會議 and the policy")[0] == 1.0


def _hit(kind: str, ident: str, relevance: float | None, score: float = 0.0) -> SearchHit:
    return SearchHit(ident, kind, "", score, None, None, None, None, None, relevance=relevance)


def test_unified_merge_orders_kinds_on_relevance_and_counts_what_the_floor_hid() -> None:
    hits = [
        _hit("message", "1", 0.4),
        _hit("chunk", "c", 0.9),
        _hit("summary", "s", 0.1),
        _hit("message", "1", 0.4),
    ]
    kept, hidden = merge_hits(hits, limit=10, floor=0.3, loose=False)
    assert [h.id for h in kept] == ["c", "1"] and hidden == 1
    loose, hidden = merge_hits(hits, limit=2, floor=0.3, loose=True)
    assert [h.id for h in loose] == ["c", "1"] and hidden == 0
    # A source that has not filled in `relevance` reports it as its (clamped) score.
    assert merge_hits([_hit("insight", "i", None, score=1.7)], limit=1, floor=0.3, loose=False)[0][0]
