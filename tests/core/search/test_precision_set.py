"""The precision benchmark's data stays consistent: every expected answer exists, exactly once."""

from __future__ import annotations

from tests.benchmarks.bench_precision import DATA, load_messages, load_queries


def test_every_expected_answer_names_exactly_one_message_or_an_existing_document() -> None:
    messages = load_messages()
    documents = {p.name: p.read_text("utf-8").lower() for p in (DATA / "documents").iterdir()}
    queries = load_queries()
    assert len(queries) >= 100 and sum(q.expect is None for q in queries) >= 30
    for query in queries:
        for expect in (query.expect, *query.also) if query.expect else ():
            phrase = expect.get("contains", "").lower()
            if "document" in expect:
                assert phrase in documents[expect["document"]], query.text
            else:
                matches = [
                    m for m in messages if m.channel == expect["channel"] and phrase in m.content.lower()
                ]
                assert len(matches) == 1, (query.text, [m.content for m in matches])
