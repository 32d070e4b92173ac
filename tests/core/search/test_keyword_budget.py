"""Bounded BM25: exact when the matches fit the budget, rare terms kept, common ones conjoined."""

from sqlalchemy import text

from app.bootstrap import Services
from app.core.storage.keyword import KeywordIndex
from app.core.storage.keyword_budget import (
    FrequencyCache,
    bounded_expression,
    document_frequencies,
    table_size,
)
from tests.conftest import make_message


def test_everything_fits_gives_the_plain_or_query() -> None:
    assert bounded_expression(["deploy", "kai"], [30, 5], budget=100) == '"deploy" OR "kai"'


def test_terms_no_row_contains_are_dropped() -> None:
    assert bounded_expression(["deploy", "zzz"], [30, 0], budget=100) == '"deploy"'
    assert bounded_expression(["zzz"], [0], budget=100) is None


def test_rows_need_a_rare_term_or_every_common_one() -> None:
    expr = bounded_expression(["team", "kai", "update", "deploy"], [150, 10, 120, 30], budget=200)
    everything = '"team" OR "kai" OR "update" OR "deploy"'
    partial = '(("update" OR "team") NOT ("update" AND "team"))'
    assert expr == f'({everything}) NOT ({partial} NOT "kai" NOT "deploy")'


def test_a_lone_common_term_only_scores_rows_with_rare_ones() -> None:
    expr = bounded_expression(["kai", "team"], [10, 195], budget=200)
    assert expr == '("kai" OR "team") NOT (("team") NOT "kai")'


def test_terms_in_more_rows_than_the_budget_give_way_to_rarer_ones() -> None:
    assert bounded_expression(["kai", "team", "update"], [10, 900, 250], budget=200) == '"kai"'
    assert bounded_expression(["a1", "b2", "c3"], [900, 150, 120], budget=200) == '"b2" AND "c3"'


def test_a_single_very_common_term_is_left_to_the_window() -> None:
    assert bounded_expression(["team"], [900], budget=200) == '"team"'


def test_only_common_terms_must_all_occur() -> None:
    assert bounded_expression(["a1", "b2"], [150, 120], budget=200) == '"a1" AND "b2"'


def test_rare_terms_take_at_most_half_the_budget() -> None:
    expr = bounded_expression(["x", "y", "z"], [60, 60, 150], budget=200)
    assert expr is not None and expr.endswith('NOT "x")')


def test_document_frequencies_count_rows_with_porter_stems(services: Services) -> None:
    services.memory.ingest(
        [
            make_message(1, content="we deployed the fix"),
            make_message(2, content="deploy again tomorrow"),
            make_message(3, content="lunch?"),
        ]
    )
    with services.db.read() as session:
        assert document_frequencies(session, "messages_fts", ["deploying", "lunch", "nothing"]) == [2, 1, 0]


def test_the_window_scores_only_the_newest_matches(services: Services) -> None:
    services.memory.ingest([make_message(i, content=f"status report number {i}") for i in range(1, 31)])
    keywords = KeywordIndex()
    with services.db.read() as session:
        every = keywords.search_messages(session, "status", 50)
        bounded = keywords.search_messages(session, "status", 50, row_budget=10)
    assert len(every) == 30
    newest = sorted((int(h.ref) for h in every), reverse=True)[:10]
    assert sorted(int(h.ref) for h in bounded) == sorted(newest)


def test_bounded_scores_equal_the_full_query_scores(services: Services) -> None:
    # team in 30 rows, update and kai in 12 each: no term above the budget, their sum above it.
    def body(i: int) -> str:
        return ("team " if i % 2 == 0 else "") + ("update kai " if i % 5 == 0 else "") + f"n{i}"

    rows = [make_message(i, content=body(i)) for i in range(1, 61)]
    services.memory.ingest(rows)
    keywords = KeywordIndex()
    with services.db.read() as session:
        full = {h.ref: h.score for h in keywords.search_messages(session, "team update kai", 100)}
        bounded = keywords.search_messages(session, "team update kai", 100, row_budget=50)
    assert bounded and len(bounded) < len(full)
    for hit in bounded:
        assert abs(hit.score - full[hit.ref]) < 1e-9


def test_a_rare_word_is_found_among_very_common_ones(services: Services) -> None:
    common = [make_message(i, content=f"team update {i}") for i in range(1, 41)]
    services.memory.ingest([*common, make_message(99, content="zanzibar offsite booked")])
    with services.db.read() as session:
        hits = KeywordIndex().search_messages(session, "team update zanzibar", 5, row_budget=20)
        top = session.execute(text("SELECT content FROM raw_messages WHERE id = :i"), {"i": int(hits[0].ref)})
        assert top.scalar_one() == "zanzibar offsite booked"


def test_frequencies_are_recounted_only_after_the_table_grows(services: Services) -> None:
    services.memory.ingest([make_message(i, content=f"standup notes {i}") for i in range(1, 21)])
    cache = FrequencyCache(tolerance=0.5)
    with services.db.read() as session:
        first = table_size(session, "messages_fts")
        assert cache.frequencies(session, "messages_fts", ["standup"], first) == [20]
    services.memory.ingest([make_message(i, content=f"standup again {i}") for i in range(21, 26)])
    with services.db.read() as session:
        size = table_size(session, "messages_fts")
        assert size == 25
        assert cache.frequencies(session, "messages_fts", ["standup"], size) == [20]  # within 50 %
    services.memory.ingest([make_message(i, content=f"standup later {i}") for i in range(26, 41)])
    with services.db.read() as session:
        size = table_size(session, "messages_fts")
        assert cache.frequencies(session, "messages_fts", ["standup", "later"], size) == [40, 15]
