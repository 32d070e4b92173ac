"""The people directory is read again in the background when it expires: no search waits for it."""

from __future__ import annotations

import threading
import time

from sqlalchemy import event

from app.core.search.people import PeopleDirectory
from tests.conftest import make_message


def test_an_expired_directory_answers_while_one_background_read_renews_it(services) -> None:
    services.memory.ingest([make_message(1, person="anna"), make_message(2, person="ben")])
    user = services.memory.user_id
    people = PeopleDirectory(services.db, ttl=0.0)  # expired at every call after the first read
    people.renew_delay = 0.0
    assert people.mentions(user, "what did anna say").persons == {"anna"}  # the first read waits
    services.memory.ingest([make_message(3, person="carl")])

    gate, reads = threading.Event(), []

    def held(conn, cursor, statement, parameters, context, executemany) -> None:
        if "GROUP BY" in statement and threading.current_thread().name == "strata-people":
            reads.append(statement)
            assert gate.wait(10)

    engine = services.db.read_engine
    event.listen(engine, "before_cursor_execute", held)
    try:
        # The read anew is held: every search meanwhile gets the expired directory at once, and
        # only one read is started.
        for _ in range(3):
            assert people.mentions(user, "did carl or ben call").persons == {"ben"}
        deadline = time.monotonic() + 10
        while not reads and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(reads) == 1 and people.background_reads == 0
        gate.set()
        while people.background_reads == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        gate.set()
        event.remove(engine, "before_cursor_execute", held)
    assert people.mentions(user, "did carl or ben call").persons == {"ben", "carl"}
