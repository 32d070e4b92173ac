"""List questions ("which cities has John been to?"): detection, order fusion, and the named leg."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from sqlalchemy import event

from app.core.domain import SearchFilters
from app.core.search.questions import asks_for_list
from app.core.search.ranking import fused_with
from tests.conftest import make_message


@pytest.mark.parametrize(
    "query",
    [
        "Which cities has John been to?",
        "What activities does Melanie do with her kids?",
        "What European countries has Maria been to?",
        "How many times has Anna been to the dentist?",
        "What do Jon and Gina both like?",
        "In what ways is Caroline helping the community?",
    ],
)
def test_list_questions_are_recognised(query: str) -> None:
    assert asks_for_list(query)


@pytest.mark.parametrize(
    "query",
    [
        "What did Caroline research?",
        "What is Anna's business called?",
        "What kind of car does Omar drive?",
        "vacation policy",
        "where did I park the car",
        "¿Qué ciudades ha visitado Juan?",  # other languages: search works as before
    ],
)
def test_other_queries_are_not_list_questions(query: str) -> None:
    assert not asks_for_list(query)


def test_fusion_lifts_what_the_second_order_puts_first() -> None:
    ranked = ["a", "b", "c", "d", "e"]
    assert fused_with(ranked, ["e", "d"], key=str) == ["e", "d", "a", "b", "c"]
    # Keys the first order does not hold (dropped by the floor or a filter) never come back.
    assert fused_with(ranked, ["x", "y", "c"], key=str)[0] == "c"
    assert set(fused_with(ranked, ["x"], key=str)) == set(ranked)
    assert fused_with(ranked, [], key=str) == ranked


def _seed(services) -> None:
    # Maria asks John about cities again and again, by name: those 40 messages hold every word of
    # the question and fill both legs' pools. John's own answer names the place and shares one word.
    asks = [
        make_message(
            100 + i,
            channel="john-maria",
            person="Maria",
            content=f"John, which cities have you visited? ({i})",
        )
        for i in range(40)
    ]
    john = [
        make_message(
            1, channel="john-trips", person="John", content="visited Lisbon in May, loved the trams"
        ),
        make_message(2, channel="john-work", person="John", content="the quarterly report is due on Friday"),
    ]
    services.memory.ingest([*asks, *john])


def _found(services, query: str, filters: SearchFilters | None = None, **config) -> list[str]:
    searcher = services.memory.searcher
    default = searcher.config
    searcher.config = replace(default, **config)
    try:
        return [h.message_id for h in services.memory.search(query, filters, limit=10)]
    finally:
        searcher.config = default


def test_a_list_question_reaches_the_named_persons_own_answer(services) -> None:
    _seed(services)
    assert "m1" in _found(services, "Which cities has John visited?")


def test_without_the_named_leg_the_answer_is_out_of_reach(services) -> None:
    _seed(services)
    assert "m1" not in _found(services, "Which cities has John visited?", list_pool=0)


def test_a_question_that_is_not_a_list_ranks_as_before(services) -> None:
    _seed(services)
    query = "Did John visit Lisbon?"
    assert _found(services, query) == _found(services, query, list_pool=0)


def test_filters_still_apply_to_the_named_leg(services) -> None:
    _seed(services)
    # John's answer is in another channel than the one asked for: it must not come back.
    found = _found(services, "Which cities has John visited?", SearchFilters(channels=("john-maria",)))
    assert found and "m1" not in found


def test_the_index_path_takes_the_named_persons_answer_too(services) -> None:
    """Above the in-memory limit the named people's nearest messages get their cosines from the
    stored vectors, so both paths rank a list question alike."""
    _seed(services)
    query = "Which cities has John visited?"
    in_memory = [(h.id, round(h.score, 5)) for h in services.memory.search(query, limit=10)]
    corpus = services.memory.searcher.corpus
    corpus.max_cached_rows = 1  # as a collection past the limit: the index path serves
    corpus._caches.clear()
    assert corpus.matrix().view() is None
    served = [(h.id, round(h.score, 5)) for h in services.memory.search(query, limit=10)]
    assert "m1" in _found(services, query)
    assert served == in_memory


def test_named_candidates_get_turns_read_only_when_windowed(services) -> None:
    """On the index path a list question's named candidates are read as rows; only those the
    ranking windows get their turns read (one statement per side each), and the hits stay those
    of the in-memory path."""
    _seed(services)
    query = "Which cities has John visited?"
    searcher = services.memory.searcher
    searcher.config = replace(searcher.config, stored_windowed=1, candidate_pool=5)
    in_memory = [(h.id, round(h.score, 5)) for h in services.memory.search(query, limit=10)]
    corpus = searcher.corpus
    corpus.max_cached_rows = 1  # as a collection past the limit: the index path serves
    corpus._caches.clear()
    centres: set[str] = set()

    def seen(_conn, _cursor, statement, parameters, *_args) -> None:
        # The turns statement binds its centres' ids as one JSON array (stored_windows.py).
        if "json_each(?1) AS j JOIN raw_messages AS c" in statement:
            centres.update(str(i) for i in json.loads(parameters[0]))

    event.listen(services.db.read_engine, "before_cursor_execute", seen)
    try:
        served = [(h.id, round(h.score, 5)) for h in services.memory.search(query, limit=10)]
    finally:
        event.remove(services.db.read_engine, "before_cursor_execute", seen)
    assert served == in_memory
    john = {h.id for h in services.memory.search(query, limit=50) if h.person == "John"}
    assert john and centres  # John's messages were candidates; some turns were read
    assert not john <= centres  # not every named candidate had its turns read
