"""Two CLI processes adding documents to the same data dir at once: nothing lost, duplicates refused once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import kbfiles
import pytest

from app.bootstrap import build_services
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, Settings


@pytest.mark.slow
def test_concurrent_adds_from_two_processes(tmp_path: Path, data_dir: Path) -> None:
    files_a = [kbfiles.write(tmp_path, f"a{i}.txt", f"process a doc {i} heron".encode()) for i in range(2)]
    files_b = [kbfiles.write(tmp_path, f"b{i}.txt", f"process b doc {i} heron".encode()) for i in range(2)]
    shared = kbfiles.write(tmp_path, "shared.docx", kbfiles.docx_bytes([("p", "both processes add this")]))
    env = {**os.environ, "STRATA_DATA_DIR": str(data_dir), "STRATA_EMBEDDING__PROVIDER": "hashing"}
    # Create the schema first so both processes start from the same state.
    build_services(Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider="hashing"))).close()
    command = [sys.executable, "-m", "app.cli.main", "kb", "add", "--json"]
    procs = [
        subprocess.Popen(
            [*command, *map(str, paths), str(shared)], env=env, stdout=subprocess.PIPE, text=True
        )
        for paths in (files_a, files_b)
    ]
    outputs = [json.loads(p.communicate(timeout=240)[0]) for p in procs]
    results = [r for out in outputs for r in out]
    shared_results = [r for r in results if r["file"].endswith("shared.docx")]
    assert sorted(r["ok"] for r in shared_results) == [False, True]
    assert next(r for r in shared_results if not r["ok"])["error"] == "conflict"
    assert sum(r["ok"] for r in results) == 5

    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider="hashing"))
    services = build_services(settings, embedder=HashingEmbedder())
    try:
        names = {d.file_name for d in services.knowledge.list_documents(limit=100)}
        assert names == {f"a{i}.txt" for i in range(2)} | {f"b{i}.txt" for i in range(2)} | {"shared.docx"}
        assert len(services.knowledge.search("heron", limit=20)) == 4
        assert services.knowledge.repair().orphan_vectors == 0
    finally:
        services.close()
