"""`/api/search` over real HTTP with the exact copy's projected scan against the exact bound."""

from __future__ import annotations

import httpx

from app.api.app import create_app
from app.api.security import load_or_create_token
from app.api.server import BackgroundServer
from app.bootstrap import build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, SearchSettings, Settings
from tests.conftest import NOW_MS, make_message

TOPICS = (
    "hiking trip with my sister to the lakes",
    "press kit for the launch. Legal review is due Friday",
    "invoice from the plumber for the boiler",
    "pasta recipe with lemon and basil. My aunt sent it",
    "train tickets to Lyon for the conference",
    "the cat knocked the plant off the shelf again",
)
QUERIES = ("hiking sister", "press kit legal", "plumber invoice", "lemon pasta", "Lyon train", "cat plant")


def test_served_answers_with_the_projected_scan_match_the_exact_bound(tmp_path) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        embedding=EmbeddingSettings(provider="hashing"),
        search=SearchSettings(vector_rescore_rows=60),
    )
    services = build_services(settings, clock=FixedClock(NOW_MS), embedder=HashingEmbedder())
    searcher = services.memory.searcher
    assert searcher.keys is not None
    corpora = (searcher.corpus, searcher.keys)
    for corpus in corpora:  # project this small archive as a 20k+ one is (64-dim test vectors)
        corpus.project_min_rows, corpus.projected_dimensions = 1, 16
    services.memory.ingest(
        make_message(
            n,
            content=f"{TOPICS[n % len(TOPICS)]} note {n}",
            person=("anna", "ben", "carl", "dana", "emil")[n % 5],
            channel=("general", "family")[n % 2],
            timestamp=NOW_MS - (n + 1) * 600_000,
        )
        for n in range(1200)
    )
    services.memory.keys.wait()  # type: ignore[union-attr]
    token = load_or_create_token(services.layout.token_file)
    try:
        with (
            BackgroundServer(create_app(services)) as server,
            httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        ):
            answers: dict[int, list[list[tuple[str, float]]]] = {}
            for rows in (60, 0):  # the projected scan (max(60, 13 per hit asked) rows), the bound
                for corpus in corpora:
                    corpus.rescore_rows = rows
                answers[rows] = []
                for query in QUERIES:
                    for params in ({"q": query}, {"q": query, "person": "anna", "limit": 5}):
                        response = http.get(f"{server.url}/api/search", params=params)
                        assert response.status_code == 200, response.text
                        hits = response.json()["hits"]
                        assert hits, params
                        answers[rows].append([(h["id"], round(h["score"], 6)) for h in hits])
            assert answers[60] == answers[0]
        for corpus in corpora:  # both copies were searched projected, fewer rows than they hold
            view = corpus.matrix()._rows.view()  # type: ignore[union-attr]
            assert view.projection is not None and len(view.keys) > 13 * 30
    finally:
        services.close()
