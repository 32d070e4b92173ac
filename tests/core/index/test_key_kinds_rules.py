"""The rules of the measured extra key kinds (tests/benchmarks/key_kinds.py) say what they claim."""

from __future__ import annotations

from types import SimpleNamespace

from tests.benchmarks.key_kinds import aggregate_groups, captions, facts_of, sentence_keys_with_facts, tagged


def _row(
    id_: int, person: str, content: str, attachments: list[dict[str, str]] | None = None
) -> SimpleNamespace:
    return SimpleNamespace(id=id_, person=person, content=content, attachments=attachments or [])


def test_facts_are_the_writers_statements_told_in_the_third_person() -> None:
    assert facts_of("John", "I was in Chicago, it was awesome! The locals were friendly.") == [
        "John was in Chicago"
    ]
    assert facts_of("Jon", "Still working on my biz. Took a short trip last week to Rome.") == [
        "Jon took a short trip last week to Rome"
    ]
    assert facts_of("Melanie", "We adopted a puppy named Oscar!") == ["Melanie adopted a puppy named Oscar"]


def test_questions_imperatives_and_other_peoples_doings_are_no_facts() -> None:
    assert facts_of("Tim", "Did you go to the concert?") == []
    assert facts_of("Tim", "Take care of yourself, you got this!") == []
    assert facts_of("Tim", "It was built in 1900 and they painted it blue.") == []


def test_captions_and_aggregates_point_back_to_every_source_message() -> None:
    rows = [
        _row(1, "Melanie", "I went camping with my kids.", [{"name": "a photo of a tent by a lake"}]),
        _row(2, "Melanie", "Yesterday I went to the museum."),
        _row(3, "Caroline", "Nice!"),
    ]
    assert captions(rows) == [(1, "Melanie shared a photo of a tent by a lake")]
    groups = dict((text, ids) for ids, text in aggregate_groups(rows))
    trips = next(t for t in groups if t.startswith("Melanie's trips and places visited:"))
    assert groups[trips] == [1, 2]
    assert "went camping with Melanie's kids" in trips
    assert groups["Melanie's photos: a tent by a lake"] == [1]


def test_facts_replace_drops_only_the_sentence_keys_that_state_a_fact() -> None:
    rows = [_row(7, "John", "The weather was lovely all week. I visited my aunt in Boston last weekend.")]
    assert sentence_keys_with_facts(rows) == ["7:1"]


def test_tagged_facts_carry_their_kinds_label_one_fact_a_key() -> None:
    rows = [_row(1, "Melanie", "I went camping with my kids. I signed up for a pottery class.")]
    assert tagged(rows) == [
        (1, "Melanie's trips and places visited: went camping with Melanie's kids"),
        (1, "Melanie's activities, hobbies and events: signed up for a pottery class"),
    ]
