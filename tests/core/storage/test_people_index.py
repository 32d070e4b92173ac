"""The people directory and the search facets group messages over a covering index, not the table."""

from __future__ import annotations

from sqlalchemy import event

from tests.conftest import make_message

# The people index, or the conversation turns index (`opt16_0001`), which covers the facets'
# (platform, channel) groups as well; SQLite picks either.
INDEX = "ix_raw_messages_user_platform_channel_"


def test_people_and_facet_queries_read_only_the_covering_index(services) -> None:
    services.memory.ingest(
        make_message(i, channel=f"c{i % 3}", person=["anna", "ben", ""][i % 3]) for i in range(30)
    )
    grouped: list[tuple[str, object]] = []

    def capture(conn, cursor, statement, parameters, context, executemany) -> None:
        if "GROUP BY" in statement and "raw_messages" in statement:
            grouped.append((statement, parameters))

    engine = services.db.read_engine
    event.listen(engine, "before_cursor_execute", capture)
    try:
        facets = services.memory.facets()
        mentions = services.memory.searcher.people.mentions(services.memory.user_id, "what did anna say")
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    assert {p for p, _ in facets.people} == {"anna", "ben"} and mentions.persons == {"anna"}
    assert len(grouped) == 4  # people, channels and platforms facets; the people directory
    with services.db.read() as session:
        for statement, parameters in grouped:
            plan = session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters).all()
            steps = " ".join(str(row[-1]) for row in plan)
            assert f"COVERING INDEX {INDEX}" in steps, (statement, steps)
