"""The benchmarks' bulk-built archive is an ordinary data dir: nothing to repair, searchable."""

import pytest

from app.bootstrap import Services
from tests.benchmarks import locomo_corpus, scale_corpus


@pytest.mark.skipif(not locomo_corpus.available(), reason="needs ../shared/data (LoCoMo)")
def test_bulk_build_writes_what_the_ingest_path_would(services: Services) -> None:
    pool = services.embedder.embed_documents(["a first text", "another text", "a third one"])
    scale_corpus.build(services, 1200, pool, batch=500, progress=lambda line: None)
    reports = {r.kind: r for r in services.index.verify(full=True)}
    message = reports["message"]
    assert (message.rows, message.vectors) == (1200, 1200)
    assert message.missing == message.stale == message.orphans == message.keyword_missing == 0
    assert services.memory.search("dinner", limit=3, loose=True)


@pytest.mark.skipif(not locomo_corpus.available(), reason="needs ../shared/data (LoCoMo)")
def test_recycled_keys_are_what_the_key_backlog_would_write(services: Services) -> None:
    """`build_keys` keys the first share of the messages as the repair job would have by then:
    stamped, no orphan or stale key, the rest still pending; a second call adds nothing."""
    pool = services.embedder.embed_documents(["a first text", "another text", "a third one"])
    scale_corpus.build(services, 1200, pool, batch=500, progress=lambda line: None)
    keys = services.memory.keys
    assert keys is not None
    keyed, written, _ = scale_corpus.build_keys(services, 0.25, pool, batch=100, progress=lambda line: None)
    assert keyed == 300 and written > 0
    assert keys.backlog.pending() == 900
    report = next(r for r in services.index.verify(full=True) if r.kind == "message_key")
    assert report.vectors == written and report.orphans == report.stale == 0
    assert scale_corpus.build_keys(services, 0.25, pool, progress=lambda line: None)[:2] == (0, 0)
    assert keys.corpus.collection.count() == written
