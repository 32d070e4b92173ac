"""`strata doctor` on an archive without sentence keys: an estimate first, then the keys with a
progress bar; Ctrl-C keeps what was built and the next run goes on; `--skip-keys` leaves them."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import traceback
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from app.bootstrap import build_services
from app.cli.doctor_keys import build_missing_keys, duration, pending_keys
from app.cli.main import cli
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, SearchSettings, Settings
from tests.conftest import NOW_MS, make_message

runner = CliRunner()
TEXT = "The budget review moved to Friday morning. Finance wants the quarterly numbers first."


def _archive_without_keys(data_dir: Path, n: int) -> None:
    """Messages stored and embedded with sentence keys off, as a bulk-built archive has them."""
    settings = Settings(
        data_dir=data_dir,
        embedding=EmbeddingSettings(provider="hashing"),
        search=SearchSettings(sentence_keys=False),
    )
    svc = build_services(settings, clock=FixedClock(NOW_MS), embedder=HashingEmbedder())
    svc.memory.ingest([make_message(i, content=f"{TEXT} Item {i}.") for i in range(n)])
    svc.close()


def test_doctor_estimates_then_builds_the_missing_keys(data_dir: Path, cli_env: dict[str, str]) -> None:
    _archive_without_keys(data_dir, 30)
    shown = runner.invoke(cli, ["doctor"])
    assert shown.exit_code == 0, shown.output
    assert "sentence keys: 30 message(s) have none yet (about 60 keys to embed, about" in shown.output
    assert "Ctrl-C stops and keeps what is built" in shown.output and "--skip-keys" in shown.output

    again = runner.invoke(cli, ["doctor", "--json"])  # nothing left: no estimate, no bar
    report = json.loads(again.stdout)
    assert "sentence_keys" not in report
    keys = {k["kind"]: k for k in report["kinds"]}["message_key"]
    assert keys["vectors"] == 60 and keys["missing"] == 0


def test_doctor_skip_keys_runs_the_other_repairs_only(data_dir: Path, cli_env: dict[str, str]) -> None:
    _archive_without_keys(data_dir, 12)
    skipped = runner.invoke(cli, ["doctor", "--repair", "--skip-keys", "--json"])
    assert skipped.exit_code == 0, skipped.output
    report = json.loads(skipped.stdout)
    check = {c["name"]: c for c in report["checks"]}["sentence keys"]
    assert check["detail"] == "12 message(s) without keys; not built (--skip-keys)"
    kinds = {k["kind"]: k for k in report["kinds"]}
    assert kinds["message_key"]["vectors"] == 0 and kinds["message"]["vectors"] == 12
    built = json.loads(runner.invoke(cli, ["doctor", "--json"]).stdout)
    assert built["sentence_keys"]["pending"] == 12 and built["sentence_keys"]["built"] == 12


class _CtrlCAfterFirstBatch(HashingEmbedder):
    """The hashing embedder; the first batch the keys' backlog worker embeds while doctor's bar
    runs in the main thread presses Ctrl-C (a real SIGINT to this process), as a person would."""

    def __init__(self) -> None:
        super().__init__()
        self.pressed = False

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not self.pressed and threading.current_thread() is not threading.main_thread():
            main = sys._current_frames()[threading.main_thread().ident or 0]
            if "build_missing_keys" in {f.f_code.co_name for f, _ in traceback.walk_stack(main)}:
                self.pressed = True
                os.kill(os.getpid(), signal.SIGINT)
        return super().embed_documents(texts)


@pytest.fixture
def ctrl_c_raises():
    """Python's own Ctrl-C handler, as at a terminal: a run started in the background (`cmd &` in
    a shell without job control) inherits SIGINT ignored, and the press would then do nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_keeps_the_keys_built_and_the_next_run_goes_on(data_dir: Path, ctrl_c_raises: None) -> None:
    _archive_without_keys(data_dir, 600)  # more than one backlog batch (256 messages)
    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider="hashing"))
    embedder = _CtrlCAfterFirstBatch()
    svc = build_services(settings, clock=FixedClock(NOW_MS), embedder=embedder)
    try:
        first = build_missing_keys(svc, quiet=True)
        assert first is not None and first.stopped and embedder.pressed
        assert first.pending == 600 and first.keys_estimate == 1200
        assert 0 < first.built < 600 and pending_keys(svc) == 600 - first.built
        kept = svc.memory.keys.corpus.collection.count()  # type: ignore[union-attr]
        assert kept == 2 * first.built  # every stamped message has its two keys

        rest = build_missing_keys(svc, quiet=True)  # the next doctor
        assert rest is not None and not rest.stopped and rest.pending == 600 - first.built
        assert pending_keys(svc) == 0
        assert svc.memory.keys.corpus.collection.count() == 1200  # type: ignore[union-attr]
    finally:
        svc.close()


def test_durations_read_as_a_person_says_them() -> None:
    assert [duration(s) for s in (40, 720, 3 * 3600 + 300)] == ["40 s", "12 min", "3 h 05 min"]
