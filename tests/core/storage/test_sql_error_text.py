"""A failed SQL statement's error (and so a logged traceback) never carries the row values it was
given: those are messages' text, which may hold secrets, and logs must not."""

from __future__ import annotations

import logging
import traceback
from pathlib import Path

import pytest
from sqlalchemy import text

from app.core.storage.db import Database

SECRET = "xoxb-7731-secret-token-in-a-message"


def test_a_failed_insert_keeps_its_values_out_of_the_error_and_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = Database(tmp_path / "strata.db")
    with db.write() as session:
        session.execute(text("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"))
        session.execute(text("INSERT INTO notes VALUES (1, 'first')"))
    with pytest.raises(Exception) as caught, db.write() as session:
        session.execute(text("INSERT INTO notes VALUES (1, :body)"), {"body": SECRET})
    rendered = "".join(traceback.format_exception(caught.value))
    assert "UNIQUE constraint failed" in rendered  # the error itself still says what went wrong
    assert SECRET not in rendered
    with caplog.at_level(logging.ERROR):
        logging.getLogger("strata.test").error("write failed", exc_info=caught.value)
    assert SECRET not in caplog.text
