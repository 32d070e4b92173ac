"""Background operations: run service calls on a QThreadPool, deliver results on the GUI thread.

Anki-style usage::

    QueryOp(parent=self, op=lambda: services.memory.search(q), success=self._show).failure(
        self._error
    ).run_in_background()

`op` may accept one argument, a `Progress` callable `(done, total, label)`, whose reports arrive
on the GUI thread through `with_progress(...)`. A `MutateOp` additionally publishes the change
kinds it names on the `UiEvents` bus after success, so views refresh only what changed.
"""

from __future__ import annotations

import inspect
import logging
import threading
import traceback
from collections.abc import Callable, Iterable
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThread, QThreadPool, Signal, Slot

from app.ui.events import Changes, UiEvents

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]

# Ops started and not yet delivered; holding them here keeps the relay QObjects alive.
_RUNNING: set[_Relay] = set()


def on_gui_thread() -> bool:
    """True when called from the thread that owns the QApplication (or when none exists)."""
    app = QCoreApplication.instance()
    return app is None or QThread.currentThread() is app.thread()


def default_pool() -> QThreadPool:
    return QThreadPool.globalInstance()


class _Relay(QObject):
    """Lives on the GUI thread; worker-thread emits arrive here as queued calls."""

    succeeded = Signal(object)
    failed = Signal(object)
    progressed = Signal(int, int, str)

    def __init__(self, op: _BaseOp) -> None:
        super().__init__()
        self._op = op
        self.succeeded.connect(self._on_success)
        self.failed.connect(self._on_failure)
        self.progressed.connect(self._on_progress)

    @Slot(object)
    def _on_success(self, value: object) -> None:
        try:
            self._op._deliver_success(value)
        finally:
            _RUNNING.discard(self)

    @Slot(object)
    def _on_failure(self, exc: object) -> None:
        try:
            self._op._deliver_failure(exc)  # type: ignore[arg-type]
        finally:
            _RUNNING.discard(self)

    @Slot(int, int, str)
    def _on_progress(self, done: int, total: int, label: str) -> None:
        self._op._deliver_progress(done, total, label)


class _Job(QRunnable):
    def __init__(self, fn: Callable[..., Any], wants_progress: bool, relay: _Relay) -> None:
        super().__init__()
        self._fn = fn
        self._wants_progress = wants_progress
        self._relay = relay
        self.setAutoDelete(True)

    def run(self) -> None:
        relay = self._relay
        try:
            result = self._fn(_progress_emitter(relay)) if self._wants_progress else self._fn()
        except BaseException as exc:  # every failure must reach the GUI, never vanish in a worker
            exc.__traceback_text__ = traceback.format_exc()  # type: ignore[attr-defined]
            _emit(relay.failed, exc)
            return
        _emit(relay.succeeded, result)


def _emit(signal: Any, value: object) -> None:
    try:
        signal.emit(value)
    except RuntimeError:
        # The relay is gone only when the application is shutting down; keep the reason in the log.
        log.warning(
            "background result dropped at shutdown: %r\n%s", value, getattr(value, "__traceback_text__", "")
        )


def _progress_emitter(relay: _Relay) -> Callable[..., None]:
    # Core progress callbacks are (done, total | None); ours may add a label. Unknown total → 0.
    def emit(done: int, total: int | None = None, label: str = "") -> None:
        relay.progressed.emit(int(done), int(total or 0), str(label))

    return emit


def _wants_progress(fn: Callable[..., Any]) -> bool:
    try:
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):
        return False
    return len(params) == 1


class _BaseOp:
    def __init__(
        self,
        *,
        parent: QObject | None,
        op: Callable[..., Any],
        success: Callable[[Any], None] | None = None,
        pool: QThreadPool | None = None,
    ) -> None:
        self._parent = parent
        self._op = op
        self._success = success
        self._failure: Callable[[BaseException], None] | None = None
        self._progress: Callable[[int, int, str], None] | None = None
        self._pool = pool

    def failure(self, callback: Callable[[BaseException], None]) -> _BaseOp:
        self._failure = callback
        return self

    def with_progress(self, callback: Callable[[int, int, str], None]) -> _BaseOp:
        self._progress = callback
        return self

    def run_in_background(self) -> None:
        relay = _Relay(self)
        _RUNNING.add(relay)
        job = _Job(self._op, _wants_progress(self._op), relay)
        (self._pool or default_pool()).start(job)

    def _parent_alive(self) -> bool:
        # A screen closed while its op ran: drop the result instead of touching a dead widget.
        return self._parent is None or shiboken6.isValid(self._parent)

    def _deliver_success(self, value: Any) -> None:
        if self._parent_alive() and self._success is not None:
            self._success(value)

    def _deliver_failure(self, exc: BaseException) -> None:
        if self._failure is not None:
            if self._parent_alive():
                self._failure(exc)
            return
        log.error("background operation failed: %s\n%s", exc, getattr(exc, "__traceback_text__", ""))

    def _deliver_progress(self, done: int, total: int, label: str) -> None:
        if self._progress is not None and self._parent_alive():
            self._progress(done, total, label)


class QueryOp(_BaseOp):
    """A read: runs `op` off the GUI thread, calls `success(result)` on the GUI thread."""


class MutateOp(_BaseOp):
    """A write: like QueryOp, then publishes `changes` on the event bus so views refresh."""

    def __init__(
        self,
        *,
        parent: QObject | None,
        op: Callable[..., Any],
        changes: Iterable[str],
        events: UiEvents | None,
        success: Callable[[Any], None] | None = None,
        pool: QThreadPool | None = None,
    ) -> None:
        super().__init__(parent=parent, op=op, success=success, pool=pool)
        self._changes = Changes.of(*changes)
        self._events = events

    def _deliver_success(self, value: Any) -> None:
        super()._deliver_success(value)
        if self._events is not None:
            self._events.publish(self._changes)


def wait_for_pool(pool: QThreadPool | None = None, timeout_ms: int = 10_000) -> bool:
    """Block until queued ops finished (tests and shutdown); results still need event processing."""
    return (pool or default_pool()).waitForDone(timeout_ms)


class GuiThreadGuard:
    """Debug guard: wraps service objects and records every call made on the GUI thread.

    `strict=True` raises AssertionError at the offending call, which is how tests prove that no
    database, model, file or network call blocks the window.
    """

    def __init__(self, *, strict: bool = False) -> None:
        self.strict = strict
        self.violations: list[str] = []
        self.calls_off_gui = 0
        self._lock = threading.Lock()

    def check(self, name: str) -> None:
        if on_gui_thread():
            with self._lock:
                self.violations.append(name)
            if self.strict:
                raise AssertionError(f"service call {name} ran on the GUI thread")
        else:
            with self._lock:
                self.calls_off_gui += 1

    def wrap(self, service: object, name: str) -> object:
        return _GuardedService(service, name, self)


class _GuardedService:
    """Proxy whose callable attributes check the thread before delegating."""

    def __init__(self, target: object, name: str, guard: GuiThreadGuard) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_guard", guard)

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._target, attr)
        if attr.startswith("_") or not callable(value):
            return value
        guard: GuiThreadGuard = self._guard
        label = f"{self._name}.{attr}"

        def call(*args: Any, **kwargs: Any) -> Any:
            guard.check(label)
            return value(*args, **kwargs)

        return call

    def __repr__(self) -> str:
        return f"<guarded {self._name}: {self._target!r}>"
