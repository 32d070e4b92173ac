"""An idle host closes LanceDB (tables, caches) and gives back code pages; everything comes back."""

import mmap
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from app.bootstrap import Services, build_services
from app.core import library_pages
from app.core.domain import SearchFilters
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, ResourceSettings, Settings
from app.core.storage.vectors import VectorStore
from app.services.idle_release import release_idle
from app.services.scheduling import JobHost
from tests.conftest import PROJECT_ROOT, make_message


def _unit(n: int, seed: int, dims: int = 8) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, dims)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_a_closed_store_reopens_and_sees_every_commit_made_meanwhile(tmp_path) -> None:
    ours = VectorStore(tmp_path / "v", index_cache_mb=4, metadata_cache_mb=2)
    collection = ours.collection("t", "m", 8, ("user_id",))
    vectors = _unit(30, seed=1)
    collection.upsert([f"k{i}" for i in range(30)], vectors, [{"user_id": "u"}] * 30)
    before = [h.key for h in collection.search(vectors[3], 5)]
    assert before[0] == "k3" and ours.cache_bytes() > 0

    held = ours.release()
    assert held > 0 and ours.cache_bytes() == 0 and ours._connection is None
    assert collection._table is None

    # Another process writes while ours is closed: an append, a rewrite and a delete.
    theirs = VectorStore(tmp_path / "v").collection("t", "m", 8, ("user_id",))
    theirs.upsert(["new"], -vectors[3:4], [{"user_id": "u"}])
    theirs.upsert(["k4"], -vectors[5:6], [{"user_id": "u"}])
    theirs.delete(["k3"])

    assert collection.count() == 30
    assert collection.search(-vectors[3], 1)[0].key == "new"
    assert "k3" not in {h.key for h in collection.search(vectors[3], 5)}
    stored = collection.vectors_of(["k4", "k7", "k3"])
    assert set(stored) == {"k4", "k7"} and np.allclose(stored["k4"], -vectors[5], atol=1e-6)
    # Writes through the reopened store still work, and a second release is harmless.
    collection.upsert(["k3"], vectors[3:4], [{"user_id": "u"}])
    assert collection.search(vectors[3], 1)[0].key == "k3"
    ours.release()
    ours.release()
    assert collection.search(vectors[3], 1)[0].key == "k3"


def test_the_lancedb_cache_bounds_come_from_the_settings(tmp_path) -> None:
    resources = ResourceSettings(vector_index_cache_mb=64, vector_metadata_cache_mb=8)
    settings = Settings(
        data_dir=tmp_path / "d", embedding=EmbeddingSettings(provider="hashing"), resources=resources
    )
    services = build_services(settings, embedder=HashingEmbedder())
    try:
        assert (services.vectors.index_cache_mb, services.vectors.metadata_cache_mb) == (64, 8)
        assert "size_bytes" in repr(services.vectors._session)
    finally:
        services.close()


def _ids(services: Services, query: str) -> list[int]:
    return [h.id for h in services.memory.search(query, filters=SearchFilters(), loose=True)]


