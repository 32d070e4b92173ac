"""Unified search judges documents without the people a query names, on the real local model:
the name says whose messages, and a page that only mentions the person ("Owner: Anna Keller")
is no answer to "What did anna say about lithium mining?"; the name's pull lifted it over the
floor (0.39 on the precision archive)."""

from __future__ import annotations

import pytest

from app.bootstrap import build_services
from app.core.domain import SearchFilters
from app.core.settings import EmbeddingSettings, Settings
from tests.conftest import make_message

pytestmark = pytest.mark.model

# Written for this test.
PLAN = (
    b"# Aurora Launch Plan\n\nOwner: Anna Keller (product). Last edit: 3 November.\n\n"
    b"## Owners\n\n- Product and launch coordination: Anna Keller\n- Mobile engineering: Ben Ortiz\n"
)


@pytest.fixture
def services(tmp_path):
    built = build_services(Settings(data_dir=tmp_path, embedding=EmbeddingSettings(provider="local")))
    built.memory.ingest(
        [
            make_message(0, person="anna", content="Plan doc is in the drive, read it before Thursday."),
            make_message(1, person="ben", content="Read it. The tablet layout worries me."),
        ]
    )
    built.knowledge.add_bytes(PLAN, "Aurora Launch Plan.md")
    yield built
    built.close()


def test_a_named_nonsense_query_finds_no_page_that_only_names_the_person(services) -> None:
    search = services.memory.search_outcome
    query = "What did anna say about lithium mining?"
    outcome = search(query, SearchFilters(), include=["documents"])
    assert outcome.understood.people == ("anna",) and outcome.hits == []
    found = search("anna launch plan owner", SearchFilters(), include=["documents"]).hits
    assert any(h.kind == "chunk" and "Anna Keller" in h.content for h in found)
    services.memory.authorless_sources.clear()  # as before: the name judged the page too
    assert search(query, SearchFilters(), include=["documents"]).hits
