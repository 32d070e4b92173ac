"""Background operations deliver results, failures and progress on the GUI thread."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QObject, QThread

from app.ui.events import DOCUMENTS, MESSAGES, Changes, UiEvents
from app.ui.ops import GuiThreadGuard, MutateOp, QueryOp, on_gui_thread


def _gui_thread():
    from PySide6.QtCore import QCoreApplication

    return QCoreApplication.instance().thread()


def test_query_op_runs_off_gui_thread_and_delivers_on_it(qtbot):
    seen = {}

    def work():
        seen["worker"] = threading.get_ident()
        seen["worker_on_gui"] = on_gui_thread()
        return 42

    def done(value):
        seen["value"] = value
        seen["callback_on_gui"] = QThread.currentThread() is _gui_thread()

    QueryOp(parent=None, op=work, success=done).run_in_background()
    qtbot.waitUntil(lambda: "value" in seen, timeout=5000)
    assert seen == {
        "worker": seen["worker"],
        "worker_on_gui": False,
        "value": 42,
        "callback_on_gui": True,
    }
    assert seen["worker"] != threading.get_ident()


def test_failure_reaches_callback_with_the_exception(qtbot):
    errors = []

    def boom():
        raise ValueError("bad input")

    QueryOp(parent=None, op=boom, success=lambda v: None).failure(errors.append).run_in_background()
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    assert isinstance(errors[0], ValueError)
    assert "bad input" in str(errors[0])


def test_progress_is_reported_in_order_on_gui_thread(qtbot):
    reports = []
    done = []

    def work(progress):
        for i in range(1, 4):
            progress(i, 3, f"step {i}")
        return "ok"

    (
        QueryOp(parent=None, op=work, success=done.append)
        .with_progress(lambda d, t, label: reports.append((d, t, label, on_gui_thread())))
        .run_in_background()
    )
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert reports == [(1, 3, "step 1", True), (2, 3, "step 2", True), (3, 3, "step 3", True)]


def test_mutate_op_publishes_changes_after_success(qtbot):
    events = UiEvents()
    received = []
    events.changed.connect(received.append)
    MutateOp(parent=None, op=lambda: None, changes=[MESSAGES], events=events).run_in_background()
    qtbot.waitUntil(lambda: bool(received), timeout=5000)
    assert received == [Changes.of(MESSAGES)]


def test_subscribe_filters_by_kind_and_dies_with_view(qtbot):
    events = UiEvents()
    view = QObject()
    got = []
    events.subscribe(view, {DOCUMENTS}, got.append)
    events.publish(Changes.of(MESSAGES))
    events.publish(Changes.of(DOCUMENTS, MESSAGES))
    assert len(got) == 1
    view.deleteLater()
    qtbot.waitUntil(lambda: not _alive(view), timeout=2000)
    events.publish(Changes.of(DOCUMENTS))
    assert len(got) == 1


def _alive(obj):
    import shiboken6

    return shiboken6.isValid(obj)


def test_unknown_change_kind_is_refused():
    with pytest.raises(ValueError, match="unknown change kinds"):
        Changes.of("nope")


def test_result_dropped_when_parent_widget_is_gone(qtbot):
    from PySide6.QtWidgets import QWidget

    widget = QWidget()
    called = []
    gate = threading.Event()
    QueryOp(parent=widget, op=lambda: gate.wait(5), success=called.append).run_in_background()
    widget.deleteLater()
    qtbot.waitUntil(lambda: not _alive(widget), timeout=2000)
    gate.set()
    from app.ui.ops import wait_for_pool

    wait_for_pool()
    qtbot.wait(50)
    assert called == []


def test_guard_records_gui_thread_calls_and_allows_worker_calls(qtbot):
    class Service:
        def lookup(self):
            return "x"

    guard = GuiThreadGuard()
    svc = guard.wrap(Service(), "memory")
    assert svc.lookup() == "x"
    assert guard.violations == ["memory.lookup"]
    out = []
    QueryOp(parent=None, op=svc.lookup, success=out.append).run_in_background()
    qtbot.waitUntil(lambda: bool(out), timeout=5000)
    assert guard.violations == ["memory.lookup"]
    assert guard.calls_off_gui == 1
    strict = GuiThreadGuard(strict=True)
    with pytest.raises(AssertionError, match="GUI thread"):
        strict.wrap(Service(), "memory").lookup()
