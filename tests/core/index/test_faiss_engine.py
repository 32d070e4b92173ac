"""`search.vector_engine = "faiss"` through the app: the index job builds it, searches use it past the
in-memory limit with the same answers, archiving and deletion count at once, idle release, repair."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.domain import SearchFilters
from app.core.index.filters import Filter
from app.core.search.message_query import MessageQuery, message_filter
from tests.conftest import make_message

pytest.importorskip("faiss")

WORDS = ["river", "mountain", "piano", "garden", "coffee", "winter"]
WORDS += ["rocket", "violin", "harbor", "lantern", "meadow", "tiger"]


def _messages(n: int) -> list:
    rng = np.random.default_rng(3)
    return [
        make_message(i, content=" ".join(rng.choice(WORDS, 4)), channel=f"c{i % 5}", person=f"p{i % 3}")
        for i in range(n)
    ]


@pytest.fixture
def faiss_services(services):
    ids = services.memory.ingest(_messages(400)).ids
    corpus = services.memory.searcher.corpus
    corpus.vector_engine = "faiss"
    corpus.max_cached_rows = 1  # past the in-memory limit: an index answers
    corpus._caches.clear()
    corpus.ann().min_rows = 300  # the size threshold, lowered
    services.index.maintain_vector_indexes()  # the index-vectors job's body
    return services, corpus, ids


def _leg(corpus, text: str, services, filters: SearchFilters = SearchFilters()) -> list[str]:
    vector = corpus.embedder.embed_query(text)
    where = message_filter(MessageQuery(text, filters, 10, services.memory.user_id))
    return [h.key for h in corpus.vector_leg(vector, 10, where)]


def test_the_job_builds_it_and_searches_agree_with_lancedb(faiss_services) -> None:
    services, corpus, _ = faiss_services
    leg = corpus.faiss()
    meta = leg.files.current()
    assert meta is not None and meta.rows == 400
    shown = services.index.vector_indexes()["message"]["faiss"]  # GET /api/index, doctor --json
    assert shown["rows"] == 400 and shown["unusable"] is None and shown["disk_bytes"] > 0
    assert (leg.files.directory.parent.name, leg.files.directory.parent.parent) == (
        "vectors.ivf",
        services.layout.root,
    )
    for text, filters in (
        ("piano garden", SearchFilters()),
        ("tiger winter", SearchFilters(channels=("c2",))),
    ):
        with_faiss = _leg(corpus, text, services, filters)
        assert leg.search(corpus.embedder.embed_query(text), 10, Filter()) is not None  # faiss answered
        corpus.vector_engine = "lancedb"
        with_lance = _leg(corpus, text, services, filters)
        whole_lance = [h.id for h in services.memory.search(text, filters, limit=5)]
        corpus.vector_engine = "faiss"
        assert with_faiss == with_lance  # every partition probed at this size: the exact order
        assert [h.id for h in services.memory.search(text, filters, limit=5)] == whole_lance


def test_archived_and_deleted_messages_leave_at_once_and_the_job_drops_their_codes(faiss_services) -> None:
    services, corpus, _ids = faiss_services
    text = "river mountain piano garden"
    top = _leg(corpus, text, services)
    corpus.set_columns([top[0]], {"archived": True})  # as forgetting archives it: in place
    assert top[0] not in _leg(corpus, text, services)
    assert top[0] in _leg(corpus, text, services, SearchFilters(include_archived=True))
    services.memory.delete(int(top[1]))
    assert top[1] not in _leg(corpus, text, services, SearchFilters(include_archived=True))
    # Its codes left the index files with the deletion itself, before any job run (privacy).
    files = corpus.faiss().files
    assert int(top[1]) not in set(files.keys(files.current()).tolist())
    assert len(list(files.directory.iterdir())) == 3  # one generation (index, keys) and current.json
    # New messages are found before the job adds them to the index.
    added = services.memory.ingest([make_message(900, content="zebra quartz nebula", channel="c1")]).ids
    found = _leg(corpus, "zebra quartz nebula", services)
    assert corpus.faiss().tail_rows() == 1 and str(added[0]) in found[:3]
    corpus.vector_engine = "lancedb"
    assert _leg(corpus, "zebra quartz nebula", services) == found
    corpus.vector_engine = "faiss"
    # The job adds new rows once there are enough of them (2 % of this index: 8); until then the
    # tail holds them.
    services.index.maintain_vector_indexes()
    assert int(added[0]) not in set(files.keys(files.current()).tolist())
    more = services.memory.ingest([make_message(901 + n, content=f"extra {n}") for n in range(8)]).ids
    services.index.maintain_vector_indexes()
    keys = set(files.keys(files.current()).tolist())
    assert int(top[1]) not in keys and {int(i) for i in (added[0], *more)} <= keys and len(keys) == 408
    corpus.faiss().reopen()
    assert _leg(corpus, "zebra quartz nebula", services) == found and corpus.faiss().tail_rows() == 0


def test_idle_release_unmaps_and_repair_rebuilds_a_corrupt_index(faiss_services) -> None:
    services, corpus, _ = faiss_services
    leg = corpus.faiss()
    before = _leg(corpus, "coffee harbor", services)
    assert leg._opened is not None
    services.index.release_idle(0.0)
    assert leg._opened is None
    assert _leg(corpus, "coffee harbor", services) == before  # mapped again by the next search
    meta = leg.files.current()
    (leg.files.directory / f"{meta.generation:06d}.keys.npy").write_bytes(b"garbage")
    leg.release()
    assert leg.search(corpus.embedder.embed_query("coffee harbor"), 10, Filter()) is None
    assert "could not be read" in services.index.vector_indexes()["message"]["faiss"]["unusable"]
    assert _leg(corpus, "coffee harbor", services) == before  # LanceDB answered meanwhile
    services.index.repair(full=True)  # what `strata doctor --repair` runs
    assert leg.files.current().built_at > meta.built_at
    assert leg.search(corpus.embedder.embed_query("coffee harbor"), 10, Filter()) is not None


def test_a_host_answers_a_deletion_before_rewriting_the_index_and_drops_the_codes_right_after(
    faiss_services,
) -> None:
    services, corpus, _ids = faiss_services
    text = "river mountain piano garden"
    gone = int(_leg(corpus, text, services)[0])
    erasure = services.memory.deletion.erasure
    assert erasure is not None
    erasure.start_background()  # what a host does when it schedules the index jobs
    files = corpus.faiss().files
    with erasure._running:  # the worker busy with an earlier deletion's compaction
        report = services.memory.deletion.delete([gone])
        # Answered without waiting for the worker: the codes are still in the files, and the
        # search already leaves the message out (re-scoring drops rows without a vector).
        assert report.to_dict()["vectorsErased"] is False
        assert gone in set(files.keys(files.current()).tolist())
        assert str(gone) not in _leg(corpus, text, services)
    assert erasure.wait(60.0)
    assert gone not in set(files.keys(files.current()).tolist())
    erasure.close()
