"""A player who sets each hand for the most money against a known banker (``house-way edge``).

"Optimal play" here is the best response to the banker's House Way, card removal aside: of the
seven cards' legal splits (R-SET-1), the one whose expected result is highest against the
distribution of the banker's (back, front) strengths, as a sample of banker hands set by the
House Way gives it. A player wins when both hands beat the banker's, loses when neither does
(a copy is the banker's, R-SET-3), pushes otherwise; a win pays the wager less ``commission`` (a
fraction). The distribution ignores the seven cards the player holds (card removal), so this is
a measure of the way, close to but not exactly the optimal strategy; the edge against it is
measured by simulation like any other (``table_core.analysis``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence

from table_core.cards import Card
from table_core.hands import FiveCardTables, tables_for
from table_core.house_ways.shape import Decision, analyse

OPTIMAL = "optimal"  # the rule a best-response split records


class BestResponse:
    """``cards -> (split, "optimal")``: the legal split with the highest expected result against
    ``banker``, a sample of the banker's ``(back strength, front strength)``."""

    def __init__(
        self,
        banker: Iterable[tuple[int, int]],
        commission: float = 0.05,
        tables: FiveCardTables | None = None,
    ) -> None:
        sample = list(banker)
        if not sample:
            raise ValueError("a best response needs banker hands")
        self.tables = tables or tables_for("second")
        self.pay = 1.0 - commission
        self.backs = sorted({back for back, _ in sample})
        self.fronts = sorted({front for _, front in sample})
        rows, cols = len(self.backs) + 1, len(self.fronts) + 1
        back_index = {b: i for i, b in enumerate(self.backs)}
        front_index = {f: j for j, f in enumerate(self.fronts)}
        # below[i][j]: banker hands whose back is among the i lowest and front among the j lowest.
        grid = [[0] * cols for _ in range(rows)]
        for back, front in sample:
            grid[back_index[back] + 1][front_index[front] + 1] += 1
        for i in range(1, rows):
            row, above = grid[i], grid[i - 1]
            running = 0
            for j in range(1, cols):
                running += row[j]
                row[j] = above[j] + running
        self.below = grid
        self.total = len(sample)

    def value(self, back: int, front: int) -> float:
        """The expected result of a split per unit wagered (a push is 0)."""
        i = bisect_left(self.backs, back)  # banker backs this back beats
        j = bisect_left(self.fronts, front)
        below = self.below
        win = below[i][j]
        loss = self.total - below[i][-1] - below[-1][j] + win
        return (win * self.pay - loss) / self.total

    def __call__(self, cards: Sequence[Card]) -> Decision:
        best, best_value = None, -2.0
        for split in analyse(cards, self.tables).splits():
            if not split.legal:
                continue
            value = self.value(split.back_strength, split.front_strength)
            if value > best_value:
                best, best_value = split, value
        assert best is not None, "seven cards always have a legal split"
        return best, OPTIMAL
