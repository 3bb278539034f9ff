"""Charts as SVG written by the server: no chart library, no script, styled by floor.css classes
(a Content-Security-Policy without ``unsafe-inline`` forbids style attributes, so only classes).

The figures come ready from the projections; this module only places them: a value becomes a
coordinate (a float is fine there), and its label is the projection's own text.

No label covers a point, the line, an axis or another label: each label's box (its text's width
estimated for the style sheet's 11 px type) is placed above its point, else below it, else beside
it, else left out (the point's tooltip still says it); the labels under the axis are thinned the
same way when they are too many for their width, and the axis's figures get the margin they need.
A point at the top of the plot has room above it (``TOP``), so the label of a chart's lone point
is always shown, above the point.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from markupsafe import Markup

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 30, 36
#: A label's box, in the chart's units (floor.css: 11 px type; the values' in bold): the width
#: of one character at most, and the box's height above and below its baseline.
CHAR, BOLD_CHAR, ASCENT, DESCENT = 7.2, 7.8, 9.0, 3.0
RADIUS = 4  # a point's circle
GAP = 2.0  # the least room between a label and what it must not touch
AXIS_LABELS = HEIGHT - BOTTOM + 18  # the baseline of the labels under the axis

Box = tuple[float, float, float, float]  # left, top, right, bottom
Segment = tuple[float, float, float, float]  # x1, y1, x2, y2


def _text_box(text: str, x: float, baseline: float, char: float = CHAR) -> Box:
    """The box a middle-anchored text takes."""
    half = len(text) * char / 2
    return (x - half, baseline - ASCENT, x + half, baseline + DESCENT)


def _overlap(a: Box, b: Box) -> bool:
    return not (
        a[2] + GAP <= b[0] or b[2] + GAP <= a[0] or a[3] + GAP <= b[1] or b[3] + GAP <= a[1]
    )


def _crosses(box: Box, segment: Segment) -> bool:
    """Whether a line segment passes through ``box`` (grown by ``GAP``): sampled every unit."""
    x1, y1, x2, y2 = segment
    steps = max(1, int(max(abs(x2 - x1), abs(y2 - y1))))
    left, top, right, bottom = box[0] - GAP, box[1] - GAP, box[2] + GAP, box[3] + GAP
    for i in range(steps + 1):
        x, y = x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps
        if left <= x <= right and top <= y <= bottom:
            return True
    return False


def _short(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"


class _Plot:
    """One chart's scale and what its labels must stay clear of: boxes (points, the axis's
    figures, the labels placed) and segments (the axes, the line)."""

    def __init__(self, values: Sequence[float], unit: str) -> None:
        self.low, self.high = min(0.0, *values), max(0.0, *values)
        if self.high == self.low:
            self.high = self.low + 1
        self.ticks = [(v, f"{_short(v)}{unit}") for v in (self.high, self.low)]
        # The axis's figures sit left of it: as wide a margin as the wider needs.
        self.left = max(LEFT, 10 + max(len(text) for _, text in self.ticks) * CHAR)
        self.boxes: list[Box] = []
        self.segments: list[Segment] = []

    def y(self, value: float) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (self.high - value) / (self.high - self.low)

    def xs(self, count: int) -> list[float]:
        step = (WIDTH - self.left - RIGHT) / max(count, 1)
        return [self.left + step * (i + 0.5) for i in range(count)]

    def clear(self, box: Box) -> bool:
        inside = box[0] >= 0 and box[2] <= WIDTH and box[1] >= 0 and box[3] <= HEIGHT
        return (
            inside
            and not any(_overlap(box, other) for other in self.boxes)
            and not any(_crosses(box, segment) for segment in self.segments)
        )

    def place(self, box: Box) -> bool:
        if not self.clear(box):
            return False
        self.boxes.append(box)
        return True

    def axes(self) -> list[str]:
        """The two axes and the axis's highest and lowest figures, left of it."""
        zero, left = self.y(0), self.left
        self.segments += [(left, zero, WIDTH - RIGHT, zero), (left, TOP, left, HEIGHT - BOTTOM)]
        out = [
            f'<line class="axis" x1="{left:.1f}" y1="{zero:.1f}" x2="{WIDTH - RIGHT}" '
            f'y2="{zero:.1f}"/>',
            f'<line class="axis" x1="{left:.1f}" y1="{TOP}" x2="{left:.1f}" '
            f'y2="{HEIGHT - BOTTOM}"/>',
        ]
        for value, text in self.ticks:
            baseline = self.y(value) + 4
            self.boxes.append(
                (left - 6 - len(text) * CHAR, baseline - ASCENT, left - 6, baseline + DESCENT)
            )
            out.append(
                f'<text class="tick" x="{left - 6:.1f}" y="{baseline:.1f}" '
                f'text-anchor="end">{escape(text)}</text>'
            )
        return out

    def axis_labels(self, labels: Sequence[str], xs: Sequence[float]) -> list[str]:
        """The labels under the axis, left to right, each shown only where it has room (many
        gaming days: every second, third … of them)."""
        out = []
        for label, x in zip(labels, xs, strict=True):
            if self.place(_text_box(label, x, AXIS_LABELS)):
                out.append(
                    f'<text class="label" x="{x:.1f}" y="{AXIS_LABELS}" '
                    f'text-anchor="middle">{escape(label)}</text>'
                )
        return out

    def value_label(self, text: str, x: float, y: float) -> str:
        """A point's figure: above it, else below, else right or left of it; else none."""
        half = len(text) * BOLD_CHAR / 2
        beside = y + (ASCENT - DESCENT) / 2
        for cx, baseline in (
            (x, y - RADIUS - GAP - DESCENT - 1),
            (x, y + RADIUS + GAP + ASCENT + 1),
            (x + RADIUS + GAP + 1 + half, beside),
            (x - RADIUS - GAP - 1 - half, beside),
        ):
            if self.place(_text_box(text, cx, baseline, BOLD_CHAR)):
                return (
                    f'<text class="value" x="{cx:.1f}" y="{baseline:.1f}" '
                    f'text-anchor="middle">{escape(text)}</text>'
                )
        return ""


