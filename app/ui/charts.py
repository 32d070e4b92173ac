"""Small QtCharts wrappers; QtCharts is imported when a chart first draws, not at start-up."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QMargins, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.ui.theme import is_dark

SERIES_COLOURS = ("#4f7cff", "#e8590c", "#5f3dc4", "#2f9e44", "#c92a2a")


class _ChartHost(QWidget):
    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.view = None
        self.setMinimumHeight(160)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    def _chart(self):  # -> QChart
        from PySide6.QtCharts import QChart, QChartView

        chart = QChart()
        chart.setTitle(self.title)
        chart.setMargins(QMargins(4, 4, 4, 4))
        chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        if is_dark():
            chart.setTheme(QChart.ChartTheme.ChartThemeDark)
        chart.setBackgroundRoundness(4)
        if self.view is None:
            self.view = QChartView(chart)
            self.view.setRenderHint(QPainter.RenderHint.Antialiasing)
            self._layout.addWidget(self.view)
        else:
            old = self.view.chart()
            self.view.setChart(chart)
            old.deleteLater()
        return chart


class LineChart(_ChartHost):
    """One series of daily values, oldest first (e.g. views per day)."""

    def set_series(self, values: Sequence[float], name: str = "per day") -> None:
        from PySide6.QtCharts import QLineSeries, QValueAxis

        chart = self._chart()
        series = QLineSeries()
        series.setName(name)
        series.setColor(QColor(SERIES_COLOURS[0]))
        for i, v in enumerate(values):
            series.append(float(i), float(v))
        chart.addSeries(series)
        x, y = QValueAxis(), QValueAxis()
        x.setRange(0, max(len(values) - 1, 1))
        x.setLabelFormat("%d")
        x.setTitleText("days ago → today")
        top = int(max([*values, 1]))
        y.setRange(0, top)
        y.setTickCount(min(top, 5) + 1)  # whole-number ticks for small counts
        y.setLabelFormat("%d")
        chart.addAxis(x, Qt.AlignmentFlag.AlignBottom)
        chart.addAxis(y, Qt.AlignmentFlag.AlignLeft)
        series.attachAxis(x)
        series.attachAxis(y)
        chart.legend().hide()


class StackedAreaChart(_ChartHost):
    """Counts per category over time buckets: `series` maps a name to values aligned with `labels`."""

    def set_data(self, labels: Sequence[str], series: dict[str, Sequence[float]]) -> None:
        from PySide6.QtCharts import QBarCategoryAxis, QBarSet, QStackedBarSeries, QValueAxis

        chart = self._chart()
        bars = QStackedBarSeries()
        totals = [0.0] * len(labels)
        for i, (name, values) in enumerate(series.items()):
            bar_set = QBarSet(name)
            bar_set.setColor(QColor(SERIES_COLOURS[i % len(SERIES_COLOURS)]))
            for j, v in enumerate(values):
                bar_set.append(float(v))
                totals[j] += float(v)
            bars.append(bar_set)
        top = float(int(max([*totals, 1.0])))
        chart.addSeries(bars)
        x = QBarCategoryAxis()
        x.append(list(labels))
        y = QValueAxis()
        y.setRange(0, top)
        y.setTickCount(int(min(top, 5)) + 1)
        y.setLabelFormat("%d")
        chart.addAxis(x, Qt.AlignmentFlag.AlignBottom)
        chart.addAxis(y, Qt.AlignmentFlag.AlignLeft)
        bars.attachAxis(x)
        bars.attachAxis(y)
