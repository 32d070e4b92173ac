"""A deleted message's vectors leave every file: LanceDB's fragments that held them are compacted."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from app.bootstrap import Services, build_services
from app.cli.main import cli
from app.core.clock import DAY_MS, FixedClock
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.index.message_keys import key_of
from app.core.settings import Settings
from app.core.storage.erasure import erase_rows
from app.core.storage.messages import vector_key
from app.core.storage.models import RawMessageRow
from tests.conftest import NOW_MS
from tests.forgetting.factory import NOW as FORGETTING_NOW

TOKEN = "quokkazanzibarzephyr"
ROWS = 2000  # one fragment of many rows: LanceDB's compaction leaves it alone for one deletion


def files_holding(root: Path, needle: bytes) -> list[str]:
    """Every file under root whose bytes contain the needle, like `grep -rl`."""
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def _msg(n: int, content: str, *, day: int = 1) -> RawMessage:
    return RawMessage(
        platform="slack",
        message_id=f"e{day}-{n}",
        channel=f"c{n % 7}",
        person="anna",
        timestamp=NOW_MS - day * DAY_MS + n * 1000,
        content=content,
    )


def _archive(svc: Services, target_text: str) -> int:
    """ROWS messages of two sentences (so each has sentence keys), compacted to one fragment per
    table as a long-lived archive is; returns the id of the one holding `target_text`."""
    texts = [
        f"Ordinary note {n} about the harbour budget. We review lane {n % 13} next week." for n in range(ROWS)
    ]
    texts[ROWS // 2] = target_text
    for start in range(0, ROWS, 500):
        svc.memory.ingest([_msg(n, texts[n]) for n in range(start, min(start + 500, ROWS))])
    assert svc.memory.keys is not None
    svc.memory.keys.wait(timeout_s=120)
    for collection in (svc.processor.collection, svc.memory.keys.corpus.collection):
        collection.purge_history()  # compaction: one fragment of ROWS (or more) rows
        assert collection.table.stats()["fragment_stats"]["num_fragments"] == 1
    return svc.memory.find("slack", [f"e1-{ROWS // 2}"])[0].id


def _stored(svc: Services, target: int) -> list[bytes]:
    """The float32 bytes of the message's vector and of each of its sentence keys."""
    assert svc.memory.keys is not None
    own = svc.processor.collection.vectors_of([vector_key(target)])
    keys = svc.memory.keys.corpus.collection.vectors_of([key_of(target, n) for n in range(4)])
    vectors = [*own.values(), *keys.values()]
    assert len(vectors) >= 3  # its own vector and two sentence keys
    return [np.asarray(v, dtype=np.float32).tobytes() for v in vectors]


@pytest.fixture
def svc(settings: Settings):
    services = build_services(settings, clock=FixedClock(NOW_MS), embedder=HashingEmbedder())
    yield services
    services.close()


def test_deletion_erases_vectors_and_text_from_every_file(svc: Services, data_dir: Path) -> None:
    target = _archive(svc, f"The {TOKEN} plan is secret. Only the board knows the {TOKEN} numbers.")
    vectors = _stored(svc, target)
    neighbour = _stored(svc, target + 1)
    for needle in [*vectors, TOKEN.encode()]:
        assert files_holding(data_dir, needle)  # proves the scan sees LanceDB's and SQLite's files

    report = svc.memory.deletion.delete([target])

    assert report.to_dict()["vectorsErased"] is True
    for needle in [*vectors, TOKEN.encode()]:
        assert files_holding(data_dir, needle) == []
    for needle in neighbour:  # the other rows were rewritten, not lost
        assert files_holding(data_dir, needle)
    assert svc.index.erasure_pending() == 0
    assert svc.processor.collection.count() == ROWS - 1
    hits = svc.memory.search("harbour budget lane 7")
    assert hits and all(h.id != target for h in hits)


def test_a_host_answers_at_once_and_erases_right_after(svc: Services, data_dir: Path) -> None:
    target = _archive(svc, f"Ask {TOKEN} about the lease. The {TOKEN} lease ends in May.")
    vectors = _stored(svc, target)
    erasure = svc.index.erasure
    assert erasure is not None
    erasure.start_background()  # what a host does when it schedules the index jobs

    report = svc.memory.deletion.delete([target])

    assert report.to_dict()["vectorsErased"] is False  # answered before the rewrite
    assert erasure.wait(60.0)
    assert svc.index.erasure_pending() == 0
    assert [files_holding(data_dir, v) for v in vectors] == [[]] * len(vectors)
    assert svc.memory.search("harbour budget lane 3")


def test_a_crash_before_the_rewrite_leaves_the_erasure_pending(
    svc: Services, settings: Settings, data_dir: Path, cli_env: dict[str, str]
) -> None:
    target = _archive(svc, f"Call {TOKEN} before noon. The {TOKEN} door code changes today.")
    vectors = _stored(svc, target)
    # What a deletion does up to the rewrite, then the process dies: the fragments are recorded,
    # the rows masked, the old data files still on disk.
    erasure = svc.memory.deletion.erasure
    assert erasure is not None
    erasure.mark([target])
    with svc.db.write() as session:
        rows = session.scalars(select(RawMessageRow).where(RawMessageRow.id == target)).all()
        erase_rows(session, rows, keywords=svc.keywords, actor="user", at=NOW_MS)
    svc.processor.collection.delete([vector_key(target)])
    assert svc.memory.keys is not None
    svc.memory.keys.remove([target])
    svc.close()
    assert all(files_holding(data_dir, v) for v in vectors)

    runner = CliRunner()
    shown = runner.invoke(cli, ["doctor", "--json"])
    assert shown.exit_code == 1
    check = {c["name"]: c for c in json.loads(shown.stdout)["checks"]}["deleted vectors erased"]
    assert not check["ok"] and "doctor --repair" in check["detail"]

    repaired = runner.invoke(cli, ["doctor", "--repair", "--json"])
    check = {c["name"]: c for c in json.loads(repaired.stdout)["checks"]}["deleted vectors erased"]
    assert check["ok"], repaired.output
    assert [files_holding(data_dir, v) for v in vectors] == [[]] * len(vectors)


def test_a_summary_rewritten_by_a_deletion_leaves_no_old_vector(settings: Settings, data_dir: Path) -> None:
    # The forgetting tests' clock: a weekday on which a 40-day-old message is due for archiving.
    svc = build_services(settings, clock=FixedClock(FORGETTING_NOW), embedder=HashingEmbedder())
    old = [
        RawMessage(
            platform="slack",
            message_id=f"s{n}",
            channel="general",
            person="anna",
            timestamp=FORGETTING_NOW - 40 * DAY_MS + n * 60_000,
            content=f"Note {n}: the {TOKEN} budget moves to design.",
        )
        for n in range(3)
    ]
    svc.memory.ingest(old)
    assert svc.forgetting.run().status == "completed"
    summaries = svc.forgetting.summaries.corpus.collection
    before = summaries.vectors_of(summaries.keys())
    assert len(before) == 1
    old_bytes = np.asarray(next(iter(before.values())), dtype=np.float32).tobytes()
    assert files_holding(data_dir, old_bytes)

    svc.memory.deletion.delete([svc.memory.find("slack", ["s0"])[0].id])

    after = summaries.vectors_of(summaries.keys())
    assert len(after) == 1 and next(iter(after.values())).tobytes() != old_bytes  # regenerated
    assert files_holding(data_dir, old_bytes) == []
    svc.close()
