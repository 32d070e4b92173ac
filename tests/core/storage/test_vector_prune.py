"""Old vector-table versions go once no reader can need them: disk drops, readers keep answering."""

import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta

import numpy as np

from app.bootstrap import Services
from app.core.index.ann import AnnIndex
from app.core.storage import vector_prune
from app.core.storage.vectors import VectorStore
from tests.conftest import make_message

# Another process reading the same files, as `serve` or a search worker beside the app: it opens
# the collection, then answers one search for each line it is sent.
READER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from app.core.storage.vectors import VectorStore
    collection = VectorStore(__import__("pathlib").Path(sys.argv[1])).collection("t", "m", 32, ("user_id",))
    for line in sys.stdin:
        query = np.array([float(x) for x in line.split()], dtype=np.float32)
        print(collection.search(query, 1, nprobes=8, refine_factor=10)[0].key, flush=True)
    """
)


def _vectors(n: int) -> np.ndarray:
    rng = np.random.default_rng(11)
    centres = rng.normal(size=(30, 32))
    vectors = centres[rng.integers(0, 30, n)] + rng.normal(0, 0.4, size=(n, 32))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def _index_bytes(path) -> int:
    return sum(f.stat().st_size for f in (path / "_indices").rglob("*") if f.is_file())


def test_cutoff_keeps_every_version_replaced_less_than_the_margin_ago() -> None:
    base = datetime(2026, 1, 1, tzinfo=UTC)
    at = lambda s: {"timestamp": base + timedelta(seconds=s)}  # noqa: E731
    margin, settle = timedelta(seconds=600), timedelta(seconds=5)
    versions = [at(0), at(100), at(102), at(900)]
    # At 700 s only the version of 0 s was replaced (at 100 s) 600 s ago: it alone may go.
    assert vector_prune.cutoff(versions, base + timedelta(seconds=700), margin, settle) == base + timedelta(
        seconds=95
    )
    # At 703 s the version of 100 s is old enough too, but the one of 102 s (replaced at 900 s)
    # is not, and 100 s lies within `settle` of it: it waits for a later prune.
    assert vector_prune.cutoff(versions, base + timedelta(seconds=703), margin, settle) == base + timedelta(
        seconds=97
    )
    # At 1,500 s the latest is 600 s old, so nothing was written since: every other version may go.
    idle = base + timedelta(seconds=1500)
    assert vector_prune.cutoff(versions, idle, margin, settle) == idle
    assert vector_prune.cutoff(versions, base + timedelta(seconds=599), margin, settle) is None
    assert vector_prune.cutoff([at(0)], base + timedelta(days=9), margin, settle) is None  # only the latest
    naive = [{"timestamp": datetime(2026, 1, 1) + timedelta(seconds=s)} for s in (0, 100)]  # as LanceDB gives
    assert vector_prune.cutoff(naive, datetime.now(UTC), margin, settle) is not None


def test_a_replaced_index_goes_after_the_margin_and_a_reader_of_another_process_still_answers(
    tmp_path,
) -> None:
    vectors = _vectors(4000)
    collection = VectorStore(tmp_path / "v").collection("t", "m", 32, ("user_id",))
    collection.upsert([f"k{i}" for i in range(4000)], vectors, [{"user_id": "u"}] * 4000)
    ann = AnnIndex(collection, min_rows=1000)
    assert ann.maintain().action == "build"
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(tmp_path / "v")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:

        def ask(i: int) -> str:
            assert reader.stdin is not None and reader.stdout is not None
            reader.stdin.write(" ".join(map(str, vectors[i])) + "\n")
            reader.stdin.flush()
            return reader.stdout.readline().strip()

        assert ask(7) == "k7"  # opened and read before the swap
        before_swap = collection.table.version
        one_index = _index_bytes(collection.path)
        ann.build()  # the background job's retrain: a new index replaces the old one
        assert _index_bytes(collection.path) > 1.8 * one_index  # the old one waits on disk

        # Within the margin nothing goes: a read pinned to the old version still works.
        assert vector_prune.prune(collection) is None
        pinned = VectorStore(tmp_path / "v").collection("t", "m", 32, ("user_id",)).table
        pinned.checkout(before_swap)
        assert pinned.search(vectors[3]).limit(1).to_list()[0]["key"] == "k3"

        # Once the margin has passed (here: none), the old versions and their files go.
        report = vector_prune.prune(collection, margin=timedelta(0), settle=timedelta(0))
        assert report is not None and report.versions_after == 1 < report.versions_before
        assert report.bytes_freed > 0.8 * one_index
        assert _index_bytes(collection.path) < 1.2 * one_index
        assert vector_prune.prune(collection, margin=timedelta(0), settle=timedelta(0)) is None
        # The other process, opened before the swap, sees the latest version at its next read.
        assert ask(11) == "k11"
        assert collection.search(vectors[12], 1, nprobes=8, refine_factor=10)[0].key == "k12"
        assert collection.count() == 4000
    finally:
        if reader.stdin is not None:
            reader.stdin.close()
        reader.wait(timeout=30)


def test_the_background_job_drops_a_replaced_index_at_the_next_refresh(services: Services) -> None:
    """A fresh index is left as built (LanceDB's first optimize after a build rewrites it into a
    slower one); the refresh that optimizes it anyway is when the replaced versions go."""
    corpus = services.processor.corpus
    corpus.max_cached_rows = 100  # as if this were a million messages
    ann = corpus.ann()
    ann.min_rows, ann.refresh_unindexed_rows = 300, 20
    services.memory.ingest([make_message(i, content=f"topic {i % 9} note {i} report") for i in range(400)])
    assert services.index.maintain_vector_indexes()["messages"].action == "build"
    ann.build()  # trained anew, as `plan` asks after many refreshes
    path = corpus.collection.path
    held = _index_bytes(path)
    services.index.run_vector_index_job()
    assert services.index.prune_vector_versions() == {}  # replaced just now: kept for readers
    services.index.prune_margin, services.index.prune_settle = timedelta(0), timedelta(0)
    assert services.index.prune_vector_versions() == {}  # a fresh index: not optimized by pruning
    assert _index_bytes(path) == held

    services.memory.ingest([make_message(500 + i, content=f"late note {i} about zebras") for i in range(30)])
    services.index.run_vector_index_job()  # the scheduler's job: the refresh, then the old versions
    assert _index_bytes(path) < 0.7 * held
    assert corpus.collection.version_count() == 1
    hits = services.memory.search("topic 4 note 13 report", limit=5)
    assert hits and hits[0].content == "topic 4 note 13 report"
    late = services.memory.search("late note 7 about zebras", limit=5)
    assert late and late[0].content == "late note 7 about zebras"
