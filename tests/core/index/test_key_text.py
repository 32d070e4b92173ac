"""Sentence keys of a message: split into sentences, told in the third person, tiny ones left out."""

from __future__ import annotations

from app.core.index.key_text import MAX_KEYS, message_keys, sentences, third_person


def test_sentences_split_at_end_marks_and_line_breaks() -> None:
    text = 'It was great! We went to "Chicago." Then home…\nNext week: Seattle?  Maybe.'
    expected = ["It was great!", 'We went to "Chicago."', "Then home…", "Next week: Seattle?", "Maybe."]
    assert sentences(text) == expected


def test_decimal_points_and_abbreviations_without_space_do_not_split() -> None:
    assert sentences("Version 2.5 shipped at 3.30pm today") == ["Version 2.5 shipped at 3.30pm today"]


def test_third_person_replaces_the_writers_first_person_words() -> None:
    said = third_person("I'm sure my team won, I've seen it", "John")
    assert said == "John is sure John's team won, John has seen it"
    said = third_person("Call me when I’ll be back, it's mine", "Ana")
    assert said == "Call Ana when Ana will be back, it's Ana's"
    # Words that merely contain "i" or "my" are left alone.
    assert third_person("Mymy idea is mild", "Ana") == "Mymy idea is mild"


def test_a_message_of_one_sentence_has_no_extra_key() -> None:
    assert message_keys("John", "I was in Chicago, it was awesome and so full of energy!") == []


def test_each_sentence_with_enough_content_becomes_a_key() -> None:
    keys = message_keys(
        "John",
        "Thanks! It's Seattle, I'm stoked for my game there next month. "
        "It's one of my favorite cities to explore - super vibrant!",
    )
    assert keys == [
        "It's Seattle, John is stoked for John's game there next month.",
        "It's one of John's favorite cities to explore - super vibrant!",
    ]


def test_keys_are_capped_and_deduplicated() -> None:
    text = " ".join(f"Sentence number {n} talks about topic {n}." for n in range(40))
    assert len(message_keys("Ana", text)) == MAX_KEYS
    assert message_keys("Ana", "Pizza tastes great in Naples. Pizza tastes great in Naples.") == [
        "Pizza tastes great in Naples."
    ]


def test_no_writer_or_no_text() -> None:
    assert message_keys(None, None) == []
    assert message_keys("", "I went home early today. My grey cat was waiting by the door.") == [
        "I went home early today.",
        "My grey cat was waiting by the door.",
    ]
