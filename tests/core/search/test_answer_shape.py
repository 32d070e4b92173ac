"""A question about named people rewritten as the statement they would write (answer_shape.py)."""

from __future__ import annotations

import pytest

from app.core.search.answer_shape import answer_shaped


@pytest.mark.parametrize(
    ("question", "names", "statement"),
    [
        ("What activities does Melanie partake in?", {"melanie"}, "I partake in activities"),
        ("Which cities has Jon visited?", {"jon"}, "I have visited cities"),
        ("What did Caroline research?", {"caroline"}, "I researched"),
        ("How did Gina promote her clothes store?", {"gina"}, "I promoted my clothes store"),
        ("When did Melanie go on a hike?", {"melanie"}, "I went on a hike"),
        ("What is Caroline's relationship status?", {"caroline"}, "my relationship status is"),
        ("What do Jon and Gina both have in common?", {"jon", "gina"}, "we both have in common"),
        ("Did Jon and Gina both participate in dance competitions?", {"jon", "gina"},
         "we both participated in dance competitions"),
        ("Is Anna coming to the party?", {"anna"}, "I am coming to the party"),
        ("Who supports Caroline when she has a bad day?", {"caroline"},
         "Who supports me when I have a bad day"),
        ("What book recommendations has Joanna given to Nate?", {"joanna", "nate"},
         "I have given to you book recommendations"),
    ],
)  # fmt: skip
def test_questions_become_first_person_statements(question: str, names: set[str], statement: str) -> None:
    assert answer_shaped(question, names) == statement


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("pottery class Melanie", {"melanie"}),  # keywords, not a question
        ("What area was hit by a flood?", {"melanie"}),  # names nobody
        ("Was hat Melanie gemalt?", {"melanie"}),  # another language
        ("What did Melanie paint?", set()),  # no names known
    ],
)
def test_other_queries_are_left_alone(query: str, names: set[str]) -> None:
    assert answer_shaped(query, names) is None
