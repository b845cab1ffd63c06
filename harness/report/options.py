"""The options every report builder takes: how unfinished trials count, what the intervals
are about and how they are computed, a selected cohort, compare's round and bar."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .. import stats
from ..accounting import Accounting
from .data import IntervalData


class ReportOptions(BaseModel):
    resamples: int = Field(stats.RESAMPLES, ge=100)
    seed: int = stats.SEED
    confidence: float = Field(stats.CONFIDENCE, gt=0, lt=1)
    interval: stats.Target = "tasks"             # --interval: what the intervals are about
    cohort: int | None = Field(None, ge=1)      # --cohort best:K
    # --round: the round a cohort is ranked by and a bar judged in; compare: the round of the
    # per-task tests, labels and heatmap. None: within two rounds for the first two, both
    # rounds shown for the last.
    round: Literal[1, 2] | None = None
    bar: float | None = None                     # compare: --pre-registered-bar DELTA
    # compare: the metric of written suites the bar judges (a share); None: tasks solved
    metric: Literal["valid", "kill_rate", "assertion_accuracy"] | None = None
    alpha: float = stats.ALPHA
    accounting: Accounting = "harness"           # how unfinished trials count (accounting.py)

    @property
    def judged_round(self) -> Literal[1, 2]:
        """The round a cohort is ranked by and a bar or metric judged in."""
        return self.round or 2

    def shown_rounds(self, rounds: int) -> list[int]:
        """The rounds a comparison's per-task labels are given for, of a run of `rounds`."""
        return [self.round] if self.round else [1, 2][:max(1, min(rounds, 2))]

    def method(self) -> str:
        return stats.interval_method(self.interval, self.resamples, self.seed, self.confidence)

    def interval_data(self, valid: bool) -> IntervalData:
        """What a JSON reader needs to use the intervals: their target, in words, and
        whether they are valid (not for a selected cohort)."""
        return IntervalData(target=self.interval, about=stats.TARGETS[self.interval], method=self.method(),
                            confidence=self.confidence, resamples=self.resamples, seed=self.seed, valid=valid)
