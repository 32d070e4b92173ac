"""Missing Qt platform libraries are found before Qt starts and named with their packages."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from app.ui.qt_libs import (
    MissingLibraries,
    missing_libraries,
    package_for,
    parse_ldd,
    report,
    uses_xcb,
    xcb_plugin,
)
from tests.conftest import PROJECT_ROOT

LDD_OUTPUT = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /x/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f)
\tlibxcb-cursor.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb-cursor.so.0 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)
"""


def test_ldd_output_gives_each_missing_library_once():
    assert parse_ldd(LDD_OUTPUT) == ("libxcb-cursor.so.0", "libxcb-icccm.so.4")
    assert parse_ldd("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == ()


def test_message_names_debian_and_fedora_packages():
    text = MissingLibraries(parse_ldd(LDD_OUTPUT)).message()
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4" in text
    assert "sudo dnf install xcb-util-cursor xcb-util-wm" in text
    assert "strata search" in text  # what still works meanwhile
    # A library not in the table still gets Debian's naming rule, not silence.
    assert package_for("libfoo-bar.so.2") == ("libfoo-bar2", "libfoo-bar")
    assert package_for("libxcb-xinput.so.0") == ("libxcb-xinput0", "libxcb")


def test_only_an_x11_start_is_checked():
    assert uses_xcb({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}) is False
    assert uses_xcb({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland", "DISPLAY": ":0"}) is False
    if sys.platform.startswith("linux"):
        assert uses_xcb({"DISPLAY": ":0"}) is True
        assert uses_xcb({"QT_QPA_PLATFORM": "xcb"}) is True
        assert uses_xcb({}) is False


@pytest.mark.skipif(
    shutil.which("ldd") is None or xcb_plugin() is None, reason="needs ldd and the xcb plug-in"
)
def test_probe_agrees_with_ldd_on_the_real_plugin():
    plugin = xcb_plugin()
    out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, check=False).stdout
    expected = parse_ldd(out)
    found = missing_libraries(plugin)
    assert (found.libraries if found else ()) == expected


def test_report_writes_the_terminal_and_the_log(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))  # no notify-send here: still reported
    text = report(MissingLibraries(("libxcb-cursor.so.0",)), tmp_path / "logs")
    assert "libxcb-cursor0" in capsys.readouterr().err
    assert text in (tmp_path / "logs" / "ui.log").read_text(encoding="utf-8")


@pytest.mark.skipif(
    shutil.which("ldd") is None or xcb_plugin() is None, reason="needs ldd and the xcb plug-in"
)
def test_strata_ui_on_x11_without_the_libraries_says_what_to_install(tmp_path):
    """The real command, asked for the X11 plug-in: when this machine lacks its libraries, Strata
    names the packages and exits 3 instead of letting Qt abort."""
    missing = missing_libraries()
    if missing is None:
        pytest.skip("this machine has every library the xcb plug-in needs")
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "DISPLAY": ":99", "PATH": os.environ.get("PATH", "")}
    done = subprocess.run(
        [sys.executable, "-m", "app", "--data-dir", str(tmp_path / "d"), "ui"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3
    flat = " ".join(done.stderr.split())
    assert "sudo apt install" in flat and missing.debian[0] in flat
    assert (tmp_path / "d" / "logs" / "ui.log").exists()
