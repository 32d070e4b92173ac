"""The repair's quick check counts rows instead of reading every key while the counts agree."""

from __future__ import annotations

from app.core.index import maintenance
from app.core.storage.messages import vector_key
from tests.conftest import make_message


class _Spy:
    """The message source, noting whether the quick check read every key."""

    def __init__(self, source) -> None:
        self.source = source
        self.read_keys = False

    def __getattr__(self, name: str):
        return getattr(self.source, name)

    def keys(self, session):
        self.read_keys = True
        return self.source.keys(session)


def test_quick_check_trusts_agreeing_counts_and_reads_keys_when_they_differ(services) -> None:
    services.memory.ingest(make_message(i) for i in range(12))
    corpus, db = services.processor.corpus, services.db
    spy = _Spy(services.processor.source)
    drift = maintenance.find_drift(db, corpus, spy, full=False)
    assert not spy.read_keys
    assert (drift.rows, drift.vectors, drift.missing, drift.orphans, drift.keyword_missing) == (
        12,
        12,
        [],
        [],
        [],
    )

    corpus.remove_vectors([vector_key(3)])  # a vector lost: the counts differ, the keys tell which
    drift = maintenance.find_drift(db, corpus, spy, full=False)
    assert spy.read_keys and drift.missing == ["3"]

    spy.read_keys = False
    with db.read() as session:
        corpus.embed(services.processor.source.documents(session, ["3"]))
    with db.write() as session:
        corpus.unindex_text(session, ["5"])  # a keyword entry lost
    drift = maintenance.find_drift(db, corpus, spy, full=False)
    assert spy.read_keys and drift.keyword_missing == ["5"] and drift.missing == []
