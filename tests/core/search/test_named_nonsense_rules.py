"""Partial matches that are coincidences, not answers: a pronoun as a word ending ("mine" for
"mining"), one word of the query with none of its meaning ("taxing" for "tax audit"), and one
word of the query in a photo caption (tests/benchmarks/bench_named_nonsense.py has the figures)."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from app.core.domain import Attachment
from app.core.search.attachment_words import floor_texts
from app.core.search.ranking import attachment_names
from app.core.search.relevance import Evidence, RelevanceModel
from app.core.search.word_match import TermMatcher
from tests.conftest import make_message


def test_a_pronoun_is_never_a_word_ending_of_a_query_word() -> None:
    assert TermMatcher(["min"]).found("a passion of mine") == set()  # "mining" stems to "min"
    assert TermMatcher(["min"]).found("they were mining copper") == {"min"}
    assert TermMatcher(["mine"]).found("the old gold mine") == {"mine"}  # asked for: found
    assert TermMatcher(["polic", "paint"]).found("the policies; painted") == {"polic", "paint"}


def test_one_word_of_the_query_without_its_meaning_stays_under_the_floor() -> None:
    taxing = "I understand, Joanna. Big projects can be so taxing."
    before = RelevanceModel().for_query("tax audit", best_bm25=4.0)
    after = RelevanceModel(partial_support=0.05).for_query("tax audit", best_bm25=4.0)
    alone = Evidence(cosine=0.10, bm25=4.0, text=taxing)
    assert before.relevance(alone) >= 0.30 > after.relevance(alone)  # the floor (0.30)
    # With the vector leg's support, or holding every word, a match counts as before.
    supported = Evidence(cosine=0.30, bm25=4.0, text="the tax office wrote again")
    assert after.relevance(supported) == before.relevance(supported) >= 0.30
    full = Evidence(cosine=0.05, bm25=4.0, text="the tax audit starts monday")
    assert after.relevance(full) == before.relevance(full) >= 0.70


def _row(content: str, caption: str | None) -> SimpleNamespace:
    attachments = [{"name": caption}] if caption else []
    return SimpleNamespace(content=content, person="maria", attachments=attachments)


def test_a_caption_counts_for_the_floor_only_when_it_completes_the_match() -> None:
    rows = {
        "ticket": _row("Always good to hear! See you later!", "a photo of a cinema ticket on a chair"),
        "deck": _row("here you go", "Quarterly-forecast-deck.pdf"),
        "plain": _row("opera night was great", None),
    }
    texts = {k: f"{r.content} {attachment_names(r.attachments)} {r.person}" for k, r in rows.items()}
    judged = floor_texts(texts, rows, RelevanceModel().for_query("opera tickets", 0.0), attachment_names)
    assert judged["ticket"] == "Always good to hear! See you later! maria"  # one word of two: left out
    assert judged["plain"] == texts["plain"]
    judged = floor_texts(texts, rows, RelevanceModel().for_query("forecast deck", 0.0), attachment_names)
    assert judged["deck"] == texts["deck"]  # every word: real evidence


def test_named_nonsense_through_search_finds_nothing_and_the_caption_still_finds_its_photo(services) -> None:
    ticket = Attachment(name="a photo of a cinema ticket on a chair", url=None, content_type="image/jpeg")
    batch = [
        make_message(0, person="Maria", content="Always good to hear! See you later!", attachments=(ticket,)),
        make_message(1, person="Maria", content="Big projects can be so taxing, honestly."),
        make_message(2, person="Maria", content="Writing has always been a passion of mine."),
        make_message(3, person="Tom", content="The garden needs water before the weekend."),
    ]
    services.memory.ingest(batch)
    for query in (
        "What did Maria say about opera tickets?",
        "tax audit Maria",
        "Did Maria mention lithium mining?",
    ):
        assert services.memory.search(query) == [], query
    found = services.memory.search("cinema ticket Maria")
    assert found and found[0].content == "Always good to hear! See you later!"
    # The stricter caption rule (a setting: on LoCoMo captions carry answers) keeps a full match.
    searcher = services.memory.searcher
    searcher.config = replace(searcher.config, floor_partial_captions=False)
    assert services.memory.search("What did Maria say about opera tickets?") == []
    assert services.memory.search("cinema ticket Maria")
