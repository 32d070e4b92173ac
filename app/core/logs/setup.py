"""Put Strata's handlers on the root logger, whoever configured it before (the MCP SDK does).

`MCPServer(...)` calls `logging.basicConfig` with a RichHandler (mcp 2.x,
`mcpserver/utilities/logging.py`), which renders tracebacks at the terminal's width (40 columns
in a pipe) and masks nothing. The SDK has no option to skip it, but `basicConfig` does nothing
when the root logger already has a handler: so set-up here runs first in every entry point, and
also removes a handler `basicConfig` left if it ran before (the order then does not matter).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import tomllib
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

from app.core.logs.handlers import LogFileHandler, StderrHandler
from app.core.logs.redaction import RedactingFormatter
from app.core.paths import DataLayout

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FILE_NAME = "strata.log"
LEVEL_ENV = "STRATA_LOG_LEVEL"
# Libraries that log a line per HTTP request, MCP request, job run or opened database at INFO
# (httpx's request line also carries the URL, a Telegram bot token included): warnings only,
# unless DEBUG.
CHATTY_LIBRARIES = ("apscheduler", "httpx", "mcp", "alembic")
# httpcore's DEBUG is a trace of every socket read; never useful in a user's log.
NOISY_LIBRARIES = ("httpcore",)


def parse_level(name: str) -> str:
    """`name` as one of LOG_LEVELS (any case); ValueError naming the choices otherwise."""
    level = name.strip().upper()
    if level not in LOG_LEVELS:
        raise ValueError(f"unknown log level {name!r}; use one of {', '.join(LOG_LEVELS)}")
    return level


def at_least(level: str, floor: str) -> str:
    """The more severe of two levels ("INFO", "WARNING" -> "WARNING")."""
    return max(parse_level(level), parse_level(floor), key=LOG_LEVELS.index)


def early_level(data_dir: Path, flag: str | None = None) -> str:
    """The log level before the settings are read: `--log-level`, else `STRATA_LOG_LEVEL`, else
    `log_level` in the data dir's settings.toml, else INFO (the settings' own order).

    Why not the settings: logging starts before anything else runs, and loading them imports
    pydantic (~0.1 s of CPU a `--help` or the desktop window would wait for). A value that is not
    a level is skipped here; reading the settings reports it.
    """
    candidates: list[object] = [flag, os.environ.get(LEVEL_ENV)]
    with contextlib.suppress(OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        text = DataLayout(data_dir).settings_file.read_text(encoding="utf-8")
        candidates.append(tomllib.loads(text).get("log_level"))
    for candidate in candidates:
        if isinstance(candidate, str) and candidate.strip().upper() in LOG_LEVELS:
            return candidate.strip().upper()
        if candidate is not None:
            break  # set but not a level: the settings will say so; log on the default meanwhile
    return "INFO"


def log_file(log_dir: Path) -> Path:
    return log_dir / LOG_FILE_NAME


def log_file_status(log_dir: Path) -> tuple[bool, str]:
    """For `strata doctor`: can the log file be written, where it is and how big."""
    path = log_file(log_dir)
    if path.is_file():
        writable = os.access(path, os.W_OK)
        size = sum(p.stat().st_size for p in log_dir.glob(LOG_FILE_NAME + "*") if p.is_file())
        detail = f"{path}, {size / 1024:,.0f} KB with its rotated copies (attach them to a bug report)"
        return writable, detail if writable else f"{path} is not writable; logs go to stderr only"
    existing = next((p for p in (log_dir, *log_dir.parents) if p.exists()), None)
    if existing is None or not existing.is_dir() or not os.access(existing, os.W_OK):
        return False, f"{path} cannot be created; logs go to stderr only"
    return True, f"{path} (nothing logged yet)"


def configure_logging(log_dir: Path | None, level: str = "INFO", *, console_level: str | None = None) -> None:
    """Records at `level` and above go to `<log_dir>/strata.log` (rotating; none without a
    `log_dir`), and at `console_level` (default `level`) and above to stderr, masked and bounded.

    Calling it again replaces the earlier set-up (a command that turns out to be a server
    prints more on stderr).
    """
    file_level = parse_level(level)
    shown = parse_level(console_level or level)
    root = logging.getLogger()
    reset_logging()
    for handler in _basic_config_handlers(root.handlers):
        root.removeHandler(handler)
    formatter = RedactingFormatter()
    console = StderrHandler()
    console.setLevel(shown)
    handlers: list[logging.Handler] = [console]
    if log_dir is not None:
        file = LogFileHandler(log_file(log_dir))
        file.setLevel(file_level)
        handlers.append(file)
    for handler in handlers:
        handler.setFormatter(formatter)
        root.addHandler(handler)
    root.setLevel(min(logging.getLevelName(file_level), logging.getLevelName(shown)))
    debug = root.level <= logging.DEBUG
    for name in CHATTY_LIBRARIES:
        logging.getLogger(name).setLevel(logging.NOTSET if debug else logging.WARNING)
    for name in NOISY_LIBRARIES:
        logging.getLogger(name).setLevel(logging.WARNING)


def log_uncaught() -> None:
    """A crash (an exception nobody caught, on the main thread or any other) is logged like any
    record: into the file, masked, instead of Python's bare traceback on stderr only."""
    log = logging.getLogger("strata.crash")

    def main_thread(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):  # Ctrl+C is not a crash
            sys.__excepthook__(kind, exc, tb)
            return
        log.critical("uncaught exception", exc_info=(kind, exc, tb))

    def other_thread(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "?"
        log.critical("uncaught exception in thread %s", name, exc_info=args.exc_value)

    sys.excepthook = main_thread
    threading.excepthook = other_thread


def reset_logging() -> None:
    """Remove and close the handlers `configure_logging` added; the root level back to WARNING."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, (StderrHandler, LogFileHandler)):
            root.removeHandler(handler)
            handler.close()
    root.setLevel(logging.WARNING)


def _basic_config_handlers(handlers: Iterable[logging.Handler]) -> list[logging.Handler]:
    """What `logging.basicConfig` installs: a plain stream handler on stderr/stdout, or the MCP
    SDK's RichHandler. Other handlers (a test runner's capture) are not ours to remove."""
    found = []
    for handler in handlers:
        plain = type(handler) is logging.StreamHandler and handler.stream in (sys.stderr, sys.stdout)
        if plain or type(handler).__module__.startswith("rich."):
            found.append(handler)
    return found
