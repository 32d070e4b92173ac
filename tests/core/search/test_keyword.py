"""FTS5 keyword index: BM25, hostile query text, CJK without spaces."""

from app.bootstrap import Services
from app.core.storage.keyword import index_text, match_expression, query_terms
from tests.conftest import make_message


def test_cjk_is_split_into_bigrams() -> None:
    assert query_terms("部署计划") == ["部署", "署计", "计划"]
    assert "部 署" in index_text("部署")


def test_fts_syntax_in_queries_is_neutralized() -> None:
    expr = match_expression('NEAR("x") AND col:* "unterminated')
    assert expr is not None and expr.count('"') % 2 == 0


def test_stopword_only_query_still_searches() -> None:
    assert query_terms("what is the") == ["what", "is", "the"]


def test_keyword_search_finds_cjk_and_japanese(services: Services) -> None:
    services.memory.ingest(
        [
            make_message(1, content="明天我们讨论部署计划"),
            make_message(2, content="今日は会議があります"),
            make_message(3, content="the deploy plan is ready"),
        ]
    )
    assert [h.content for h in services.memory.search("部署", limit=1)] == ["明天我们讨论部署计划"]
    assert [h.content for h in services.memory.search("会議", limit=1)] == ["今日は会議があります"]


def test_punctuation_heavy_query_does_not_crash(services: Services) -> None:
    services.memory.ingest([make_message(1, content="ticket ABC-123 is done")])
    hits = services.memory.search('ABC-123 (done) OR "*"', limit=3)
    assert hits and hits[0].content == "ticket ABC-123 is done"