def _svg(title: str, kind: str, body: Sequence[str]) -> Markup:
    return Markup(
        f'<svg class="chart {kind}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>" + "".join(body) + "</svg>"
    )


def line_chart(
    title: str, points: Sequence[tuple[str, float, str]], *, unit: str = "", scale: float = 1
) -> Markup:
    """One point per (label, value, text): a polyline through them, each a circle with its text
    as a tooltip and, where it has room, as a label. ``scale`` divides the values for the axis
    (100: minor units to units)."""
    if not points:
        return Markup(f'<p class="empty">{escape(title)}: nothing to chart yet.</p>')
    values = [v / scale for _, v, _ in points]
    plot = _Plot(values, unit)
    xs = plot.xs(len(points))
    ys = [plot.y(v) for v in values]
    plot.boxes += [
        (x - RADIUS, y - RADIUS, x + RADIUS, y + RADIUS) for x, y in zip(xs, ys, strict=True)
    ]
    plot.segments += [(xs[i], ys[i], xs[i + 1], ys[i + 1]) for i in range(len(xs) - 1)]
    body = plot.axes()
    body += plot.axis_labels([label for label, _, _ in points], xs)
    body.append(
        '<polyline class="line" points="'
        + " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
        + '"/>'
    )
    for (label, _, text), x, y in zip(points, xs, ys, strict=True):
        body.append(
            f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="{RADIUS}" '
            f'data-label="{escape(label)}"><title>{escape(label)}: {escape(text)}</title></circle>'
        )
    body += [
        plot.value_label(text, x, y) for (_, _, text), x, y in zip(points, xs, ys, strict=True)
    ]
    return _svg(title, "line-chart", body)


def pair_bars(
    title: str, rows: Sequence[tuple[str, int, int]], names: tuple[str, str], scale: float = 100
) -> Markup:
    """Two bars per label (drop against handle): ``rows`` of (label, first, second)."""
    if not rows:
        return Markup(f'<p class="empty">{escape(title)}: nothing to chart yet.</p>')
    plot = _Plot([v / scale for _, a, b in rows for v in (a, b)], "")
    xs = plot.xs(len(rows))
    step = (WIDTH - plot.left - RIGHT) / len(rows)
    width = step * 0.35
    zero = plot.y(0)
    body = plot.axes()
    body += plot.axis_labels([label for label, *_ in rows], xs)
    for (label, *pair), middle in zip(rows, xs, strict=True):
        for j, (name, value) in enumerate(zip(names, pair, strict=True)):
            x = middle - step / 2 + step * 0.12 + j * width
            y = plot.y(value / scale)
            top, height = min(y, zero), abs(zero - y)
            body.append(
                f'<rect class="bar bar-{j}" x="{x:.1f}" y="{top:.1f}" width="{width:.1f}" '
                f'height="{height:.1f}"><title>{escape(label)} {name}: '
                f"{value / scale:,.2f}</title></rect>"
            )
    body += [
        f'<rect class="bar bar-{j}" x="{WIDTH - RIGHT - 150 + j * 75}" y="4" width="10" '
        f'height="10"/><text class="tick" x="{WIDTH - RIGHT - 136 + j * 75}" y="13">{name}</text>'
        for j, name in enumerate(names)
    ]
    return _svg(title, "bar-chart", body)
