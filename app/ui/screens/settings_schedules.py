"""Settings → Schedules: what runs in the background, when next, and pause / resume per job."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from app.ui.job_control import JobRow
from app.ui.when import local_time
from app.ui.widgets import muted

if TYPE_CHECKING:
    from app.ui.screens.settings import SettingsScreen

COLUMNS = ("Job", "Runs", "Next run", "State")
RUNS_HERE = "Jobs run while this app is open (or in `strata serve` when headless), one at a time each."


class SchedulesSection(QGroupBox):
    def __init__(self, screen: SettingsScreen) -> None:
        super().__init__("Schedules")
        self.screen = screen
        self.rows: list[JobRow] = []
        layout = QVBoxLayout(self)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("jobs")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        # The job's name gets the room (never "insights.gene…"); the short columns fit their text.
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(150)
        self.table.itemSelectionChanged.connect(self._update_button)
        layout.addWidget(self.table)
        row = QHBoxLayout()
        self.toggle_button = QPushButton("Pause")
        self.toggle_button.setObjectName("pause_job")
        self.toggle_button.setEnabled(False)
        self.toggle_button.clicked.connect(self.toggle_selected)
        row.addWidget(self.toggle_button)
        row.addStretch(1)
        self.every = QSpinBox()
        self.every.setObjectName("job_minutes")
        self.every.setRange(1, 7 * 24 * 60)
        self.every.setPrefix("every ")
        self.every.setSuffix(" min")
        self.every_button = QPushButton("Change schedule")
        self.every_button.clicked.connect(self.change_interval)
        row.addWidget(self.every)
        row.addWidget(self.every_button)
        layout.addLayout(row)
        self.note = muted(RUNS_HERE)
        layout.addWidget(self.note)

    @property
    def host(self) -> Any:
        return getattr(self.screen.ctx.hosting, "scheduler", None)

    def reload(self) -> None:
        host = self.host
        if host is None:
            self.note.setText("The job scheduler runs in the desktop app; it is not hosted in this window.")
            self.table.hide()
            self.toggle_button.hide()
            self.every.hide()
            self.every_button.hide()
            return
        self.note.setText(RUNS_HERE)
        self.table.show()
        self.toggle_button.show()
        self.every.show()
        self.every_button.show()
        self.screen.query(host.job_rows, self.show_rows)

    def show_rows(self, rows: list[JobRow]) -> None:
        selected = self.selected()
        self.rows = rows
        self.table.setRowCount(len(rows))
        for index, job in enumerate(rows):
            next_run = (
                "—"
                if job.paused or job.next_run is None
                else local_time(int(job.next_run.timestamp() * 1000))
            )
            cells = (job.label, job.schedule, next_run, "Paused" if job.paused else "Active")
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{job.label} (job id: {job.id})")
                if column == 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.table.setItem(index, column, item)
            if selected is not None and job.id == selected.id:
                self.table.selectRow(index)
        self.table.resizeRowsToContents()
        self._update_button()

    def selected(self) -> JobRow | None:
        row = self.table.currentRow()
        return self.rows[row] if 0 <= row < len(self.rows) and self.table.selectedItems() else None

    def _update_button(self) -> None:
        job = self.selected()
        self.toggle_button.setEnabled(job is not None)
        self.toggle_button.setText("Resume" if job is not None and job.paused else "Pause")
        # Only jobs whose interval is a setting can be rescheduled (index upkeep runs on its own).
        editable = job is not None and job.minutes is not None
        self.every.setEnabled(editable)
        self.every_button.setEnabled(editable)
        if editable and job is not None and job.minutes is not None:
            self.every.setValue(job.minutes)

    def change_interval(self) -> None:
        job, host = self.selected(), self.host
        if job is None or host is None:
            return
        minutes = self.every.value()

        def done(_: Any) -> None:
            self.screen.banner.show_message(f"\u201c{job.label}\u201d now runs every {minutes} min.", "ok")
            self.reload()

        self.screen.mutate(lambda: host.set_interval(job.id, minutes), [], done)

    def toggle_selected(self) -> None:
        job, host = self.selected(), self.host
        if job is None or host is None:
            return
        pause = not job.paused

        def done(_: Any) -> None:
            verb = "paused; it stays paused after a restart" if pause else "resumed"
            self.screen.banner.show_message(f"\u201c{job.label}\u201d {verb}.", "ok")
            self.reload()

        self.screen.mutate(lambda: host.set_paused(job.id, pause), [], done)
