"""Cold start: the window answers (search box, sidebar) before the heavy libraries are imported.

The import checks run in fresh interpreters (this test process has imported everything); the
loading page is tested in-process on real services attached after the window is up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

from PySide6.QtCore import QSettings, Qt

from app.ui.app import attach, build_window
from tests.cli.test_cli_startup import HEAVY as CLI_HEAVY
from tests.conftest import PROJECT_ROOT
from tests.ui.helpers import seed, settle

# What the services import on a worker thread once the window is up: the CLI's list, less Qt
# (the window needs it) and the tokenizer library (imported with the model).
HEAVY = tuple(m for m in CLI_HEAVY if m not in ("PySide6", "tokenizers"))

WINDOW_PROBE = """
import json, sys
from PySide6.QtCore import Qt
import app.cli.main  # what the console script imports first
from app.ui.app import build_window, ensure_qapp
qapp = ensure_qapp()
window = build_window(None)
window.show()
qapp.processEvents()
box = window.loading.query_edit
print(json.dumps({
    "heavy": sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY)),
    "sidebar": [window.sidebar.item(i).text() for i in range(window.sidebar.count())],
    "search_box": box.isVisible() and box.isEnabled() and box.focusPolicy() != Qt.FocusPolicy.NoFocus,
}))
""".replace("HEAVY", repr(HEAVY))


def _env(tmp_path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),  # QSettings of the child: not the developer's
        **extra,
    }


def test_window_is_up_before_any_heavy_import(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", WINDOW_PROBE],
        cwd=PROJECT_ROOT,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    probe = json.loads(out.stdout.strip().splitlines()[-1])
    assert probe["heavy"] == []
    assert probe["sidebar"][0] == "Search" and len(probe["sidebar"]) == 7
    assert probe["search_box"] is True


def test_strata_ui_answers_first_then_opens_the_services(tmp_path):
    """The real command: `python -m app --data-dir D ui`, timed by its STRATA_UI_TRACE lines."""
    env = _env(
        tmp_path,
        STRATA_UI_TRACE="1",
        STRATA_EMBEDDING__PROVIDER="hashing",
        STRATA_API__ENABLED_IN_APP="false",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "--data-dir", str(tmp_path / "data"), "ui"],
        cwd=PROJECT_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    events: dict[str, str] = {}
    lines: list[str] = []
    done = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            parts = line.split(" ", 3)
            if parts[0] == "strata-ui-trace":
                events[parts[1]] = parts[3].strip() if len(parts) > 3 else ""
                if parts[1] in ("services", "failed"):
                    done.set()
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert done.wait(150), "".join(lines[-20:])
    finally:
        proc.terminate()
        proc.wait(20)
        reader.join(5)
    assert "failed" not in events, "".join(lines[-20:])
    assert events.get("window") == "none"  # nothing heavy when the window first answered
    assert "services" in events


def test_sidebar_and_search_box_work_before_the_services(qtbot):
    window = build_window(None)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert not window.ready and window.current_key() == "search"
    flags = [window.sidebar.item(i).flags() for i in range(window.sidebar.count())]
    assert flags[0] & Qt.ItemFlag.ItemIsEnabled
    assert not any(f & Qt.ItemFlag.ItemIsEnabled for f in flags[1:])  # enabled when ready
    qtbot.keyClick(window.windowHandle(), Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert window.current_key() == "search"
    window.focus_search("launch")
    assert window.loading.query_edit.text() == "launch"
    window.show_failure("Could not open the data directory.\nIt is read-only.")
    assert "read-only" in window.loading.status.text()


def test_text_typed_while_loading_is_searched_when_services_attach(qtbot, services):
    seed(services)
    QSettings().setValue("window/screen", "memory")  # typing wins over the remembered screen
    window = build_window(None, debug=True)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitActive(window)
    box = window.loading.query_edit
    box.setFocus()
    qtbot.keyClicks(box, "budget")
    box.setCursorPosition(3)
    attach(window, services)
    assert window.ready and window.current_key() == "search"
    screen = window.screens["search"]
    assert screen.query_edit.text() == "budget" and screen.query_edit.cursorPosition() == 3
    assert not screen.query_edit.hasSelectedText()  # typing on does not replace the query
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0, timeout=5000)
    assert all(
        window.sidebar.item(i).flags() & Qt.ItemFlag.ItemIsEnabled for i in range(window.sidebar.count())
    )
    settle(qtbot)
    assert window.ctx.guard.violations == []


def test_untouched_loading_page_restores_the_last_screen(qtbot, services):
    QSettings().setValue("window/screen", "memory")
    window = build_window(None)
    qtbot.addWidget(window)
    attach(window, services)
    assert window.current_key() == "memory"
    settle(qtbot)
