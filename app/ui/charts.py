"""Small QtCharts wrappers; QtCharts is imported when a chart first draws, not at start-up."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QDateTime, QMargins, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.core.clock import DAY_MS
from app.ui.theme import is_dark

SERIES_COLOURS = ("#4f7cff", "#e8590c", "#5f3dc4", "#2f9e44", "#c92a2a", "#0c8599", "#868e96")


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


def date_format(span_ms: int) -> str:
    """Axis label format for a span: days for weeks, months for a year or two, years beyond."""
    if span_ms <= 120 * DAY_MS:
        return "d MMM"
    if span_ms <= 6 * 365 * DAY_MS:
        return "MMM yyyy"
    return "yyyy"


class TimeChart(_ChartHost):
    """Counts per series over time buckets on a real date axis: left is older, right is newer.

    `starts` are the buckets' start times (ms, oldest first); `series` maps a name to counts
    aligned with them. `stacked=True` draws areas on top of each other (parts of one total).
    """

    def set_data(
        self,
        starts: Sequence[int],
        series: dict[str, Sequence[float]],
        *,
        stacked: bool = False,
        y_title: str = "",
        colours: dict[str, str] | None = None,
    ) -> None:
        from PySide6.QtCharts import QAreaSeries, QDateTimeAxis, QLineSeries, QValueAxis

        chart = self._chart()
        self.starts, self.series = list(starts), {k: list(v) for k, v in series.items()}
        # Each bucket is drawn flat from its start to the next one's: counts per period read as
        # blocks on the date axis (a histogram), not as a line interpolating between periods.
        width = (starts[1] - starts[0]) if len(starts) > 1 else DAY_MS
        edges = [*starts, (starts[-1] + width) if starts else width]
        below = [0.0] * len(starts)
        drawn: list = []
        keep: list = []
        for i, (name, values) in enumerate(series.items()):
            colour = QColor((colours or {}).get(name) or SERIES_COLOURS[i % len(SERIES_COLOURS)])
            top = [b + float(v) for b, v in zip(below, values, strict=True)] if stacked else list(values)
            upper = _steps(QLineSeries(), edges, top)
            if stacked:
                lower = _steps(QLineSeries(), edges, below)
                area = QAreaSeries()
                area.setUpperSeries(upper)
                area.setLowerSeries(lower)
                keep.extend((upper, lower))  # the area does not own its edges: keep them alive
                area.setName(name)
                area.setColor(colour)
                area.setBorderColor(colour.darker(120))
                drawn.append(area)
                below = top
            else:
                upper.setName(name)
                upper.setColor(colour)
                drawn.append(upper)
        peak = max([0.0, *below] if stacked else [0.0, *(float(v) for vs in series.values() for v in vs)])
        for s in drawn:
            chart.addSeries(s)
        x, y = QDateTimeAxis(), QValueAxis()
        first, last = edges[0] if starts else 0, edges[-1]
        x.setRange(
            QDateTime.fromMSecsSinceEpoch(int(first)),
            QDateTime.fromMSecsSinceEpoch(int(max(last, first + DAY_MS))),
        )
        x.setFormat(date_format(int(last - first)))
        x.setTickCount(min(max(len(starts), 2), 6))
        top_value = max(int(peak), 1)
        step = nice_step(top_value)
        y.setRange(0, step * -(-top_value // step))  # up to a whole number of steps
        y.setTickCount(int(-(-top_value // step)) + 1)  # whole-number ticks: 0, 5, 10, …
        y.setLabelFormat("%d")
        if y_title:
            y.setTitleText(y_title)
        chart.addAxis(x, Qt.AlignmentFlag.AlignBottom)
        chart.addAxis(y, Qt.AlignmentFlag.AlignLeft)
        for s in drawn:
            s.attachAxis(x)
            s.attachAxis(y)
        self.x_axis = x
        self._series_refs = drawn + keep
        chart.legend().setVisible(len(series) > 1)


def _steps(line, edges: Sequence[int], values: Sequence[float]):  # -> QLineSeries
    for i, v in enumerate(values):
        line.append(float(edges[i]), float(v))
        line.append(float(edges[i + 1]), float(v))
    return line


def nice_step(top: int, ticks: int = 5) -> int:
    """A 1-2-5 step giving at most `ticks` intervals up to `top` (counts: never a fraction)."""
    step = 1
    while top / step > ticks:
        for factor in (2, 2.5, 2):
            step = int(step * factor)
            if top / step <= ticks:
                break
    return step


BUCKET_SIZES = (DAY_MS, 7 * DAY_MS, 30 * DAY_MS, 91 * DAY_MS, 365 * DAY_MS)


def bucket_counts(
    points: Sequence[tuple[int, str]], *, max_buckets: int = 40
) -> tuple[list[int], dict[str, list[int]]]:
    """(time ms, series name) points → bucket starts covering all of them and counts per series.

    The bucket is the smallest of day/week/month/quarter/year that keeps at most `max_buckets`,
    so a six-year import and last week's chat both fill the chart instead of hiding in one edge.
    """
    if not points:
        return [], {}
    first, last = min(t for t, _ in points), max(t for t, _ in points)
    size = next((s for s in BUCKET_SIZES if (last - first) // s + 1 <= max_buckets), BUCKET_SIZES[-1])
    origin = first - first % size
    count = int((last - origin) // size) + 1
    starts = [origin + i * size for i in range(count)]
    series: dict[str, list[int]] = {}
    for at, name in points:
        series.setdefault(name, [0] * count)[int((at - origin) // size)] += 1
    return starts, series
