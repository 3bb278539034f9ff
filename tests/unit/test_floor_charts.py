"""The floor's SVG charts keep their labels clear: a lone point's label is shown and never on the
point (above it, whatever its value), and with many points no label covers a point, another
label or the axis's figures (labels with no room are left to the point's tooltip)."""

from __future__ import annotations

import re

import pytest

from entrypoints.http.floor import charts
from entrypoints.http.floor.formats import money

Box = tuple[float, float, float, float]
#: A text's box at floor.css's 11 px type: a character at most 7.2 units wide (7.8 in bold, the
#: values), 9 above the baseline and 3 below (the browser test measures the real ones).
CHAR, BOLD, ASCENT, DESCENT = 7.2, 7.8, 9.0, 3.0


def texts(svg: str, kind: str) -> list[tuple[float, float, str, str]]:
    """(x, baseline, anchor, text) of each ``<text class=kind>``."""
    found = re.findall(
        rf'<text class="{kind}" x="([-\d.]+)" y="([-\d.]+)" text-anchor="(\w+)">([^<]*)</text>',
        svg,
    )
    return [(float(x), float(y), anchor, text) for x, y, anchor, text in found]


def box(x: float, y: float, anchor: str, text: str, char: float = CHAR) -> Box:
    width = len(text) * char
    left = {"middle": x - width / 2, "end": x - width, "start": x}[anchor]
    return (left, y - ASCENT, left + width, y + DESCENT)


def circles(svg: str) -> list[Box]:
    found = re.findall(r'<circle class="point" cx="([-\d.]+)" cy="([-\d.]+)" r="([\d.]+)"', svg)
    return [
        (float(x) - float(r) - 1, float(y) - float(r) - 1, float(x) + float(r) + 1,
         float(y) + float(r) + 1)
        for x, y, r in found
    ]  # fmt: skip


def overlap(a: Box, b: Box) -> bool:
    return not (a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1])


def labels_of(svg: str) -> list[Box]:
    return [
        box(*t, char=BOLD if kind == "value" else CHAR)
        for kind in ("value", "label", "tick")
        for t in texts(svg, kind)
    ]


@pytest.mark.parametrize("value", [1_650, -2_000, 0, 123_456_789, -99_999_999, 1])
def test_a_lone_points_label_is_shown_and_clear_of_the_point(value: int) -> None:
    svg = charts.line_chart("Win by hour", [("20:00", value, money(value))], scale=100)
    (point,) = circles(svg)
    (label,) = texts(svg, "value")
    assert label[3] == money(value)
    assert not overlap(box(*label, char=BOLD), point), (label, point)
    assert label[1] + DESCENT <= point[1] + 1  # above the point
    assert all(b[0] >= 0 and b[2] <= charts.WIDTH and b[1] >= 0 for b in labels_of(svg))


@pytest.mark.parametrize("count", [2, 7, 24, 60, 365])
def test_many_points_labels_cover_no_point_and_no_other_label(count: int) -> None:
    values = [((i * 7919) % 401 - 150) * 100 for i in range(count)]
    points = [
        (f"2026-{1 + i // 28:02d}-{1 + i % 28:02d}", v, money(v)) for i, v in enumerate(values)
    ]
    svg = charts.line_chart("Win by gaming day", points, scale=100)
    shown = labels_of(svg)
    assert len(texts(svg, "value")) >= min(count, 2)  # some, where they have room
    assert len(texts(svg, "label")) >= min(count, 5)  # thinned, never none
    for i, one in enumerate(shown):
        assert not any(overlap(one, point) for point in circles(svg)), one
        assert not any(overlap(one, other) for other in shown[i + 1 :]), one


def test_the_bars_labels_are_thinned_when_the_tables_are_many() -> None:
    rows = [(f"PG-{n}", 10_000 * n, 20_000 * n) for n in range(1, 41)]
    svg = charts.pair_bars("Drop against handle", rows, ("drop", "handle"))
    shown = labels_of(svg)
    assert 5 <= len(texts(svg, "label")) < 40
    for i, one in enumerate(shown):
        assert not any(overlap(one, other) for other in shown[i + 1 :]), one
