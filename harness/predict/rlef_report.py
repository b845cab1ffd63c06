"""What a Self-RLEF run's report adds per configuration (predict/rlef.py): the public pass
rate (finished trials whose submitted code passes every public test, each task's share
averaged over tasks, with the report's task-and-trial bootstrap interval), the average
number of turns (rounds of code), how many trials the model submitted itself (the others
ran out of rounds), and the public tests' transitions between the first code and the
submitted code: each (trial, public test) pair counted once as Fail->Pass, Pass->Fail,
Pass->Pass or Fail->Fail. Read from each trial's result.json."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .. import stats
from ..outcomes import Outcomes
from ..records import Record, TrialResult
from ..store import RunFolder
from .rlef import SELF_RLEF


class RlefFigures(Record):
    config: str
    feedback: str
    tasks: int
    trials: int = 0
    public_pass_rate: float = 0.0
    public_pass_low: float = 0.0
    public_pass_high: float = 0.0
    average_turns: float = 0.0
    submitted_by_model: int = 0
    fail_pass: int = 0
    pass_fail: int = 0
    pass_pass: int = 0
    fail_fail: int = 0


def _count(figures: RlefFigures, result: TrialResult) -> bool | None:
    """Adds one finished trial's turns and public transitions; whether its submitted code
    passes every public test (None: no public results recorded)."""
    first, last = result.rounds[0].self_rlef, result.rounds[-1].self_rlef
    if first is None or last is None:
        return None
    figures.trials += 1
    figures.average_turns += len(result.rounds)
    figures.submitted_by_model += last.decision == "submit"
    for name, before in first.public.items():
        after = last.public.get(name, False)
        key = f"{'pass' if before else 'fail'}_{'pass' if after else 'fail'}"
        setattr(figures, key, getattr(figures, key) + 1)
    return last.public_passed


def config_figures(name: str, feedback: str, run_dir: Path, run_config: str, rows: pd.DataFrame) -> RlefFigures:
    """One configuration's figures from its finished trials (`rows`: its outcome-frame rows)."""
    folder = RunFolder(run_dir)
    per_task: dict[str, list[bool]] = {}
    figures = RlefFigures(config=name, feedback=feedback, tasks=0)
    for row in rows[rows["done"]].itertuples():
        result = folder.read_result(run_config, str(row.task), int(row.trial))
        if result is None or not result.done or not result.rounds:
            continue
        passed = _count(figures, result)
        if passed is not None:
            per_task.setdefault(str(row.task), []).append(passed)
    if figures.trials:
        figures.average_turns /= figures.trials
        n = np.array([len(v) for v in per_task.values()], dtype=float)
        c = np.array([sum(v) for v in per_task.values()], dtype=float)
        low, high = stats.total_interval(n, c)
        figures.tasks = len(n)
        figures.public_pass_rate = float(np.mean(c / n))
        figures.public_pass_low, figures.public_pass_high = low / len(n), high / len(n)
    return figures


def outcomes_figures(outcomes: Outcomes, frame: pd.DataFrame) -> list[RlefFigures]:
    """The figures of every configuration of `outcomes` that ran Self-RLEF, by its name in
    `frame` (the report's rows)."""
    out = []
    for name, info in outcomes.configs.items():
        if info.feedback in SELF_RLEF and info.run_dir:
            out.append(config_figures(name, info.feedback, Path(info.run_dir), info.run_config or name,
                                      frame[frame["config"] == name]))
    return out
