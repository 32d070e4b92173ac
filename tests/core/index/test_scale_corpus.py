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