def test_after_a_release_search_import_doctor_and_a_foreign_commit_all_work(services: Services) -> None:
    services.memory.ingest([make_message(i, content=f"budget review number {i}") for i in range(40)])
    first = _ids(services, "budget review")
    doctor = [r.to_dict() for r in services.index.verify(full=True)]
    assert first

    # Used a moment ago: LanceDB stays open; 31 minutes later everything idle goes.
    assert release_idle(services, 300, 1800).lance_bytes == 0
    assert services.vectors._connection is not None
    released = release_idle(services, 300, 1800, now=time.monotonic() + 1801)
    assert released.vector_bytes > 0 and services.vectors._connection is None

    assert _ids(services, "budget review") == first
    assert [r.to_dict() for r in services.index.verify(full=True)] == doctor

    # A foreign process imports after the release; this one sees it without a restart.
    release_idle(services, 300, 1800, now=time.monotonic() + 1801)
    env = {
        **os.environ,
        "STRATA_DATA_DIR": str(services.settings.data_dir),
        "STRATA_EMBEDDING__PROVIDER": "hashing",
    }
    code = (
        "from app.bootstrap import build_services\n"
        "from app.core.embeddings.hashing import HashingEmbedder\n"
        "from tests.conftest import make_message\n"
        "s = build_services(embedder=HashingEmbedder())\n"
        "s.memory.ingest([make_message(900, content='zebra crossing permit')])\n"
        "s.close()\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, env=env, check=True, timeout=120)
    hits = services.memory.search("zebra crossing permit", filters=SearchFilters(), loose=True)
    assert hits and hits[0].content == "zebra crossing permit"

    # And this process's own import after another release.
    release_idle(services, 300, 1800, now=time.monotonic() + 1801)
    services.memory.ingest([make_message(901, content="walrus tusk cleaning")])
    assert services.memory.search("walrus tusk", filters=SearchFilters(), loose=True)[0].content == (
        "walrus tusk cleaning"
    )
    after = {r["kind"]: r for r in (r.to_dict() for r in services.index.verify(full=True))}
    assert after["message"]["rows"] == after["message"]["vectors"] == 42
    assert after["message"]["missing"] == after["message"]["orphans"] == 0


SMAPS = """\
7f0000000000-7f0000010000 r--p 00000000 fd:01 1234 /venv/lib/_lancedb.abi3.so
Rss:                  40 kB
Locked:                0 kB
7f0000010000-7f0000020000 r-xp 00010000 fd:01 1234 /venv/lib/_lancedb.abi3.so
Rss:                  64 kB
Locked:                0 kB
7f0000020000-7f0000030000 rw-p 00020000 fd:01 1234 /venv/lib/_lancedb.abi3.so
Rss:                  64 kB
7f0000030000-7f0000040000 r-xp 00000000 fd:01 99 /usr/lib/libarrow.so.2600
Rss:                   0 kB
7f0000040000-7f0000050000 r-xp 00000000 fd:01 98 /usr/lib/libfoo.so.1.2 (deleted)
Rss:                  16 kB
7f0000050000-7f0000060000 r--s 00000000 fd:01 97 /data/strata.sqlite3
Rss:                  16 kB
7f0000060000-7f0000070000 rw-p 00000000 00:00 0
Rss:                  64 kB
7f0000070000-7f0000080000 r-xp 00000000 fd:01 96 /usr/lib/libqt.so.6
Rss:                  64 kB
Locked:               64 kB
7f0000080000-7f0000090000 r-xp 00000000 fd:01 95 /usr/lib/libpython3.11.so.1.0
Rss:                   8 kB
Locked:                0 kB
"""


def test_only_resident_read_only_library_mappings_are_chosen() -> None:
    chosen = library_pages.library_mappings(SMAPS)
    assert [(hex(m.start), m.path.rsplit("/", 1)[1], m.resident_kb) for m in chosen] == [
        ("0x7f0000000000", "_lancedb.abi3.so", 40),
        ("0x7f0000010000", "_lancedb.abi3.so", 64),
        ("0x7f0000080000", "libpython3.11.so.1.0", 8),
    ]


def _probe_library(tmp_path: Path) -> tuple[mmap.mmap, str, bytes]:
    """A read-only mapping of a `.so` file only this process maps, every page touched."""
    path = tmp_path / "libprobe.so"
    content = os.urandom(1 << 20)
    with path.open("wb") as handle:  # clean pages, as an installed library's: written back first
        handle.write(content)
        handle.flush()
        os.fsync(handle.fileno())
    with path.open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    assert mapped[:] == content  # reads every page in
    return mapped, str(path), content


def _resident_kb(path: str) -> int:
    return sum(
        m.resident_kb
        for m in library_pages.library_mappings(Path("/proc/self/smaps").read_text())
        if m.path == path
    )


LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="madvise(MADV_PAGEOUT) is Linux's")


@LINUX
def test_dropping_library_pages_gives_them_back_and_the_code_still_runs(services: Services, tmp_path) -> None:
    services.memory.ingest([make_message(i, content=f"orchard harvest {i}") for i in range(20)])
    first = _ids(services, "orchard harvest")
    mapped, path, content = _probe_library(tmp_path)
    assert _resident_kb(path) == 1024
    dropped = library_pages.drop_library_pages()
    assert dropped.mappings > 0 and dropped.resident_mb > 0
    assert _resident_kb(path) == 0  # given back (pages other processes also map are left alone)
    assert mapped[:] == content  # and read back intact
    # Every library runs again from the pages read back: NumPy, LanceDB, SQLite, tokenizers.
    assert _ids(services, "orchard harvest") == first
    assert float(np.linalg.norm(np.ones(4))) == 2.0
    mapped.close()


def test_the_trim_job_closes_lancedb_and_drops_pages_once_idle(services: Services, tmp_path) -> None:
    mapped, path, _ = _probe_library(tmp_path)
    services.memory.ingest([make_message(i) for i in range(5)])
    services.memory.search("message", filters=SearchFilters())
    services.settings.resources = ResourceSettings(model_idle_seconds=0.01, vector_copy_idle_seconds=0.01)
    time.sleep(0.05)
    host = JobHost(services)
    host._trim()
    released = host.last_idle_release
    assert released is not None and released.vector_bytes > 0
    assert services.vectors._connection is None
    assert services.db.read_engine.pool.checkedin() == 0  # pooled SQLite connections closed
    if sys.platform.startswith("linux"):
        assert _resident_kb(path) == 0
    services.settings.resources = ResourceSettings(
        model_idle_seconds=0.01, vector_copy_idle_seconds=0.01, drop_library_pages=False
    )
    assert mapped[:1] is not None  # read back in
    host._trim()
    assert host.last_idle_release is not None and host.last_idle_release.pages_mb == 0
    if sys.platform.startswith("linux"):
        assert _resident_kb(path) > 0  # kept
    assert services.memory.search("message", filters=SearchFilters())
    mapped.close()
