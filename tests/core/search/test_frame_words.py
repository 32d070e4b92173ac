"""A query's question frame ("what did … say about", "has … got", "ever mention") is no evidence."""

from __future__ import annotations

from app.core.search.query_words import FRAME_WORDS, informative, without_frame
from app.core.search.relevance import Evidence, RelevanceModel


def test_frame_words_are_dropped_unless_nothing_else_is_left() -> None:
    assert informative(["say", "zzqxv"]) == ["zzqxv"]
    assert informative(["got", "mention", "tickets"]) == ["tickets"]
    assert informative(["say"]) == ["say"]  # "what did she say?" still looks for "say"
    assert not {"like", "feel", "think", "get", "type"} & FRAME_WORDS  # usually what is asked about


def test_a_greeting_holding_say_is_no_match_for_a_word_nobody_wrote() -> None:
    model = RelevanceModel()
    scorer = model.for_query("What did Caroline say about zzqxv?", best_bm25=9.0)
    assert scorer.terms == ["caroline", "zzqxv"]
    assert scorer.coverage("Hey Melanie! Just wanted to say hi!") == (0.0, False)
    before = RelevanceModel(frame_words=False).for_query("What did say about zzqxv?", best_bm25=9.0)
    after = model.for_query("What did say about zzqxv?", best_bm25=9.0)
    evidence = Evidence(cosine=0.19, bm25=9.0, text="Hey Melanie! Just wanted to say hi!")
    assert before.relevance(evidence) >= 0.30 > after.relevance(evidence)  # the floor (0.30)


def test_a_real_question_keeps_its_words() -> None:
    scorer = RelevanceModel().for_query("What did Maria say about the pottery class?", best_bm25=5.0)
    coverage, phrase = scorer.coverage("I started a pottery class on Tuesdays")
    assert scorer.terms == ["maria", "potter", "clas"]  # stemmed
    assert scorer.coverage("Maria: I started a pottery class on Tuesdays")[0] == 1.0
    assert coverage == 2 / 3 and not phrase


def test_the_floor_text_loses_the_frame_and_keeps_the_rest() -> None:
    assert without_frame("Which blorfs has got?") == "Which blorfs has"
    assert without_frame("Did ever mention the penguin migration?") == "Did the penguin migration?"
    assert without_frame("say?") == "say?"  # nothing else: the query itself
