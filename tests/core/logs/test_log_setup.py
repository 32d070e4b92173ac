"""Strata's log set-up on real files: secrets masked everywhere, records bounded, files rotated."""

from __future__ import annotations

import logging
import stat
import subprocess
import sys

import pytest

from app.core.logs.handlers import LogFileHandler, StderrHandler
from app.core.logs.redaction import MAX_RECORD_CHARS, cut
from app.core.logs.setup import (
    at_least,
    configure_logging,
    early_level,
    log_file,
    parse_level,
    reset_logging,
)
from tests.conftest import PROJECT_ROOT

SLACK = "xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJklmn"
OPENAI = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
ANTHROPIC = "sk-ant-api03-" + "Q" * 40
EMAIL = "jane.doe@example.org"


def _fail_with(secret: str) -> None:
    raise ValueError(f"connect failed for api_key={secret}")


def test_a_secret_in_the_message_args_or_exception_reaches_neither_file_nor_stderr(tmp_path, capsys):
    configure_logging(tmp_path / "logs", "INFO")
    log = logging.getLogger("strata.test")
    log.info(f"slack token is {SLACK}")
    log.warning("openai key %s for %s", OPENAI, EMAIL)
    try:
        _fail_with(ANTHROPIC)
    except ValueError:
        log.exception("sync failed")
    log.error("with a stack", stack_info=True, extra={"secret": OPENAI})
    written = log_file(tmp_path / "logs").read_text()
    shown = capsys.readouterr().err
    for text in (written, shown):
        for secret in (SLACK, OPENAI, ANTHROPIC, EMAIL):
            assert secret not in text
    assert "slack token is [SECRET:slack-token]" in written
    assert "[EMAIL]" in written and "[SECRET:" in shown
    # The traceback is there, unwrapped: one frame per line, the exception line whole.
    assert "Traceback (most recent call last):" in written
    assert 'test_log_setup.py", line' in written and "in _fail_with" in written
    assert "ValueError: connect failed for api_key=[SECRET:" in written
    assert "strata.test: sync failed" in written and " ERROR [" in written


def test_the_file_is_private_and_made_only_when_something_is_logged(tmp_path):
    logs = tmp_path / "logs"
    configure_logging(logs, "WARNING")
    logging.getLogger("strata.test").info("below the level")
    assert not logs.exists()
    logging.getLogger("strata.test").warning("now")
    assert stat.S_IMODE(log_file(logs).stat().st_mode) == 0o600
    assert stat.S_IMODE(logs.stat().st_mode) == 0o700


def test_console_and_file_levels_are_separate(tmp_path, capsys):
    configure_logging(tmp_path / "logs", "DEBUG", console_level="WARNING")
    log = logging.getLogger("strata.test")
    log.debug("detail for the file")
    log.warning("for both")
    shown = capsys.readouterr().err
    written = log_file(tmp_path / "logs").read_text()
    assert "detail for the file" in written and "detail for the file" not in shown
    assert "for both" in written and "for both" in shown


def test_a_huge_record_is_cut_with_a_note_and_keeps_its_head_and_tail(tmp_path):
    configure_logging(tmp_path / "logs", "INFO")
    statement = "INSERT INTO raw_messages VALUES " + ", ".join(f"(?, ?, {i})" for i in range(200_000))
    try:
        raise RuntimeError(f"too many SQL variables\n[SQL: {statement}]\n(Background: sqlalche.me/e/20)")
    except RuntimeError:
        logging.getLogger("strata.test").exception("insert failed")
    written = log_file(tmp_path / "logs").read_text()
    assert len(written) < MAX_RECORD_CHARS + 200
    assert "insert failed" in written and "RuntimeError: too many SQL variables" in written
    assert "(Background: sqlalche.me/e/20)" in written  # the tail
    assert "characters cut from this log record" in written


def test_cut_never_leaves_half_a_token_at_the_cut():
    key = "sk-proj-" + "A" * 30_000
    text = "before " + key + " after"
    out = cut(text, limit=1_000, tail=200)
    assert "AAAA" not in out and out.startswith("before ") and out.endswith(" after")
    assert cut("short") == "short"


def test_a_formatting_mistake_does_not_print_the_arguments(tmp_path, capsys):
    configure_logging(tmp_path / "logs", "INFO")
    # One argument short. Handed to our handlers only: pytest's own capture handler raises on it.
    record = logging.getLogger("strata.test").makeRecord(
        "strata.test", logging.WARNING, __file__, 93, "token %s and %s", (OPENAI,), None
    )
    for handler in logging.getLogger().handlers:
        if isinstance(handler, StderrHandler | LogFileHandler):
            handler.handle(record)
    shown = capsys.readouterr().err
    assert OPENAI not in shown
    assert "could not be written (TypeError)" in shown and "test_log_setup.py" in shown


