"""The MCP SDK's own log set-up (a RichHandler via basicConfig) never replaces Strata's."""

from __future__ import annotations

import logging

from mcp.server.mcpserver import MCPServer

from app.core.logs.handlers import LogFileHandler, StderrHandler
from app.core.logs.setup import configure_logging, log_file


def _rich(handlers: list[logging.Handler]) -> list[logging.Handler]:
    return [h for h in handlers if type(h).__module__.startswith("rich.")]


def test_the_sdk_handler_goes_when_the_server_was_built_first(tmp_path):
    root = logging.getLogger()
    runner = list(root.handlers)  # pytest's capture: while it is there, basicConfig does nothing
    for handler in runner:
        root.removeHandler(handler)
    try:
        MCPServer("first", log_level="WARNING")
        assert _rich(root.handlers), "the SDK is expected to install its RichHandler"
        configure_logging(tmp_path / "logs", "INFO")
        assert not _rich(root.handlers)
        logging.getLogger("strata.test").warning("after the SDK")
        assert "strata.test: after the SDK" in log_file(tmp_path / "logs").read_text()
    finally:
        for handler in list(root.handlers):
            if not isinstance(handler, StderrHandler | LogFileHandler):
                root.removeHandler(handler)
        for handler in runner:
            root.addHandler(handler)


def test_a_server_built_after_the_set_up_adds_no_handler(tmp_path):
    root = logging.getLogger()
    runner = list(root.handlers)
    for handler in runner:
        root.removeHandler(handler)
    try:
        configure_logging(tmp_path / "logs", "INFO")
        ours = list(root.handlers)
        MCPServer("second", log_level="DEBUG")
        assert root.handlers == ours
        assert root.level == logging.INFO  # basicConfig's level did not apply either
    finally:
        for handler in runner:
            root.addHandler(handler)
