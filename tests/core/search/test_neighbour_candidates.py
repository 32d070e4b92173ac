"""The best candidates' conversation neighbours join the candidates: a reply without the query's words."""

from __future__ import annotations

from dataclasses import replace

from app.core.domain import SearchFilters
from tests.conftest import make_message


def _seed(services) -> None:
    # 40 messages about the garden share "summer" with the query, so both legs fill their pools
    # with them; the reply "Lisbon, with my sister" holds none of the query's words.
    fillers = [
        make_message(100 + i, channel=f"garden-{i % 4}", content=f"summer plans for the garden, bed {i}")
        for i in range(40)
    ]
    talk = [
        make_message(1, channel="family", content="where did you go on holiday this summer?"),
        make_message(2, channel="family", person="omar", content="Lisbon, with my sister"),
        make_message(3, channel="family", content="sounds lovely"),
    ]
    services.memory.ingest([*fillers, *talk])


def _found(services, **config) -> list[str]:
    searcher = services.memory.searcher
    searcher.config = replace(searcher.config, **config)
    return [h.message_id for h in services.memory.search("summer holiday", limit=10)]


def test_the_reply_to_a_matching_question_is_found(services) -> None:
    _seed(services)
    found = _found(services)
    assert found[0] == "m1" and "m2" in found


def test_without_neighbour_candidates_the_reply_is_out_of_reach(services) -> None:
    _seed(services)
    assert "m2" not in _found(services, neighbour_candidates=0)


def test_neighbours_keep_the_filters(services) -> None:
    _seed(services)
    # Omar's reply is a neighbour of Anna's question, but the filter asks for Anna's messages only.
    hits = services.memory.search("summer holiday", SearchFilters(persons=("anna",)), limit=10)
    assert hits and {h.person for h in hits} == {"anna"}
