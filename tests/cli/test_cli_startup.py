"""Start-up guard: `strata` and every `--help` import typer/rich, never the heavy libraries.

Each check runs in a fresh interpreter, because this test process has imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import PROJECT_ROOT

# Seconds of imports between them (LanceDB alone ≈ 1.5–2 s); a command imports what it needs.
HEAVY = (
    "lancedb",
    "onnxruntime",
    "tokenizers",
    "openai",
    "mcp",
    "fastapi",
    "uvicorn",
    "sqlalchemy",
    "alembic",
    "pyarrow",
    "numpy",
    "PySide6",
    "apscheduler",
    "discord",
    "telegram",
    "yake",
)

PROBE = """
import json, sys
{body}
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy!r}))))
"""

ALL_HELP = """
import typer
from typer.testing import CliRunner
from app.cli.main import cli

runner = CliRunner()

def walk(command, path):
    result = runner.invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, (path, result.output)
    for name, sub in getattr(command, "commands", {}).items():
        walk(sub, [*path, name])

walk(typer.main.get_command(cli), [])
"""


def heavy_after(body: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(body=body, heavy=HEAVY)],
        cwd=PROJECT_ROOT,
        env={**os.environ, "COLUMNS": "100"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_the_cli_loads_no_heavy_library() -> None:
    assert heavy_after("import app.cli.main") == []


def test_every_help_page_loads_no_heavy_library() -> None:
    assert heavy_after(ALL_HELP) == []


def test_strata_help_runs_as_a_process_and_lists_the_commands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "app", "--help"],
        cwd=PROJECT_ROOT,
        env={**os.environ, "COLUMNS": "100"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    for name in ("search", "ui", "serve", "import", "kb", "insights", "connectors", "mcp", "llm"):
        assert f" {name} " in out.stdout
