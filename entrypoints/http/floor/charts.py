"""Charts as SVG written by the server: no chart library, no script, styled by floor.css classes
(a Content-Security-Policy without ``unsafe-inline`` forbids style attributes, so only classes).

The figures come ready from the projections; this module only places them: a value becomes a
coordinate (a float is fine there), and its label is the projection's own text.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from markupsafe import Markup

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 36


def _scale(values: Sequence[float]) -> tuple[float, float]:
    low = min(0.0, *values)
    high = max(0.0, *values)
    if high == low:
        high = low + 1
    return low, high


def _y(value: float, low: float, high: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (high - value) / (high - low)


def _frame(title: str, kind: str, body: list[str], low: float, high: float, unit: str) -> Markup:
    zero = _y(0, low, high)
    head = (
        f'<svg class="chart {kind}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>"
        f'<line class="axis" x1="{LEFT}" y1="{zero:.1f}" x2="{WIDTH - RIGHT}" y2="{zero:.1f}"/>'
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{HEIGHT - BOTTOM}"/>'
        f'<text class="tick" x="{LEFT - 6}" y="{_y(high, low, high) + 4:.1f}" '
        f'text-anchor="end">{_short(high)}{unit}</text>'
        f'<text class="tick" x="{LEFT - 6}" y="{_y(low, low, high) + 4:.1f}" '
        f'text-anchor="end">{_short(low)}{unit}</text>'
    )
    return Markup(head + "".join(body) + "</svg>")


def _short(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"


def line_chart(
    title: str, points: Sequence[tuple[str, float, str]], *, unit: str = "", scale: float = 1
) -> Markup:
    """One point per (label, value, text): a polyline through them, each a circle with its text
    as a tooltip. ``scale`` divides the values for the axis (100: minor units to units)."""
    if not points:
        return Markup(f'<p class="empty">{escape(title)}: nothing to chart yet.</p>')
    values = [v / scale for _, v, _ in points]
    low, high = _scale(values)
    step = (WIDTH - LEFT - RIGHT) / max(len(points), 1)
    xs = [LEFT + step * (i + 0.5) for i in range(len(points))]
    ys = [_y(v, low, high) for v in values]
    body = [
        '<polyline class="line" points="'
        + " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
        + '"/>'
    ]
    for (label, _, text), x, y in zip(points, xs, ys, strict=True):
        body.append(
            f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="4" data-label="{escape(label)}">'
            f"<title>{escape(label)}: {escape(text)}</title></circle>"
            f'<text class="label" x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" '
            f'text-anchor="middle">{escape(label)}</text>'
            f'<text class="value" x="{x:.1f}" y="{max(y - 8, TOP + 10):.1f}" '
            f'text-anchor="middle">{escape(text)}</text>'
        )
    return _frame(title, "line-chart", body, low, high, unit)


def pair_bars(
    title: str, rows: Sequence[tuple[str, int, int]], names: tuple[str, str], scale: float = 100
) -> Markup:
    """Two bars per label (drop against handle): ``rows`` of (label, first, second)."""
    if not rows:
        return Markup(f'<p class="empty">{escape(title)}: nothing to chart yet.</p>')
    values = [v / scale for _, a, b in rows for v in (a, b)]
    low, high = _scale(values)
    step = (WIDTH - LEFT - RIGHT) / len(rows)
    width = step * 0.35
    zero = _y(0, low, high)
    body = []
    for i, (label, *pair) in enumerate(rows):
        for j, (name, value) in enumerate(zip(names, pair, strict=True)):
            x = LEFT + step * i + step * 0.12 + j * width
            y = _y(value / scale, low, high)
            top, height = min(y, zero), abs(zero - y)
            body.append(
                f'<rect class="bar bar-{j}" x="{x:.1f}" y="{top:.1f}" width="{width:.1f}" '
                f'height="{height:.1f}"><title>{escape(label)} {name}: '
                f"{value / scale:,.2f}</title></rect>"
            )
        body.append(
            f'<text class="label" x="{LEFT + step * (i + 0.5):.1f}" y="{HEIGHT - BOTTOM + 16}" '
            f'text-anchor="middle">{escape(label)}</text>'
        )
    legend = "".join(
        f'<rect class="bar bar-{j}" x="{WIDTH - RIGHT - 150 + j * 75}" y="2" width="10" '
        f'height="10"/><text class="tick" x="{WIDTH - RIGHT - 136 + j * 75}" y="11">{name}</text>'
        for j, name in enumerate(names)
    )
    return _frame(title, "bar-chart", [*body, legend], low, high, "")
