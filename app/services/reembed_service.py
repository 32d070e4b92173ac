"""The re-embed job: a planned, resumable move of every kind to the configured model (and "dream").

Plan, then apply (STYLE habit 5). The plan says, per kind, how many rows the target model still
lacks (a model change) or how many vectors were made from an older version of their row (the
specification's "dream" pass, same model). Applying embeds those rows in batches into the
target model's collection while search goes on using the active model's vectors; progress is
the target collection itself, so a stopped job resumes where it was. When every kind is
complete, one transaction makes the target the active model (index_state, stamps, audit row)
and the shared SwitchableEmbedder switches this process's search, ingest and repair at once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.core.clock import Clock
from app.core.embeddings.base import Embedder
from app.core.embeddings.switchable import SwitchableEmbedder
from app.core.index import maintenance
from app.core.index.state import ActiveModel, write_active
from app.core.storage import audit
from app.core.storage.db import chunked
from app.services.index_service import IndexedKind, IndexService

log = logging.getLogger(__name__)

JOB_ID = "index-reembed"
BATCH = 128
DREAM_EVERY_S = 24 * 3600
Progress = Callable[[str, int, int], None]  # kind, done, total


@dataclass(frozen=True, slots=True)
class KindPlan:
    kind: str
    rows: int
    done: int  # rows the target model already has a current vector for
    todo: tuple[str, ...]  # keys to embed

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "rows": self.rows, "done": self.done, "todo": len(self.todo)}


@dataclass(frozen=True, slots=True)
class ReembedPlan:
    active_model: str
    active_dimensions: int
    target_model: str
    target_dimensions: int
    kinds: tuple[KindPlan, ...]

    @property
    def switch(self) -> bool:
        """A model change (as opposed to a same-model "dream" pass)."""
        return (self.active_model, self.active_dimensions) != (self.target_model, self.target_dimensions)

    @property
    def todo(self) -> int:
        return sum(len(k.todo) for k in self.kinds)

    def to_dict(self) -> dict[str, object]:
        return {
            "active_model": self.active_model,
            "active_dimensions": self.active_dimensions,
            "target_model": self.target_model,
            "target_dimensions": self.target_dimensions,
            "switch": self.switch,
            "todo": self.todo,
            "kinds": [k.to_dict() for k in self.kinds],
        }


@dataclass(frozen=True, slots=True)
class ReembedResult:
    plan: ReembedPlan
    embedded: int
    switched: bool

    def to_dict(self) -> dict[str, object]:
        return {"plan": self.plan.to_dict(), "embedded": self.embedded, "switched": self.switched}


class ReembedService:
    def __init__(
        self,
        index: IndexService,
        active: SwitchableEmbedder,
        target: Embedder,
        target_settings: dict[str, Any],
        clock: Clock,
        *,
        user_id: str,
    ) -> None:
        self.index = index
        self.active = active
        self.target = target
        self.target_settings = target_settings
        self.clock = clock
        self.user_id = user_id
        self._lock = threading.Lock()  # one apply at a time in this process
        self._progress: dict[str, dict[str, int]] = {}
        self._running = False
        self._last_dream = 0.0
        self._job: Any = None
        self._embedded_hashes: dict[str, dict[str, str]] = {}  # kind -> key -> hash embedded

    # -- plan ---------------------------------------------------------------------------------
    def plan(self) -> ReembedPlan:
        """What applying would do now; pure (reads only)."""
        switch = (self.active.model_id, self.active.dimensions) != (
            self.target.model_id,
            self.target.dimensions,
        )
        kinds = tuple(self._plan_kind(k, switch) for k in self.index.kinds)
        return ReembedPlan(
            self.active.model_id, self.active.dimensions, self.target.model_id, self.target.dimensions, kinds
        )

    def _plan_kind(self, k: IndexedKind, switch: bool) -> KindPlan:
        db = self.index.db
        if not switch:
            # Dream: vectors made from an older version of their row (or missing ones).
            drift = maintenance.find_drift(db, k.corpus, k.source, full=True)
            todo = sorted(set(drift.missing) | set(drift.stale))
            return KindPlan(k.corpus.kind, drift.rows, drift.rows - len(todo), tuple(todo))
        with db.read() as session:
            keys = k.source.keys(session)
        target = k.corpus.collection_for(self.target.model_id, self.target.dimensions)
        done = keys & set(target.keys())
        return KindPlan(k.corpus.kind, len(keys), len(done), tuple(sorted(keys - done)))

    # -- apply --------------------------------------------------------------------------------
    def apply(
        self, plan: ReembedPlan, *, progress: Progress | None = None, actor: str = "reembed"
    ) -> ReembedResult:
        """Embed what `plan` lists with the target model; switch when the target set is complete."""
        with self._lock:
            self._running = True
            try:
                return self._apply(plan, progress, actor)
            finally:
                self._running = False

    def _apply(self, plan: ReembedPlan, progress: Progress | None, actor: str) -> ReembedResult:
        embedded = 0
        self._embedded_hashes = {}
        for _round in range(3):  # rows written meanwhile show up in the next plan
            for kind_plan in plan.kinds:
                embedded += self._embed_kind(kind_plan, plan.switch, progress)
            if not plan.switch:
                self._audit(plan, embedded, actor, switched=False)
                return ReembedResult(plan, embedded, switched=False)
            plan = self.plan()
            if plan.todo == 0 or not plan.switch:
                break
        if plan.switch and plan.todo == 0:
            embedded += self._catch_up_edits()
            self._switch(plan, embedded, actor)
            return ReembedResult(plan, embedded, switched=True)
        return ReembedResult(plan, embedded, switched=False)

    def _embed_kind(self, kind_plan: KindPlan, switch: bool, progress: Progress | None) -> int:
        k = next(k for k in self.index.kinds if k.corpus.kind == kind_plan.kind)
        db, done, total = self.index.db, 0, len(kind_plan.todo)
        self._progress[kind_plan.kind] = {"done": 0, "total": total}
        if total == 0:
            return 0
        if not switch:  # dream: same model, through the repair path (stamps included)
            done = maintenance.reembed(db, k.corpus, k.source, list(kind_plan.todo))
            self._progress[kind_plan.kind] = {"done": done, "total": total}
            return done
        target = k.corpus.collection_for(self.target.model_id, self.target.dimensions)
        for part in chunked(list(kind_plan.todo), BATCH):
            with db.read() as session:
                docs = k.source.documents(session, part)
            if docs:
                vectors = self.target.embed_documents([d.document for d in docs])
                k.corpus.put_vectors(docs, vectors, target)
                self._embedded_hashes.setdefault(k.corpus.kind, {}).update(
                    (d.key, d.content_hash) for d in docs
                )
            done += len(part)
            self._progress[kind_plan.kind] = {"done": done, "total": total}
            if progress:
                progress(kind_plan.kind, done, total)
        return done

    def _catch_up_edits(self) -> int:
        """Rows edited while the job ran got a new vector of the *active* model only: embed their
        current text with the target model too, just before the switch (rows of this run)."""
        again = 0
        for k in self.index.kinds:
            embedded = self._embedded_hashes.get(k.corpus.kind, {})
            target = k.corpus.collection_for(self.target.model_id, self.target.dimensions)
            for part in chunked(sorted(embedded), BATCH):
                with self.index.db.read() as session:
                    changed = [
                        d for d in k.source.documents(session, part) if d.content_hash != embedded[d.key]
                    ]
                if changed:
                    k.corpus.put_vectors(
                        changed, self.target.embed_documents([d.document for d in changed]), target
                    )
                    again += len(changed)
        return again

    def _switch(self, plan: ReembedPlan, embedded: int, actor: str) -> None:
        old = (plan.active_model, plan.active_dimensions)
        new = (self.target.model_id, self.target.dimensions)
        with self.index.db.write() as session:
            write_active(session, ActiveModel(*new, self.target_settings), self.clock.now_ms())
            for k in self.index.kinds:
                k.source.restamp(session, old[0], *new)
            self._audit_in(session, plan, embedded, actor, switched=True)
        self.active.switch(self.target)
        # The previous model's vectors are dead weight now (repair never reads them again).
        for k in self.index.kinds:
            k.corpus.vectors.drop(k.corpus.spec.collection, *old)
        log.info("search switched from %s to %s", old, new)

    def _audit(self, plan: ReembedPlan, embedded: int, actor: str, *, switched: bool) -> None:
        with self.index.db.write() as session:
            self._audit_in(session, plan, embedded, actor, switched=switched)

    def _audit_in(
        self, session: Any, plan: ReembedPlan, embedded: int, actor: str, *, switched: bool
    ) -> None:
        audit.record(
            session,
            user_id=self.user_id,
            at=self.clock.now_ms(),
            actor=actor,
            action="reembed_switch" if switched else "reembed",
            entity_type="index",
            entity_id=f"{plan.active_model}->{plan.target_model}",
            details={"embedded": embedded, "kinds": [k.to_dict() for k in plan.kinds]},
        )

    # -- status and schedule ------------------------------------------------------------------
    def status(self) -> dict[str, object]:
        """For the UI/REST: models, whether a switch is pending, and the running job's progress."""
        pending = (self.active.model_id, self.active.dimensions) != (
            self.target.model_id,
            self.target.dimensions,
        )
        return {
            "active_model": self.active.model_id,
            "active_dimensions": self.active.dimensions,
            "target_model": self.target.model_id,
            "target_dimensions": self.target.dimensions,
            "switch_pending": pending,
            "running": self._running,
            "progress": {k: dict(v) for k, v in self._progress.items()},
        }

    def run_job(self) -> None:
        """The scheduler's entry: a pending model change at every run, the dream pass once a day."""
        if self._running:
            return
        try:
            plan = self.plan() if self._due() else None
            if plan is not None and plan.todo:
                result = self.apply(plan, actor="scheduler")
                log.warning("re-embed job: %s", result.to_dict())
        except Exception:
            log.exception("re-embed job failed; the next run resumes it")

    def _due(self) -> bool:
        pending = (self.active.model_id, self.active.dimensions) != (
            self.target.model_id,
            self.target.dimensions,
        )
        if pending:
            return True
        if time.monotonic() - self._last_dream >= DREAM_EVERY_S:
            self._last_dream = time.monotonic()
            return True
        return False

    def schedule(self, scheduler: Any, *, minutes: int = 30) -> None:
        self._job = scheduler.add_job(
            self.run_job, "interval", minutes=minutes, id=JOB_ID, replace_existing=True,
            max_instances=1, coalesce=True,
        )  # fmt: skip
