"""Backup and restore of a data dir while the app runs: SQLite online backup, LanceDB at a version.

A backup folder holds `strata.sqlite3` (SQLite's online backup API: one consistent snapshot, taken
while other processes keep writing), `vectors.lance/` (every table copied at its current version,
taken after the SQLite snapshot, so at worst it holds a few vectors too many, which the start-up
repair drops), the knowledge-base originals, `settings.toml` and `backup.json`. Secrets (the
`secrets.json` fallback store and the API token) are never copied.

Restore copies a backup into an empty data dir; a non-empty one is only replaced with `force`,
and then moved aside first (`<dir>.before-restore-<time>`), so nothing is lost.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lancedb

from app import __version__
from app.core.errors import InvalidInput, StorageError
from app.core.index.lease import PREFIX as LEASE_PREFIX
from app.core.paths import DataLayout
from app.core.storage.vectors import VectorStore

MANIFEST = "backup.json"
FORMAT = "strata-backup/1"


@dataclass(frozen=True, slots=True)
class BackupReport:
    path: Path
    messages: int
    vector_tables: int
    documents: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "messages": self.messages,
            "vectorTables": self.vector_tables,
            "documents": self.documents,
            "seconds": round(self.seconds, 3),
        }


def _require_empty_folder(target: Path) -> None:
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InvalidInput(
            f"{target} already exists and is not an empty folder",
            hint="choose a new folder name; the backup creates it",
        )


def _sqlite_snapshot(source: Path, dest: Path) -> int:
    """SQLite's online backup: a consistent copy even while other connections write."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    out = sqlite3.connect(dest)
    try:
        src.backup(out)  # all pages in one step: one read transaction, one snapshot
        out.execute("PRAGMA journal_mode=DELETE")  # a single self-contained file, no -wal beside it
        # Writer leases belong to processes writing the live store, not to this copy: kept, they
        # would make a restore wait for a writer that never writes here (repair defers to leases).
        out.execute("DELETE FROM locks WHERE key LIKE ?", (f"{LEASE_PREFIX}%",))
        out.commit()
        count = out.execute("SELECT count(*) FROM raw_messages").fetchone()[0]
    finally:
        out.close()
        src.close()
    return int(count)


def _vector_snapshot(vectors: VectorStore, dest: Path) -> int:
    """Each LanceDB table as of its current version, rewritten as a fresh one-version table."""
    out = lancedb.connect(str(dest))
    names: list[str] = []
    token: str | None = None
    while True:  # list_tables pages its answer
        page = vectors.connection.list_tables(page_token=token)
        names += list(page.tables)
        token = page.page_token
        if not token:
            break
    for name in names:
        data = vectors.connection.open_table(name).to_arrow()
        out.create_table(name, data=data, schema=data.schema)
    return len(names)


def backup(layout: DataLayout, vectors: VectorStore, target: Path) -> BackupReport:
    started = time.perf_counter()
    target = target.expanduser()
    _require_empty_folder(target)
    target.mkdir(parents=True, exist_ok=True)
    try:
        messages = _sqlite_snapshot(layout.database, target / layout.database.name)
        tables = _vector_snapshot(vectors, target / layout.vectors.name)
        documents = 0
        if layout.documents.exists():
            # Originals are written once and never changed, so a plain copy is consistent.
            shutil.copytree(layout.documents, target / layout.documents.name)
            documents = sum(1 for p in (target / layout.documents.name).rglob("*") if p.is_file())
        if layout.settings_file.exists():
            shutil.copy2(layout.settings_file, target / layout.settings_file.name)
    except (OSError, sqlite3.Error) as exc:
        raise StorageError(
            f"could not write the backup to {target}: {exc}",
            hint="check free space and permissions, then back up into a new empty folder",
        ) from exc
    report = BackupReport(target, messages, tables, documents, time.perf_counter() - started)
    manifest = {"format": FORMAT, "strataVersion": __version__, "createdAt": time.time(), **report.to_dict()}
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return report


def check_backup(source: Path) -> dict[str, Any]:
    """The manifest of a readable, intact backup folder; InvalidInput says what is wrong."""
    manifest_path = source / MANIFEST
    if not manifest_path.is_file():
        raise InvalidInput(
            f"{source} is not a Strata backup (no {MANIFEST})",
            hint="pass the folder that `strata backup` created",
        )
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    database = source / DataLayout(source).database.name
    try:
        conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            result = conn.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise InvalidInput(f"the backup's database cannot be read: {exc}") from exc
    if result != "ok":
        raise InvalidInput(f"the backup's database is damaged: {result}", hint="use another backup")
    return dict(manifest)


def restore(source: Path, root: Path, *, force: bool = False) -> Path | None:
    """Copy a backup into data dir `root`; returns where the previous contents were moved, if any."""
    source = source.expanduser()
    check_backup(source)
    moved: Path | None = None
    if root.exists() and any(root.iterdir()):
        if not force:
            raise InvalidInput(
                f"the data dir {root} is not empty; restoring would replace what is there",
                hint="restore into a new --data-dir, or add --force to move the current data aside "
                "first (nothing is deleted); stop the app and `strata serve` before restoring",
            )
        moved = root.with_name(f"{root.name}.before-restore-{time.strftime('%Y%m%d-%H%M%S')}")
        root.rename(moved)
    layout = DataLayout(root)
    try:
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(MANIFEST), dirs_exist_ok=True)
    except OSError as exc:
        raise StorageError(
            f"could not restore into {root}: {exc}",
            hint=f"free some space or pick another data dir; the previous data is in {moved}"
            if moved
            else "free some space or pick another data dir",
        ) from exc
    layout.ensure()
    return moved
