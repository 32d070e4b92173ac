"""Where Strata keeps data and finds its bundled resources (also inside a PyInstaller bundle)."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import platformdirs

APP_NAME = "strata"
DATA_DIR_ENV = "STRATA_DATA_DIR"


def default_data_dir() -> Path:
    """`STRATA_DATA_DIR` if set, else the platform's per-user data directory."""
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def project_root() -> Path:
    """The source tree root (or the unpacked bundle root when frozen)."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root)
    return Path(__file__).resolve().parents[2]


def resource_path(*parts: str) -> Path:
    """A file under the plain `resources/` folder, in a checkout or a bundle."""
    return project_root().joinpath("resources", *parts)


class DataLayout:
    """The files and folders inside one data directory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def database(self) -> Path:
        return self.root / "strata.sqlite3"

    @property
    def vectors(self) -> Path:
        return self.root / "vectors.lance"

    @property
    def documents(self) -> Path:
        return self.root / "documents"

    @property
    def memory(self) -> Path:
        """Markdown memory files (people, chats, channels, projects, notes, strategy)."""
        return self.root / "memory"

    @property
    def token_file(self) -> Path:
        return self.root / "api-token"

    @property
    def settings_file(self) -> Path:
        return self.root / "settings.toml"

    @property
    def secrets_file(self) -> Path:
        return self.root / "secrets.json"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def ensure(self) -> DataLayout:
        self.root.mkdir(parents=True, exist_ok=True)
        # Private by default: the directory holds the user's messages.
        with contextlib.suppress(OSError):
            os.chmod(self.root, 0o700)
        return self
