"""The document a report is built as, once, before any renderer sees it: lead lines,
warnings, notes, formatted tables, plot data, raw numbers for JSON and flat rows for CSV."""

from __future__ import annotations

from dataclasses import dataclass, field

import re

import numpy as np

# A cell that is a number: a count, a mean, a share, a ratio, an interval, a p-value, a cost
# ("n/a" and "-" stand in for one). Columns of them are right-aligned, the others left.
_NUMBER = re.compile(r"^(n/a|-|[-+$\[(]*\d.*)$")


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]]
    caption: str | None = None

    def numeric(self, column: int) -> bool:
        """Every cell of the column is a number: the renderers right-align it."""
        cells = [row[column].strip() for row in self.rows if column < len(row) and row[column].strip()]
        return bool(cells) and all(_NUMBER.match(cell) for cell in cells)


@dataclass
class Bars:
    """Grouped bars: mean tasks solved per config, round 1 and two rounds, with intervals."""

    title: str
    configs: list[str]
    tasks: list[int]
    means: list[tuple[float, float]]
    intervals: list[tuple[tuple[float, float], tuple[float, float]]]
    name: str = "solved"


@dataclass
class Heatmap:
    """Successes out of finished trials, one row per task, one column per config."""

    title: str
    tasks: list[str]
    configs: list[str]
    successes: np.ndarray   # (tasks, configs), -1 where a config has no finished trial
    trials: np.ndarray
    name: str = "tasks"


@dataclass
class Lines:
    """One line per task across checkpoints in lineage order: successes out of T."""

    title: str
    checkpoints: list[str]
    tasks: list[str]
    successes: np.ndarray   # (tasks, checkpoints), -1 where a checkpoint has no finished trial
    trials: np.ndarray
    ylabel: str
    name: str = "lineage"


@dataclass
class Document:
    kind: str                         # "report", "compare" or "lineage"
    title: str
    lead: list[str] = field(default_factory=list)     # said before any number
    warnings: list[str] = field(default_factory=list)  # said next: what makes numbers unreliable
    notes: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    plots: list[Bars | Heatmap | Lines] = field(default_factory=list)
    data: dict = field(default_factory=dict)          # for JSON: the report's result dumped (data.py)
    records: list[dict] = field(default_factory=list)  # one flat row each, for CSV
    verdict: str | None = None                        # PASS or FAIL of a pre-registered bar
    pages: str | None = None                          # HTML: the viewer's pages behind it (view/static.py)
    links: dict[str, str] = field(default_factory=dict)  # HTML: a table row's first cell -> its page's href