def test_an_unwritable_log_dir_says_so_once_and_stderr_keeps_logging(tmp_path, capsys):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the data dir should be")
    configure_logging(blocker / "logs", "INFO")
    log = logging.getLogger("strata.test")
    log.warning("first")
    log.warning("second")
    shown = capsys.readouterr().err
    assert shown.count("cannot write the log file") == 1
    assert "first" in shown and "second" in shown


def test_the_file_rotates_within_its_bounds(tmp_path):
    handler = LogFileHandler(tmp_path / "logs" / "strata.log")
    handler.maxBytes = 4_000
    log = logging.getLogger("strata.rotation")
    log.propagate = False
    log.addHandler(handler)
    try:
        for i in range(400):
            log.warning("line %d %s", i, "x" * 80)
    finally:
        log.removeHandler(handler)
        handler.close()
        log.propagate = True
    files = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert files == ["strata.log", "strata.log.1", "strata.log.2", "strata.log.3"]
    assert all((tmp_path / "logs" / name).stat().st_size <= 4_000 for name in files)
    assert "line 399" in (tmp_path / "logs" / "strata.log").read_text()


def test_configuring_again_replaces_the_handlers_and_reset_removes_them(tmp_path):
    root = logging.getLogger()
    before = list(root.handlers)
    configure_logging(tmp_path / "a", "INFO")
    configure_logging(tmp_path / "b", "INFO")
    logging.getLogger("strata.test").warning("once")
    assert not (tmp_path / "a").exists()
    assert log_file(tmp_path / "b").read_text().count("once") == 1
    reset_logging()
    assert root.handlers == before


def test_a_basic_config_handler_is_replaced_but_a_test_runners_is_kept(tmp_path):
    root = logging.getLogger()
    plain = logging.StreamHandler()  # what logging.basicConfig() installs
    root.addHandler(plain)
    kept = [h for h in root.handlers if h is not plain]
    configure_logging(tmp_path / "logs", "INFO")
    assert plain not in root.handlers
    assert all(h in root.handlers for h in kept)


def test_levels():
    assert parse_level(" debug ") == "DEBUG"
    with pytest.raises(ValueError, match="use one of DEBUG, INFO"):
        parse_level("loud")
    assert at_least("INFO", "WARNING") == "WARNING" and at_least("ERROR", "WARNING") == "ERROR"


CRASH = """
import sys, threading
from pathlib import Path
from app.core.logs.setup import configure_logging, log_uncaught
configure_logging(Path(sys.argv[1]), "INFO")
log_uncaught()
def worker():
    raise RuntimeError("thread failed with password=hunter2hunter2")
thread = threading.Thread(target=worker, name="sync-thread")
thread.start()
thread.join()
raise ValueError("crashed holding " + sys.argv[2])
"""


def test_a_crash_in_any_thread_is_logged_masked_into_the_file(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", CRASH, str(tmp_path / "logs"), SLACK],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    written = log_file(tmp_path / "logs").read_text()
    for text in (written, done.stderr):
        assert SLACK not in text and "hunter2hunter2" not in text
        assert "CRITICAL" in text and "strata.crash: uncaught exception" in text
        assert "ValueError: crashed holding [SECRET:slack-token]" in text
        assert "uncaught exception in thread sync-thread" in text
        assert "RuntimeError: thread failed with password=[SECRET:" in text


def test_the_early_level_follows_the_settings_order(tmp_path, monkeypatch):
    monkeypatch.delenv("STRATA_LOG_LEVEL", raising=False)
    assert early_level(tmp_path) == "INFO"
    (tmp_path / "settings.toml").write_text('log_level = "error"\n')
    assert early_level(tmp_path) == "ERROR"
    monkeypatch.setenv("STRATA_LOG_LEVEL", "warning")
    assert early_level(tmp_path) == "WARNING"
    assert early_level(tmp_path, "DEBUG") == "DEBUG"
    monkeypatch.setenv("STRATA_LOG_LEVEL", "loud")  # reading the settings reports it
    assert early_level(tmp_path) == "INFO"
    (tmp_path / "settings.toml").write_text("not toml [")
    monkeypatch.delenv("STRATA_LOG_LEVEL")
    assert early_level(tmp_path) == "INFO"
