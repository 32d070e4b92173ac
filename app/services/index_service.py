"""The corpus as one whole: verify and repair every kind (messages, summaries, insights, chunks)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.core.index import maintenance
from app.core.index.ann import AnnWork
from app.core.index.corpus import Corpus
from app.core.index.keyword_format import KeywordReindex, ReindexStatus
from app.core.index.lease import WriterLeases
from app.core.index.maintenance import IndexSource, KindReport, Progress
from app.core.storage import vector_prune
from app.core.storage.db import Database
from app.core.storage.vector_file_build import BuildReport, FileStatus
from app.core.storage.vector_prune import PruneReport
from app.services import vector_files
from app.services.vector_erasure import ErasureRun, VectorErasure

log = logging.getLogger(__name__)

REPAIR_JOB_ID = "index-repair"
VECTOR_INDEX_JOB_ID = "index-vectors"
KEYWORD_REINDEX_JOB_ID = "keyword-reindex"
VECTOR_FILE_JOB_ID = "vector-files"
VECTOR_FILE_SECONDS = 60
VECTOR_FILE_FIRST_CHECK_S = 600.0  # while no kind has a file: as often as the index job looks


@dataclass(frozen=True, slots=True)
class IndexedKind:
    """One kind of the corpus; `repair` overrides the generic repair when the kind keeps more
    than rows and vectors (documents also keep their original files)."""

    name: str  # plural, as doctor prints it
    corpus: Corpus
    source: IndexSource
    repair: Callable[[bool, Progress | None], KindReport] | None = None


class IndexService:
    def __init__(
        self,
        db: Database,
        leases: WriterLeases,
        kinds: list[IndexedKind],
        *,
        keyword_reindex: KeywordReindex | None = None,
    ) -> None:
        self.db = db
        self.leases = leases
        self.kinds = kinds
        self.keyword_reindex = keyword_reindex
        self._stop = threading.Event()  # set on close: a running reindex stops after its batch
        self._job: Any = None
        self._started = time.monotonic()  # "last search" until the first one
        # How long a replaced vector-table version is kept for readers (vector_prune).
        self.prune_margin = vector_prune.MARGIN
        self.prune_settle = vector_prune.SETTLE
        self._file_versions: dict[str, int] = {}  # table versions the vector files were current at
        self._files_checked_at = -float("inf")
        # Compacts LanceDB tables a deletion left masked rows in (set in bootstrap; None: none).
        self.erasure: VectorErasure | None = None

    def release_idle(self, idle_seconds: float, now: float | None = None) -> int:
        """Drop every kind's in-memory vector copy left unused for `idle_seconds` (bytes held)."""
        return sum(k.corpus.release_idle(idle_seconds, now) for k in self.kinds)

    def searched_ago(self, now: float | None = None) -> float:
        """Seconds since any kind's last vector search in this process (or since it started)."""
        now = time.monotonic() if now is None else now
        searched = [t for k in self.kinds if (t := k.corpus.searched_at()) is not None]
        return now - max([self._started, *searched])

    def release_vector_store(self) -> int:
        """Close LanceDB: open tables and their caches (the next use opens them again); the bytes
        the caches held."""
        stores = {id(k.corpus.vectors): k.corpus.vectors for k in self.kinds}
        return sum(store.release() for store in stores.values())

    def verify(self, *, full: bool = False) -> list[KindReport]:
        """Each kind's drift between SQLite and its indexes; changes nothing."""
        return [maintenance.verify(self.db, k.corpus, k.source, full=full) for k in self.kinds]

    def vector_indexes(self) -> dict[str, dict[str, Any]]:
        """Per kind (`message`, `summary`, …): whether an approximate vector index serves it and how
        much of the collection it covers. Without one (`index_type` None) searches are exact; the
        background job builds it once the collection reaches `builds_at_rows`. Reads metadata only."""
        out: dict[str, dict[str, Any]] = {}
        for k in self.kinds:
            ann = k.corpus.ann()
            status = ann.status()
            out[k.corpus.kind] = {
                **status.to_dict(),
                "approximate": status.index_type is not None,
                "builds_at_rows": ann.min_rows,
                "faiss": k.corpus.faiss_status(),
            }
        return out

    def repair(
        self,
        *,
        full: bool = False,
        progress: Callable[[str, int, int | None], None] | None = None,
        skip: Collection[str] = (),
    ) -> list[KindReport]:
        """Rebuild every kind's drift from SQLite; a kind another process is writing is deferred.
        Kinds named in `skip` (`message_key`: doctor --skip-keys) are only checked, not repaired."""
        reports: list[KindReport] = []
        for k in self.kinds:
            if k.corpus.kind in skip:
                reports.append(maintenance.verify(self.db, k.corpus, k.source))
                continue
            step: Progress | None = None
            if progress is not None:
                step = lambda done, total, name=k.name: progress(name, done, total)  # noqa: E731
            if k.repair is not None:
                reports.append(k.repair(full, step))
            else:
                reports.append(maintenance.repair(self.db, k.corpus, k.source, full=full, progress=step))
            if full:  # doctor --repair: a faiss index that does not open is rebuilt (derived data)
                k.corpus.maintain_faiss(repair=True)
        self.leases.clear_expired()
        return reports

    def erase_deleted(self) -> ErasureRun | None:
        """Finish erasures a deletion left recorded (a crash or an error): compact, purge, clear."""
        if self.erasure is None:
            return None
        return self.erasure.run(collections=[k.corpus.collection for k in self.kinds])

    def erasure_pending(self) -> int:
        """LanceDB tables whose erasure a deletion recorded and no run finished (0: none)."""
        return self.erasure.pending() if self.erasure is not None else 0

    def maintain_vector_indexes(self) -> dict[str, AnnWork]:
        """Build or refresh each kind's approximate vector index where its size calls for one.

        One process at a time per kind: the work runs under a writer lease of its own
        (`vector-index:<kind>`), and a process that finds another's live lease leaves it be."""
        done: dict[str, AnnWork] = {}
        for k in self.kinds:
            ann = k.corpus.ann()
            # The faiss leg (search.vector_engine) keeps LanceDB's index too: it answers whenever
            # faiss cannot (not built yet, a corrupt file), and its scalar indexes serve filters.
            faiss = k.corpus.vector_engine == "faiss"
            if ann.plan() == "none" and not faiss:
                continue
            lease = f"vector-index:{k.corpus.kind}"
            if self.leases.live(lease):
                continue
            with self.leases.hold(lease):
                if len(self.leases.live(lease)) > 1:
                    continue  # another process started at the same moment; it does the work
                if ann.plan() != "none":
                    done[k.name] = work = ann.maintain()
                    log.info("vector index of %s: %s in %.1f s", k.name, work.action, work.seconds)
                if faiss:
                    started = time.perf_counter()
                    faiss_work = k.corpus.maintain_faiss()
                    if faiss_work.action != "none":
                        log.info(
                            "faiss index of %s: %s (+%d / -%d rows) in %.1f s",
                            k.name,
                            faiss_work.action,
                            faiss_work.added,
                            faiss_work.removed,
                            time.perf_counter() - started,
                        )
        return done

    def prune_vector_versions(self, refreshed: Collection[str] = ()) -> dict[str, PruneReport]:
        """Drop each kind's vector-table versions replaced long enough ago that no reader in any
        process can still need them (rewritten rows, a replaced index; `vector_prune`).

        A kind with an approximate index is pruned only right after its refresh (`refreshed`: kind
        names, as doctor prints them): LanceDB prunes only inside `optimize`, whose first run after
        a build rewrites the index into one that costs ~3x the CPU a search at 1M rows
        (docs/benchmarks.md, "Disk after an index swap"); after a refresh that has happened already.
        Under the same lease as the index work, so it never runs beside another process's build."""
        done: dict[str, PruneReport] = {}
        for k in self.kinds:
            collection = k.corpus.collection
            if not vector_prune.due(collection, margin=self.prune_margin, settle=self.prune_settle):
                continue
            if k.name not in refreshed and k.corpus.ann().status().index_type is not None:
                continue
            lease = f"vector-index:{k.corpus.kind}"
            if self.leases.live(lease) or self.leases.live(k.corpus.kind):
                continue  # another process's index work, or a writer of the kind, right now
            with self.leases.hold(lease):
                if len(self.leases.live(lease)) > 1:
                    continue
                report = vector_prune.prune(collection, margin=self.prune_margin, settle=self.prune_settle)
            if report is not None:
                done[k.name] = report
        return done

    def vector_files(self) -> dict[str, FileStatus]:
        """Per kind with a memory-mapped vector file (`message`): rows, rows it serves, bytes."""
        return vector_files.statuses(self.kinds)

    def maintain_vector_files(self, *, force: bool = False) -> dict[str, BuildReport]:
        """Build the memory-mapped vector files that are due (`force`: drop and rebuild them)."""
        return vector_files.maintain(self.kinds, self.leases, force=force, checked=self._file_versions)

    def run_vector_file_job(self, now: float | None = None) -> None:
        """The scheduler's vector-file upkeep (vector_files.py): off every request path, never raising.

        Without any file yet (an archive below the size), LanceDB is asked only every
        `VECTOR_FILE_FIRST_CHECK_S`: the job must not keep reopening what the idle release closed."""
        now = time.monotonic() if now is None else now
        if not vector_files.any_file(self.kinds) and now - self._files_checked_at < VECTOR_FILE_FIRST_CHECK_S:
            return
        self._files_checked_at = now
        try:
            self.maintain_vector_files()
        except Exception:
            log.exception("building the memory-mapped vector file failed; the next run retries")

    def keyword_format(self) -> ReindexStatus | None:
        """Whether the messages' keyword entries are in the current body format, and how far the
        reindex that brings them there has come (None: no reindex wired)."""
        return self.keyword_reindex.status() if self.keyword_reindex is not None else None

    def reindex_keywords(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Rewrite now the keyword entries still in an older format (doctor --repair); the count."""
        if self.keyword_reindex is None:
            return 0
        return self.keyword_reindex.run(stop=self._stop, progress=progress)

    def close(self) -> None:
        self._stop.set()
        if self.erasure is not None:
            self.erasure.close()

    # -- background ---------------------------------------------------------------------------
    def run_keyword_reindex_job(self) -> None:
        """The scheduler's keyword reindex: batches off every request path, resumable, never raising."""
        try:
            self.reindex_keywords()
        except Exception:
            log.exception("keyword reindex failed; the next run goes on from where it stopped")

    def run_repair_job(self) -> None:
        """The scheduler's repair: off every request path, logged, never raising into the scheduler."""
        try:
            for report in self.repair():
                if report.reembedded or report.orphans_removed or report.keywords_rebuilt:
                    log.warning("index repaired: %s", report.to_dict())
        except Exception:
            log.exception("index repair failed; the next run retries")
        try:
            run = self.erase_deleted()
            if run is not None and run.fragments:
                log.warning("erased deleted rows: %d fragment(s) rewritten", run.fragments)
        except Exception:
            log.exception("erasing deleted rows failed; the next run retries")

    def run_vector_index_job(self) -> None:
        """The scheduler's vector-index upkeep, then the old versions' removal: off every request
        path, never raising."""
        work: dict[str, AnnWork] = {}
        try:
            work = self.maintain_vector_indexes()
        except Exception:
            log.exception("vector index upkeep failed; the next run retries")
        try:
            self.prune_vector_versions(refreshed={name for name, w in work.items() if w.action == "refresh"})
        except Exception:
            log.exception("dropping old vector versions failed; the next run retries")

    def schedule(self, scheduler: Any, *, minutes: int = 30, index_minutes: int = 10) -> None:
        """Repair once right after start-up (in the background), then every `minutes`."""
        if self.erasure is not None:
            # A host answers deletions at once; the tables are compacted on a worker.
            self.erasure.start_background()
        self._job = scheduler.add_job(
            self.run_repair_job,
            "interval",
            minutes=minutes,
            id=REPAIR_JOB_ID,
            replace_existing=True,
            max_instances=1,
            coalesce=True,
            # A few seconds after start-up, so opening the app never waits for it.
            next_run_time=datetime.now(UTC) + timedelta(seconds=5),
        )
        # Checking costs a few metadata reads; building runs only past the size threshold.
        scheduler.add_job(
            self.run_vector_index_job,
            "interval",
            minutes=index_minutes,
            id=VECTOR_INDEX_JOB_ID,
            replace_existing=True,
            max_instances=1,
            coalesce=True,
            next_run_time=datetime.now(UTC) + timedelta(seconds=60),
        )
        # A table version read a minute while nothing changes; after a compaction (a deletion's
        # purge at 1M rewrites every row) the file is rebuilt within the minute (~16-26 s at 1M).
        scheduler.add_job(
            self.run_vector_file_job,
            "interval",
            seconds=VECTOR_FILE_SECONDS,
            id=VECTOR_FILE_JOB_ID,
            replace_existing=True,
            max_instances=1,
            coalesce=True,
            next_run_time=datetime.now(UTC) + timedelta(seconds=90),
        )
        if self.keyword_reindex is not None:
            # Once per format change, in batches; a no-op status read on every later run.
            scheduler.add_job(
                self.run_keyword_reindex_job,
                "interval",
                minutes=minutes,
                id=KEYWORD_REINDEX_JOB_ID,
                replace_existing=True,
                max_instances=1,
                coalesce=True,
                next_run_time=datetime.now(UTC) + timedelta(seconds=10),
            )
