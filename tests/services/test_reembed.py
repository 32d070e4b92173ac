"""A model change is a planned, resumable job: search keeps the old vectors until the new set is complete."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from app.bootstrap import Services, build_services
from app.cli.main import cli
from app.core.embeddings.hashing import HashingEmbedder
from app.core.index.message_kind import message_doc
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.models import AuditRow, RawMessageRow
from tests.conftest import make_message


class Failing(HashingEmbedder):
    """The new model, dying after `ok` document batches (a killed job)."""

    def __init__(self, dimensions: int, ok: int) -> None:
        super().__init__(dimensions)
        self.ok = ok

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.ok == 0:
            raise RuntimeError("killed mid-job")
        self.ok -= 1
        return super().embed_documents(texts)


def test_switch_waits_for_a_complete_set_resumes_and_is_audited(settings: Settings, clock) -> None:
    old = build_services(settings, clock=clock, embedder=HashingEmbedder(64))
    old.memory.ingest([make_message(i, content=f"heron sighting number {i}") for i in range(300)])
    old.close()

    svc = build_services(settings, clock=clock, embedder=Failing(32, ok=1))
    try:
        plan = svc.reembed.plan()
        assert plan.switch and plan.active_dimensions == 64 and plan.target_dimensions == 32
        assert {k.kind: len(k.todo) for k in plan.kinds}["message"] == 300
        assert svc.reembed.plan() == plan  # planning changed nothing
        with pytest.raises(RuntimeError):
            svc.reembed.apply(plan)
        # Half done: search still embeds queries with the old model and finds the old vectors.
        assert svc.embedder.dimensions == 64
        assert svc.memory.search("heron sighting number 7", limit=3)
        resumed = svc.reembed.plan()
        assert {k.kind: len(k.todo) for k in resumed.kinds}["message"] == 300 - 128
    finally:
        svc.close()

    svc = build_services(settings, clock=clock, embedder=HashingEmbedder(32))
    try:
        seen: list[tuple[str, int, int]] = []
        result = svc.reembed.apply(svc.reembed.plan(), progress=lambda *a: seen.append(a))
        assert result.switched and result.embedded == 300 - 128
        assert seen[-1] == ("message", 300 - 128, 300 - 128)
        assert svc.embedder.dimensions == 32 and svc.reembed.status()["switch_pending"] is False
        assert svc.processor.collection.count() == 300
        with svc.db.read() as session:
            assert set(session.scalars(select(RawMessageRow.embedding_dimensions))) == {32}
            actions = list(session.scalars(select(AuditRow.action).where(AuditRow.entity_type == "index")))
        assert actions == ["reembed_switch"]
        assert all(k.reembedded == 0 for k in svc.index.repair())  # stamps follow the switch
    finally:
        svc.close()
    # A new process starts on the new model (index_state), with nothing left to do.
    again = build_services(settings, clock=clock, embedder=HashingEmbedder(32))
    try:
        assert again.embedder.dimensions == 32 and again.reembed.plan().todo == 0
    finally:
        again.close()


def test_dream_pass_reembeds_rows_whose_content_hash_is_stale(services) -> None:
    ids = services.memory.ingest([make_message(i) for i in range(5)]).ids
    with services.db.write() as session:
        row = session.get(RawMessageRow, ids[0])
        row.memory_stage = "mid"  # its AAAK text (Tier line) changed without a re-embed
    plan = services.reembed.plan()
    assert not plan.switch and {k.kind: k.todo for k in plan.kinds}["message"] == (str(ids[0]),)
    result = services.reembed.apply(plan)
    assert result.embedded == 1 and services.reembed.plan().todo == 0


def test_cli_reembed_dry_run_then_apply(data_dir, cli_env, clock) -> None:
    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider="hashing", dimensions=48))
    first = build_services(settings, clock=clock)
    first.memory.ingest([make_message(i) for i in range(4)])
    first.close()
    runner = CliRunner()
    env = {"STRATA_EMBEDDING__DIMENSIONS": "24"}  # the user changes the model in the settings
    dry = json.loads(runner.invoke(cli, ["reembed", "--dry-run", "--json"], env=env).stdout)
    assert dry["switch"] and dry["todo"] == 4 and dry["target_dimensions"] == 24
    done = runner.invoke(cli, ["reembed"], env=env)
    assert done.exit_code == 0, done.output
    assert "search now uses hashing-bow-24" in done.output
    assert json.loads(runner.invoke(cli, ["stats", "--json"], env=env).stdout)["embedding_dimensions"] == 24


class EditingDuringJob(HashingEmbedder):
    """The new model; while it embeds the first batch, the user edits a message (another writer)."""

    def __init__(self, dimensions: int, edit) -> None:  # type: ignore[no-untyped-def]
        super().__init__(dimensions)
        self.edit = edit

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.edit is not None:
            edit, self.edit = self.edit, None
            edit()
        return super().embed_documents(texts)


def test_a_row_edited_while_the_job_runs_is_embedded_anew_before_the_switch(settings, clock) -> None:
    old = build_services(settings, clock=clock, embedder=HashingEmbedder(64))
    old.memory.ingest([make_message(i, content=f"osprey nest {i}") for i in range(4)])
    old.close()
    holder: list[Services] = []
    edit = [make_message(2, content="edited heron")]
    svc = build_services(
        settings, clock=clock, embedder=EditingDuringJob(32, lambda: holder[0].memory.ingest(edit))
    )
    holder.append(svc)
    try:
        assert svc.reembed.apply(svc.reembed.plan()).switched
        hits = svc.memory.search("edited heron", limit=1, loose=True)
        assert hits and hits[0].content == "edited heron"
        # The stored new-model vector is the one of the edited text (not of the text read first).
        with svc.db.read() as session:
            document = message_doc(session.get(RawMessageRow, int(hits[0].id))).document
        query = HashingEmbedder(32).embed_query("edited heron")
        expected = float(HashingEmbedder(32).embed_documents([document])[0] @ query)
        stored = {h.key: h.similarity for h in svc.processor.collection.search(query, 10)}
        assert abs(stored[hits[0].id] - expected) < 1e-5
    finally:
        svc.close()
