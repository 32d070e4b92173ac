"""UI test setup: real Qt, offscreen, with a QSettings sandbox per test."""

from __future__ import annotations

import os

# Must be set before any Qt module creates the application.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import QCoreApplication, QSettings


@pytest.fixture(autouse=True)
def _qsettings_sandbox(tmp_path, qapp):
    """Window geometry and UI prefs go to a temp dir, never the developer's real settings."""
    QCoreApplication.setOrganizationName("strata-tests")
    QCoreApplication.setApplicationName("strata-tests")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "qsettings"))
    yield
