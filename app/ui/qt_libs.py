"""Before Qt starts: find the system libraries the X11 (xcb) plug-in lacks and name their packages.

Qt aborts the process (it does not raise) when its platform plug-in cannot load, and says why only
on the terminal, in Qt's words. So the check runs before any QApplication exists and imports no Qt
module: it asks `ldd` which libraries the bundled `libqxcb.so` cannot resolve.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

# Library soname → (Debian/Ubuntu package, Fedora package). The xcb plug-in's usual gaps first.
PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libSM.so.6": ("libsm6", "libSM"),
    "libICE.so.6": ("libice6", "libICE"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
}
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class MissingLibraries:
    """What the xcb plug-in cannot load, and the packages that provide it."""

    libraries: tuple[str, ...]

    @property
    def debian(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(package_for(lib)[0] for lib in self.libraries))

    @property
    def fedora(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(package_for(lib)[1] for lib in self.libraries))

    def message(self) -> str:
        return (
            "Strata cannot open its window: the Qt X11 plug-in needs system libraries that are not "
            f"installed ({', '.join(self.libraries)}).\n"
            f"  Debian/Ubuntu:  sudo apt install {' '.join(self.debian)}\n"
            f"  Fedora:         sudo dnf install {' '.join(self.fedora)}\n"
            "Then start Strata again. Your data is untouched; `strata search` and `strata serve` "
            "work without a window."
        )


def package_for(library: str) -> tuple[str, str]:
    """(Debian, Fedora) package names for a soname; unknown names get Debian's naming rule."""
    if library in PACKAGES:
        return PACKAGES[library]
    # Debian names most libraries after their soname: libfoo-bar.so.2 → libfoo-bar2.
    match = re.match(r"^(lib[\w.+-]+?)\.so\.(\d+)", library)
    if not match:
        return library, library
    stem, major = match.groups()
    debian = f"{stem}-{major}" if stem[-1].isdigit() else f"{stem}{major}"
    return debian, stem


def parse_ldd(output: str) -> tuple[str, ...]:
    """The sonames `ldd` reports as "not found", each once, in order."""
    return tuple(dict.fromkeys(_NOT_FOUND.findall(output)))


def xcb_plugin() -> Path | None:
    """The bundled `libqxcb.so`, found without importing Qt."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        for candidate in (Path(root) / "Qt" / "plugins", Path(root) / "plugins"):
            plugin = candidate / "platforms" / "libqxcb.so"
            if plugin.exists():
                return plugin
    return None


def uses_xcb(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """Would Qt pick the X11 plug-in here? Not on macOS/Windows, offscreen or a Wayland session."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return False
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform:
        return platform.split(";")[0].split(":")[0] == "xcb"
    # Qt 6 prefers its Wayland plug-in on a Wayland session; xcb is then only a fallback.
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE", "") == "wayland":
        return False
    return bool(env.get("DISPLAY"))


def missing_libraries(plugin: Path | None = None) -> MissingLibraries | None:
    """The libraries the xcb plug-in cannot resolve; None when all load (or we cannot tell)."""
    plugin = plugin or xcb_plugin()
    ldd = shutil.which("ldd")
    if plugin is None or ldd is None:
        return None
    try:
        done = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None  # no verdict: let Qt try, it reports on its own
    missing = parse_ldd(done.stdout)
    return MissingLibraries(missing) if missing else None


def report(missing: MissingLibraries, log_dir: Path | None) -> str:
    """Tell the user without a dialog (Qt cannot show one): terminal, desktop notification, log."""
    text = missing.message()
    print(f"strata: {text}", file=sys.stderr, flush=True)
    notify = shutil.which("notify-send")
    if notify is not None:
        first = "Install: sudo apt install " + " ".join(missing.debian)
        try:
            subprocess.run(
                [
                    notify,
                    "--app-name=Strata",
                    "Strata cannot open its window",
                    first + "\n(see the terminal or log)",
                ],
                timeout=5,
                check=False,
                capture_output=True,
            )
        except (OSError, subprocess.TimeoutExpired):
            log.debug("notify-send failed", exc_info=True)
    if log_dir is not None:
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            with (log_dir / "ui.log").open("a", encoding="utf-8") as handle:
                handle.write(text + "\n")
        except OSError:
            log.debug("could not write the ui log", exc_info=True)
    return text
