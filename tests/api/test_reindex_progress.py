"""The background keyword reindex's progress outside the CLI: `GET /api/stats` over real HTTP and
the MCP `memory_stats` tool carry the `keyword_reindex` object `strata stats --json` has."""

from __future__ import annotations

import json
import threading

import httpx
import pytest
from mcp import Client

from app.api.app import create_app
from app.api.server import BackgroundServer
from app.bootstrap import Services
from app.core.index.keyword_format import KeywordReindex
from app.core.index.message_kind import KEYWORD_FORMAT, keyword_body
from app.mcp.server import build_mcp_server
from tests.core.test_keyword_reindex import _old_format

TOKEN = "t" * 43


def _half_done(services: Services) -> None:
    """An archive from before the format stamp, its reindex stopped after one batch of 10."""
    _old_format(services)
    keywords = services.processor.corpus.keywords
    body = keyword_body
    job = KeywordReindex(services.db, services.clock, keywords, body, KEYWORD_FORMAT, batch=10, pause_s=0)  # type: ignore[arg-type]
    stop = threading.Event()
    assert job.run(stop=stop, progress=lambda done, total: stop.set()) == 10


def test_api_stats_shows_the_reindex_progress_and_its_end(services: Services) -> None:
    _half_done(services)
    with (
        BackgroundServer(create_app(services, token=TOKEN)) as server,
        httpx.Client(base_url=server.url + "/api", headers={"Authorization": f"Bearer {TOKEN}"}) as http,
    ):
        stats = http.get("/stats").json()
        assert stats["messages"] == 24  # the figures that were there stay
        assert stats["keyword_reindex"] == {
            "format": 0, "target": KEYWORD_FORMAT, "pending": True, "done": 10, "total": 24,
        }  # fmt: skip
        assert services.index.reindex_keywords() == 14
        done = http.get("/stats").json()["keyword_reindex"]
        assert done == {
            "format": KEYWORD_FORMAT, "target": KEYWORD_FORMAT, "pending": False, "done": 24, "total": 24,
        }  # fmt: skip


@pytest.mark.anyio
async def test_mcp_memory_stats_carries_the_same_object(services: Services) -> None:
    _half_done(services)
    async with Client(build_mcp_server(services, profile="full")) as client:
        result = await client.call_tool("memory_stats", {})
    assert not result.is_error, result.content
    stats = json.loads(result.content[0].text)
    assert stats["keyword_reindex"]["pending"] is True and stats["keyword_reindex"]["done"] == 10
    assert stats["messages"] == 24
