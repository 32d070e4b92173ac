"""`/api/search` over real HTTP through the projected scan's int8 first pass, against the exact bound."""

from __future__ import annotations

import httpx

from app.api.app import create_app
from app.api.security import load_or_create_token
from app.api.server import BackgroundServer
from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, SearchSettings, Settings
from app.core.storage import int8_scan
from tests.api.test_search_rescore import QUERIES, TOPICS
from tests.conftest import NOW_MS, make_message

ROWS = 392  # a whole number of BLAS's groups of four, above the 13 per hit of a 30-row pool


def test_served_answers_through_the_int8_pass_match_the_exact_bound(tmp_path) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        embedding=EmbeddingSettings(provider="hashing"),
        search=SearchSettings(vector_rescore_rows=ROWS),
    )
    services = build_services(settings, clock=FixedClock(NOW_MS), embedder=HashingEmbedder())
    searcher = services.memory.searcher
    corpus = searcher.corpus
    corpus.project_min_rows, corpus.projected_dimensions = 1, 16  # projected, as a 20k+ archive
    # More messages than the codes' pool (3 x 392), so the first pass runs on every search.
    n = int8_scan.POOL_PER_ROW * ROWS + 300
    services.memory.ingest(
        make_message(
            i,
            content=f"{TOPICS[i % len(TOPICS)]} note {i}",
            person=("anna", "ben", "carl", "dana", "emil")[i % 5],
            channel=("general", "family")[i % 2],
            timestamp=NOW_MS - (i + 1) * 600_000,
        )
        for i in range(n)
    )
    token = load_or_create_token(services.layout.token_file)
    try:
        with (
            BackgroundServer(create_app(services)) as server,
            httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        ):
            answers: dict[int, list[bytes]] = {}
            for rows in (ROWS, 0):  # the int8 pass and the projected scan, then the exact bound
                corpus.rescore_rows = rows
                answers[rows] = []
                for query in QUERIES:
                    response = http.get(f"{server.url}/api/search", params={"q": query})
                    assert response.status_code == 200 and response.json()["hits"], response.text
                    answers[rows].append(response.content)
            assert answers[ROWS] == answers[0]  # the same JSON bytes
        rows_view = corpus.matrix()._rows  # type: ignore[union-attr]
        assert rows_view is not None and rows_view.codes is not None and rows_view.size == n
    finally:
        services.close()
