"""The scheduled jobs a person paused, kept per data dir and honoured by every scheduler host.

The desktop app's Settings writes the set; `strata serve` and the app both apply it when their
scheduler starts, so a job paused in the app stays paused when the same data dir is served headless.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.core.memory_files.store import atomic_write

# The name predates headless hosts honouring it; kept so existing pauses survive the upgrade.
PAUSED_FILE = "ui-paused-jobs.json"


class PausedJobs:
    """The set of job ids the user paused, stored next to the data it concerns."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / PAUSED_FILE

    def load(self) -> set[str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return set()  # absent or damaged: nothing paused (jobs run, as by default)
        return {str(i) for i in data.get("paused", [])} if isinstance(data, dict) else set()

    def save(self, ids: set[str]) -> None:
        atomic_write(self.path, json.dumps({"paused": sorted(ids)}).encode("utf-8"))
