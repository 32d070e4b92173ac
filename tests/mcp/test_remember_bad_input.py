"""MCP `remember` through the SDK client with text no one can store: a clear tool error, nothing stored.

The SDK validates arguments from the raw JSON, where a lone surrogate (`\\ud800`) is not a valid
string: the call is refused naming the argument (REST and the importers repair it instead, since
they parse JSON first; see tests/api/test_trust_api.py)."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from app.mcp.server import build_mcp_server


@pytest.mark.anyio
async def test_remember_with_a_lone_surrogate_is_refused_clearly_and_good_notes_still_work(services):
    before = services.memory.stats()["messages"]
    async with Client(build_mcp_server(services)) as client:
        bad = await client.call_tool("remember", {"text": "call the dentist \ud800 on Friday"})
        assert bad.is_error and "text" in bad.content[0].text and "string" in bad.content[0].text
        assert services.memory.stats()["messages"] == before
        good = await client.call_tool("remember", {"text": "call the dentist 😀 on Friday"})
        assert not good.is_error, good.content
        record = services.memory.get(json.loads(good.content[0].text)["id"])
        assert record.content == "call the dentist 😀 on Friday"


def test_remember_repairs_surrogates_from_python_callers(services):
    """The service itself (used by the UI and CLI) repairs the text before hashing it into an id."""
    first = services.memory.remember("half an emoji \ud83d here")
    again = services.memory.remember("half an emoji \ud83d here")
    assert first.content == "half an emoji \ufffd here" and again.id == first.id
