"""`strata doctor`'s sentence-key step: an estimate up front, a progress bar with ETA, Ctrl-C keeps the work.

An archive built in bulk (or imported with `search.sentence_keys` off) has messages without their
sentence keys, and doctor's repair embeds them all: at 1M messages that is hours on two cores
(~150 messages a second; docs/benchmarks.md, "doctor on an archive without sentence keys").
Before the other repairs doctor therefore says how many messages wait, about how many keys that
makes and how long it takes here, measured on a small sample of them, then builds them through the
keys' own backlog with a progress bar. Ctrl-C stops after the batch in flight, which is written
and stamped: the next `strata doctor` goes on from there. `--skip-keys` leaves them to the
background job of the app or `strata serve` and runs only the other checks and repairs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from app.cli.context import console, progress_bar

SAMPLE_MESSAGES = 64  # messages whose keys are embedded (and discarded) to measure the rate


@dataclass(frozen=True, slots=True)
class KeysStep:
    pending: int  # messages without sentence keys when doctor started
    keys_estimate: int  # about how many keys those make (from the sample)
    seconds_estimate: float | None  # at the rate measured on the sample
    built: int  # messages whose keys this run built
    seconds: float
    stopped: bool  # Ctrl-C: what was built is kept
    busy_with: str | None = None  # another process is building them

    def to_dict(self) -> dict[str, object]:
        return {
            "pending": self.pending,
            "keys_estimate": self.keys_estimate,
            "seconds_estimate": round(self.seconds_estimate, 1)
            if self.seconds_estimate is not None
            else None,
            "built": self.built,
            "seconds": round(self.seconds, 1),
            "stopped": self.stopped,
            "busy_with": self.busy_with,
        }


def duration(seconds: float) -> str:
    """`seconds` as a person reads it: 40 s, 12 min, 3 h 05 min."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def pending_keys(svc: Any) -> int:
    """Messages whose sentence keys are missing or stale (0 without sentence keys)."""
    keys = svc.memory.keys
    return keys.backlog.pending() if keys is not None else 0


def estimate(svc: Any, pending: int) -> tuple[int, float | None]:
    """About how many keys the `pending` messages make and how long embedding them takes, from
    the keys of the first `SAMPLE_MESSAGES` of them embedded once now (nothing is written)."""
    keys = svc.memory.keys
    backlog = keys.backlog
    with svc.db.read() as session:
        ids = backlog.source.pending(session, 0, SAMPLE_MESSAGES)
        docs = backlog.source.documents(session, [str(i) for i in ids])
    texts = [d.document for d in docs if d.document]
    if not ids:
        return 0, None
    started = time.perf_counter()
    if texts:
        keys.corpus.embedder.embed_documents(texts)
    elapsed = time.perf_counter() - started
    per_message = len(texts) / len(ids)
    rate = len(ids) / elapsed if elapsed > 0 else None  # messages a second
    return round(per_message * pending), (pending / rate if rate else None)


def build_missing_keys(svc: Any, *, quiet: bool) -> KeysStep | None:
    """Build the sentence keys of messages without them (None: nothing to build)."""
    keys = svc.memory.keys
    pending = pending_keys(svc)
    if keys is None or not pending:
        return None
    total_keys, seconds = estimate(svc, pending)
    if not quiet:
        took = f", about {duration(seconds)} on this machine" if seconds is not None else ""
        console.print(
            f"sentence keys: {pending:,} message(s) have none yet "
            f"(about {total_keys:,} keys to embed{took}). "
            "Ctrl-C stops and keeps what is built; the next `strata doctor` goes on from there. "
            "`strata doctor --skip-keys` runs the other checks and repairs without them (the app or "
            "`strata serve` then builds them in the background)."
        )
    started = time.perf_counter()
    stopped = False
    status = None
    with progress_bar("building sentence keys", pending, enabled=not quiet) as update:
        try:
            # The keys' own backlog worker builds them (pipelined, stamped batch by batch).
            status = keys.wait(None, lambda s: update(max(0, pending - s.pending)))
        except KeyboardInterrupt:
            stopped = True
            keys.backlog.close()  # after the batch in flight, which is written and stamped
    left = pending_keys(svc)
    busy = status.drainer if status is not None and status.pending and status.drainer else None
    if status is not None and status.error is not None:
        busy = None
        if not quiet:
            console.print(f"[yellow]building sentence keys stopped:[/yellow] {status.error}")
    built, spent = max(0, pending - left), time.perf_counter() - started
    step = KeysStep(pending, total_keys, seconds, built, spent, stopped, busy)
    if not quiet:
        if stopped:
            console.print(
                f"stopped: keys of {step.built:,} message(s) built and kept, {left:,} left. Run "
                "`strata doctor` again to go on, or `strata doctor --skip-keys` for the other repairs."
            )
        elif busy:
            console.print(
                f"[dim]another Strata process (pid {busy.split(':')[0]}) is building the remaining "
                f"{left:,} message(s)' keys[/dim]"
            )
    return step
