"""Connector SDKs (~40 MB resident) load only when a connector of their kind is built."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SDKS = ("discord", "telegram", "slack_sdk", "aiohttp")

PROBE = f"""
import sys
import app.bootstrap, app.api.app, app.services.scheduling
from app.core.settings import Settings, EmbeddingSettings
from app.bootstrap import build_services
svc = build_services(Settings(data_dir=sys.argv[1], embedding=EmbeddingSettings(provider="hashing")))
svc.connectors.start_live()  # nothing configured: no Discord gateway
print(",".join(m for m in {SDKS!r} if m in sys.modules) or "none")
from connectors.base import ConnectorConfig
svc.connectors.registry.configure(ConnectorConfig("w", "slack", "xoxb-test"))
print(",".join(m for m in {SDKS!r} if m in sys.modules))
svc.close()
"""


def test_no_sdk_is_imported_until_a_connector_of_its_kind_is_built(tmp_path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "data")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.split()
    assert out[0] == "none"
    assert out[1] == "slack_sdk"  # only the kind that was built
