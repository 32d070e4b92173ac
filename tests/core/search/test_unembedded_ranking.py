"""A message not embedded yet (embedding backlog) is ranked on the evidence it has, not sunk.

A missing vector is "no vector evidence", the same as a cosine at the bottom of the model's
scale, never a penalty: an exact keyword match without a vector still clears the floor and
outranks every hit found only by meaning.
"""

from __future__ import annotations

from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.search.fusion import DEFAULT_FLOOR
from app.core.search.relevance import Evidence, RelevanceModel
from app.core.settings import Settings
from tests.conftest import make_message
from tests.core.index.test_backlog import CountingEmbedder

TEXT = "the okapi sighting was confirmed by the rangers"


def test_a_missing_vector_counts_as_no_vector_evidence() -> None:
    model = RelevanceModel()
    scorer = model.for_query("okapi sighting", best_bm25=8.0)
    unembedded = scorer.relevance(Evidence(cosine=None, bm25=8.0, text=TEXT))
    bottom = scorer.relevance(Evidence(cosine=model.cosine_low, bm25=8.0, text=TEXT))
    negative = scorer.relevance(Evidence(cosine=-0.2, bm25=8.0, text=TEXT))
    assert unembedded == bottom == negative  # no evidence either way, no penalty
    assert unembedded >= model.exact_base > DEFAULT_FLOOR
    # Above the best a vector-only hit can reach (a paraphrase at the top of the cosine scale).
    best_vector_only = scorer.relevance(Evidence(cosine=1.0, bm25=None, text="a rare animal was seen"))
    assert unembedded > best_vector_only


def test_search_finds_and_ranks_a_message_still_in_the_backlog(settings: Settings, clock: FixedClock) -> None:
    embedder = CountingEmbedder()
    svc = build_services(settings, clock=clock, embedder=embedder)
    try:
        svc.memory.ingest(
            [
                make_message(i, content=f"rangers confirmed sighting number {i} near the river")
                for i in range(40)
            ]
        )
        embedder.gate.clear()  # the model is busy: the next import stays in the backlog
        svc.memory.ingest([make_message(100, content=TEXT)], defer_embedding=True)
        assert svc.processor.backlog.pending() == 1
        hits = svc.memory.search("okapi sighting", limit=5)
        assert hits and hits[0].message_id == "m100"
        assert hits[0].relevance is not None and hits[0].relevance >= RelevanceModel().exact_base
        # Once embedded, it stays first, with the vector evidence added.
        embedder.gate.set()
        assert svc.processor.backlog.wait(timeout_s=30).pending == 0
        after = svc.memory.search("okapi sighting", limit=5)
        assert after[0].message_id == "m100" and (after[0].relevance or 0) >= hits[0].relevance
    finally:
        embedder.gate.set()
        svc.close()
