"""Keep each large kind's memory-mapped vector file current: a scheduler job's work and doctor's.

A kind gets a file once its collection reaches `Corpus.vector_file_min_rows` rows (0: never); the
file is rebuilt when too few rows are served by it (`vector_file_build.due`: rows added,
re-embedded or rewritten by a compaction since it was built). One process at a time, under the
same `vector-index:<kind>` lease as the approximate index's work; never while a writer of the
kind holds its lease (its rows would be stale in the new file at once). The scheduler host checks
every minute (`IndexService.run_vector_file_job`): a compaction (every deletion's purge, the
index refresh) gives every row of a 1M table a new id, and the file serves nothing until rebuilt.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from app.core.index.lease import WriterLeases
from app.core.storage import vector_file_build
from app.core.storage.vector_file_build import BuildReport, FileStatus

log = logging.getLogger(__name__)


def statuses(kinds: Sequence[Any]) -> dict[str, FileStatus]:
    """Per kind with a file or due one (`message`): rows now, rows the file serves, its bytes."""
    out: dict[str, FileStatus] = {}
    for k in kinds:
        collection = k.corpus.collection
        if not k.corpus.vector_file_min_rows or collection.file is None or not collection.exists:
            continue
        if not collection.file.path.exists() and collection.count() < k.corpus.vector_file_min_rows:
            continue  # a small archive: the in-memory copy serves, no file is due
        out[k.corpus.kind] = vector_file_build.status(
            collection.table, collection.file.path.parent, collection.name, collection.path
        )
    return out


def any_file(kinds: Sequence[Any]) -> bool:
    """Whether some kind has a vector file on disk (a stat each, no LanceDB)."""
    return any(
        k.corpus.vector_file_min_rows
        and k.corpus.collection.file is not None
        and k.corpus.collection.file.path.exists()
        for k in kinds
    )


def maintain(
    kinds: Sequence[Any],
    leases: WriterLeases,
    *,
    force: bool = False,
    checked: dict[str, int] | None = None,
) -> dict[str, BuildReport]:
    """Build or rebuild the files that are due (`force`: every large kind's, dropped first: doctor
    --repair); a file of a kind that shrank below its threshold is removed. `checked` remembers
    the table version each collection was found current at: while the table stays at it, the
    check costs one version read instead of reading the key and row-id columns (0.35 s at 1M)."""
    done: dict[str, BuildReport] = {}
    for k in kinds:
        corpus = k.corpus
        collection = corpus.collection
        if not corpus.vector_file_min_rows or collection.file is None or not collection.exists:
            continue
        if collection.count() < corpus.vector_file_min_rows:
            if collection.file.path.exists():
                collection.file.remove()  # the in-memory copy serves a small archive
            continue
        directory = collection.file.path.parent
        version = int(collection.table.version)
        if not force:
            if checked is not None and checked.get(collection.name) == version:
                continue
            state = vector_file_build.status(collection.table, directory, collection.name, collection.path)
            if not vector_file_build.due(state):
                if checked is not None:
                    checked[collection.name] = version
                continue
        lease = f"vector-index:{corpus.kind}"
        if leases.live(lease) or leases.live(corpus.kind):
            continue  # another process's index work, or a writer of the kind, right now
        with leases.hold(lease):
            if len(leases.live(lease)) > 1:
                continue
            if force:
                collection.file.remove()
            report = vector_file_build.build(
                collection.table, collection.path, directory, collection.name, collection.dimensions
            )
        if report is not None:
            done[k.name] = report
    return done
