"""Instance evidence for list questions: the asked-for noun, singular forms, the word matcher."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.search.instances import INSTANCE_MIN, MAX_WORDS, InstanceMatcher, instance_relevance, singular
from app.core.search.questions import asked_category
from app.core.search.relevance import RelevanceModel


@pytest.mark.parametrize(
    ("query", "noun"),
    [
        ("Which cities has John been to?", "cities"),
        ("What European countries has Maria been to?", "countries"),
        ("How many dogs has Maria adopted?", "dogs"),
        ("How many European cities has he seen?", "cities"),
        ("What musical artists/bands has Melanie seen?", "bands"),
        ("How many children does Melanie have?", "children"),
        ("How many of Joanna's scripts have made it?", None),
        ("How many times has Anna been to the dentist?", None),  # counts, asks for no kind
        ("What things has Nate recommended?", None),
        ("What do Jon and Gina both like?", None),
        ("What did Caroline research?", None),
    ],
)
def test_the_asked_for_noun(query: str, noun: str | None) -> None:
    assert asked_category(query) == noun


@pytest.mark.parametrize(
    ("plural", "one"),
    [("cities", "city"), ("countries", "country"), ("dishes", "dish"), ("pets", "pet"), ("classes", "class")],
)
def test_singular(plural: str, one: str) -> None:
    assert singular(plural) == one


class _Words:
    """A tiny embedder with known word vectors: "chicago" sits near "city", the rest away."""

    model_id = "test-words"
    dimensions = 3

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed_documents(self, texts):
        self.calls.append(list(texts))
        table = {"city": [1.0, 0.0, 0.0], "chicago": [0.8, 0.6, 0.0]}
        rows = [table.get(t, [0.0, 0.0, 1.0]) for t in texts]
        return np.asarray(rows, dtype=np.float32)

    def embed_query(self, text):
        return self.embed_documents([text])[0]


def test_the_closest_word_of_each_text_skipping_names_and_the_noun_itself() -> None:
    embedder = _Words()
    matcher = InstanceMatcher(embedder)
    found = matcher.closest(
        "cities", {"a": "Drove up to Chicago", "b": "John loves this city", "c": "the kitchen"}, skip=["John"]
    )
    assert found["a"] == (pytest.approx(0.8), "chicago")
    assert "b" not in found or found["b"][0] < 0.5  # "city" itself and the name are left out
    assert found["c"][0] == pytest.approx(0.0)
    # Word vectors are cached: asking again embeds nothing new.
    calls = len(embedder.calls)
    matcher.closest("cities", {"a": "Drove up to Chicago"})
    assert len(embedder.calls) == calls


def test_the_words_judged_per_question_are_bounded() -> None:
    embedder = _Words()
    texts = {str(i): " ".join(f"word{i}x{j}" for j in range(10)).replace("0", "o") for i in range(20)}
    InstanceMatcher(embedder).closest("cities", texts)
    assert sum(len(c) for c in embedder.calls) <= MAX_WORDS + 1  # + the noun


def test_instance_relevance_is_zero_under_the_threshold_and_a_vector_hit_above() -> None:
    model = RelevanceModel()
    raw_min = model.cosine_low + INSTANCE_MIN * (model.cosine_high - model.cosine_low)
    assert instance_relevance(raw_min - 0.02, model) == 0.0
    assert instance_relevance(0.66, model) == pytest.approx(model.semantic_weight * (0.66 - 0.15) / 0.55)
    assert instance_relevance(0.9, model) == pytest.approx(model.semantic_weight)
