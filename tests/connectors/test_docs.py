"""Every live-connector option is documented in docs/connectors.md."""

from __future__ import annotations

from pathlib import Path

from connectors.registry import default_registry

DOC = Path(__file__).resolve().parents[2] / "docs" / "connectors.md"


def test_every_connector_option_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    registry = default_registry()
    for spec in (registry.spec(kind) for kind in registry.kinds()):
        for option in spec.options:
            assert f"`{option}`" in text, f"{spec.kind} option {option!r} is not in docs/connectors.md"
