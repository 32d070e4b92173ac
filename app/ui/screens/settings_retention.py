"""Settings → Retention per channel: keep a channel forever, or tidy it sooner or later than the rest.

Rules are the forgetting engine's `[[forgetting.retention]]` entries in settings.toml, written here
so nobody edits the file by hand; the engine reads them at the next start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QMenu,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from app.core.errors import InvalidInput
from app.ui.events import SETTINGS
from app.ui.formatting import channel_label, platform_name
from app.ui.settings_file import update_settings_file
from app.ui.widgets import muted

if TYPE_CHECKING:
    from app.ui.screens.settings import SettingsScreen

COLUMNS = ("Platform", "Channel", "Keep", "Short → mid at", "Mid → long at")
ANY_PLATFORM = "any"
# What the user picks per rule → (keep_forever, tighter/looser thresholds). Blank = engine default.
KEEP_CHOICES = ("Keep forever", "Custom thresholds")
KNOWN_IN_MENU = 30


class RetentionSection(QGroupBox):
    def __init__(self, screen: SettingsScreen) -> None:
        super().__init__("Retention per channel")
        self.screen = screen
        layout = QVBoxLayout(self)
        layout.addWidget(
            muted(
                "By default old messages are tidied into summaries as they fade. Keep a channel "
                "forever, or give it its own thresholds (0–1: higher tidies sooner). Applied at the "
                "next start."
            )
        )
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("retention_rules")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(110)
        layout.addWidget(self.table)
        row = QHBoxLayout()
        add = QPushButton("Add a channel")
        add.setObjectName("add_retention_rule")
        # A menu of the conversations that hold messages (most active first), then "Other…".
        self.add_menu = QMenu(self)
        add.setMenu(self.add_menu)
        self.known: list[tuple[str, str, int]] = []
        self._fill_add_menu()
        remove = QPushButton("Remove")
        remove.clicked.connect(self.remove_selected)
        self.save_button = QPushButton("Save rules")
        self.save_button.clicked.connect(self.save)
        for button in (add, remove):
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(self.save_button)
        layout.addLayout(row)
        self.platforms: list[str] = []
        settings = screen.ctx.settings
        for rule in settings.forgetting.retention if settings is not None else []:
            self.add_rule(rule.model_dump())

    def set_known(self, channels: list[tuple[str, str, int]]) -> None:
        """(platform, channel, messages) of the stored conversations, offered by "Add a channel"."""
        self.known = channels
        self.set_platforms(sorted({platform for platform, _channel, _n in channels}))
        self._fill_add_menu()

    def _fill_add_menu(self) -> None:
        self.add_menu.clear()
        for platform, channel, count in self.known[:KNOWN_IN_MENU]:
            label = f"{channel_label(platform, channel)} · {platform_name(platform)}  ({count} messages)"
            self.add_menu.addAction(
                label,
                lambda p=platform, c=channel: self.add_rule(
                    {"platform": p, "channel": c, "keep_forever": True}
                ),
            )
        if self.known:
            self.add_menu.addSeparator()
        self.add_menu.addAction("Other channel…", lambda: self.add_rule({}))

    def set_platforms(self, platforms: list[str]) -> None:
        """The platforms with stored messages, offered in each rule's picker."""
        self.platforms = sorted(platforms)
        for row in range(self.table.rowCount()):
            combo = self.table.cellWidget(row, 0)
            if isinstance(combo, QComboBox):
                current = combo.currentText()
                combo.clear()
                combo.addItems(self._platform_items(current))
                combo.setCurrentText(current)

    def _platform_items(self, current: str = "") -> list[str]:
        items = [ANY_PLATFORM, *self.platforms]
        if current and current not in items:
            items.append(current)
        return items

    def add_rule(self, rule: dict[str, Any]) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        platform = QComboBox()
        platform.addItems(self._platform_items(rule.get("platform") or ""))
        platform.setCurrentText(rule.get("platform") or ANY_PLATFORM)
        self.table.setCellWidget(row, 0, platform)
        self.table.setItem(row, 1, QTableWidgetItem(rule.get("channel", "")))
        keep = QComboBox()
        keep.addItems(KEEP_CHOICES)
        keep.setCurrentIndex(0 if rule.get("keep_forever", not rule) else 1)
        self.table.setCellWidget(row, 2, keep)
        for column, key in ((3, "short_to_mid_threshold"), (4, "mid_to_long_threshold")):
            value = rule.get(key)
            self.table.setItem(row, column, QTableWidgetItem("" if value is None else f"{value:g}"))
        if not rule:
            self.table.setCurrentCell(row, 1)
            self.table.editItem(self.table.item(row, 1))
        return row

    def remove_selected(self) -> None:
        row = self.table.currentRow()
        if row >= 0:
            self.table.removeRow(row)

    def rules(self) -> list[dict[str, Any]]:
        """The rules as settings.toml holds them; InvalidInput names the first bad cell."""
        out = []
        for row in range(self.table.rowCount()):
            channel = (self.table.item(row, 1).text() if self.table.item(row, 1) else "").strip().lstrip("#")
            if not channel:
                raise InvalidInput(
                    f"rule {row + 1} has no channel", hint="type the channel name or remove the rule"
                )
            platform = self.table.cellWidget(row, 0).currentText()  # type: ignore[union-attr]
            keep = self.table.cellWidget(row, 2).currentIndex() == 0  # type: ignore[union-attr]
            rule: dict[str, Any] = {
                "channel": channel,
                "platform": None if platform == ANY_PLATFORM else platform,
                "keep_forever": keep,
            }
            if not keep:
                for column, key in ((3, "short_to_mid_threshold"), (4, "mid_to_long_threshold")):
                    rule[key] = _threshold(self.table.item(row, column), row, COLUMNS[column])
            out.append(rule)
        return out

    def save(self) -> None:
        settings = self.screen.ctx.settings
        if settings is None:
            return
        try:
            rules = self.rules()
        except InvalidInput as exc:
            self.screen.banner.show_error(exc)
            return
        path = settings.layout.settings_file

        def done(_: Any) -> None:
            count = len(rules)
            self.screen.banner.show_message(
                f"Saved {count} retention rule{'s' if count != 1 else ''}. They apply at the next start.",
                "ok",
            )

        # An empty list is written as such, so removing the last rule really removes it.
        self.screen.mutate(
            lambda: update_settings_file(path, {"forgetting": {"retention": rules}}), [SETTINGS], done
        )


def _threshold(item: QTableWidgetItem | None, row: int, column: str) -> float | None:
    text = (item.text() if item is not None else "").strip()
    if not text:
        return None  # the engine's default for this tier
    try:
        value = float(text.replace(",", "."))
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise InvalidInput(
            f"rule {row + 1}: {column} must be a number from 0 to 1, got {text!r}",
            hint="leave it empty for the default",
        )
    return value


__all__ = ["RetentionSection"]
