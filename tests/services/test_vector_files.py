"""The messages' vector file on a small archive past lowered limits: built by the index job, read by
search, erased by a deletion, dropped and rebuilt by `doctor --repair`, unmapped when idle."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner

from app.bootstrap import build_services
from app.cli.main import cli
from app.core.clock import FixedClock
from app.core.domain import SearchFilters
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, SearchSettings, Settings
from app.services.idle_release import release_idle
from tests.conftest import NOW_MS, make_message

runner = CliRunner()


def _settings(data_dir: Path) -> Settings:
    return Settings(
        data_dir=data_dir,
        embedding=EmbeddingSettings(provider="hashing"),
        search=SearchSettings(vector_file_min_rows=20, sentence_keys=False),
    )


def _ids(svc, text: str) -> list[str]:
    return [h.id for h in svc.memory.search(text, SearchFilters(), limit=10)]


def test_vector_file_through_job_search_deletion_and_repair(data_dir: Path, cli_env: dict[str, str]) -> None:
    svc = build_services(_settings(data_dir), clock=FixedClock(NOW_MS), embedder=HashingEmbedder())
    topics = ["heron migration", "budget review", "beta launch", "garden soil", "train tickets"]
    svc.memory.ingest([make_message(n, content=f"{topics[n % 5]} note {n}") for n in range(60)])
    corpus = svc.memory.searcher.corpus
    corpus.max_cached_rows = 10  # past the in-memory limit: the index path reads stored vectors
    corpus._caches.clear()
    collection = corpus.collection
    collection._rowids.refresh_seconds = 0.0
    stored = collection.file
    assert stored is not None and not stored.path.exists()
    before = _ids(svc, "heron migration")

    svc.index.run_vector_file_job()  # the scheduler's job: builds the file past 20 rows
    assert stored.path.exists()
    state = svc.index.vector_files()["message"]
    assert (state.rows, state.served) == (60, 60)
    assert _ids(svc, "heron migration") == before  # the same vectors, so the same answer
    assert stored.served > 0

    # A deletion zeroes the vector in the file in the same call, before it returns.
    victim = before[0]
    vector = collection.vectors_of([victim])[victim]
    assert vector.tobytes() in stored.path.read_bytes()
    svc.memory.deletion.delete([int(victim)])
    assert vector.tobytes() not in stored.path.read_bytes()
    assert victim not in _ids(svc, "heron migration")
    # The erasure compacted the fragment that held it (vector_erase.py): new row ids, as after any
    # compaction, so the file serves none of them until the job's next run.
    assert svc.index.vector_files()["message"].stale == 59
    svc.index.run_vector_file_job()

    # Rows rewritten since the build (here edits, re-embedded; a compaction rewrites them all) are
    # read from LanceDB until the job's next run rebuilds the file.
    svc.memory.ingest([make_message(n, content=f"edited note {n} about the garden") for n in range(20, 30)])
    assert svc.index.vector_files()["message"].stale == 10
    svc.index.run_vector_file_job()
    assert svc.index.vector_files()["message"].stale == 0

    # Idle: the mapping goes with LanceDB's connection.
    assert str(stored.path) in Path(f"/proc/{os.getpid()}/maps").read_text()
    release_idle(svc, 0, 1, now=1e12)
    assert str(stored.path) not in Path(f"/proc/{os.getpid()}/maps").read_text()
    svc.close()

    # A damaged file serves nothing; doctor --repair drops it and writes it anew.
    stored.path.write_bytes(b"garbage")
    env = {**cli_env, "STRATA_SEARCH__VECTOR_FILE_MIN_ROWS": "20"}
    result = runner.invoke(cli, ["doctor", "--repair", "--json"], env=env)
    assert result.exit_code == 0, result.output
    kinds = {k["kind"]: k for k in json.loads(result.stdout)["kinds"]}
    assert kinds["message"]["vector_file"]["served"] == kinds["message"]["vector_file"]["rows"] == 59
    text = " ".join(runner.invoke(cli, ["doctor"], env=env).output.split())
    assert "vector file: messages: 59 of 59 vector(s) served" in text
