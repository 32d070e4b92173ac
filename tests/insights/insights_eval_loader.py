"""Imports the eval harness by path (tests are not a package) for tests that need the labelled chats."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

EVAL_DIR = Path(__file__).parent / "eval"


def load_harness() -> ModuleType:
    name = "strata_insights_eval_harness"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, EVAL_DIR / "harness.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
