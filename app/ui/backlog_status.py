"""The status-bar line saying how many stored messages still wait for their vectors."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtWidgets import QLabel, QWidget


def backlog_text(status: dict[str, Any] | None) -> str:
    """ "Embedding N messages · about M min left" while rows wait; "" when there are none.

    `status` is `services.memory.embedding_backlog()`. Before a drain has a rate there is no
    estimate, and a failed drain says why (the rows stay keyword-searchable meanwhile)."""
    pending = int((status or {}).get("pending") or 0)
    if pending <= 0:
        return ""
    line = f"Embedding {pending:,} message{'s' if pending != 1 else ''}"
    error = status.get("error") if status else None
    if error:
        return f"{line} · paused: {error}"
    eta = status.get("eta_seconds") if status else None
    if eta:
        return f"{line} · about {max(1, math.ceil(float(eta) / 60))} min left"
    return line


class BacklogLabel(QLabel):
    """Shown only while the backlog is not empty; fed by the change watcher's off-thread poll."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("backlog")
        self.setToolTip(
            "New messages are searchable by keyword now; meaning search covers them once embedded."
        )
        self.hide()

    def update_status(self, status: dict[str, Any] | None) -> None:
        text = backlog_text(status)
        self.setText(text)
        self.setVisible(bool(text))
