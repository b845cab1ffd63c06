"""Accuracy of a prediction run, whole and split by the kind of code an item came from
(reference, faulty, mutant, answer) and by task, each with the report's interval (the
items are the "tasks" the bootstrap resamples, stats.total_interval). An item made from
several kinds of code counts in each of its kinds. Items are resampled as if independent;
items of one task share its code, so the intervals are narrower than a new draw of tasks
would give (ITEMS_NOTE, printed beside them).

A run of a published benchmark's set adds the numbers its leaderboard prints: for CruxEval-O
pass@1 and pass@5, each item's unbiased estimate from its n samples (1 - C(n-c, k) / C(n, k),
stats.pass_at_k, as the benchmark's evaluation computes it) averaged over the items, shown
as a percentage with one decimal. An item with fewer than k samples has no pass@k here (the
benchmark's code would call it 1 whenever n - c < k); with fewer than k samples for every
item the row is left out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import stats
from ..outcomes import Outcomes, load_run
from .evaluate import PredictRun, read_predict_run
from .items import SOURCE_KINDS

ITEMS_NOTE = ("Intervals resample items as the report resamples tasks; items of one task share code, "
              "so they are narrower than a new draw of tasks would give.")


@dataclass
class Accuracy:
    group: str
    items: int
    trials: int
    correct: int
    accuracy: float
    low: float
    high: float


def accuracy(group: str, counts: pd.DataFrame) -> Accuracy:
    """Mean share of trials answered correctly per item, with its 95% interval."""
    n, c = counts["n1"].to_numpy(), counts["c1"].to_numpy()
    items = len(n)
    low, high = stats.total_interval(n, c)
    return Accuracy(group, items, int(n.sum()), int(c.sum()), float(np.mean(c / n)), low / items, high / items)


# The k its leaderboard prints, per benchmark.
LEADERBOARD_KS = {"cruxeval-o": (1, 5)}
LEADERBOARD_NAMES = {"cruxeval-o": "CruxEval-O"}


def pass_at(name: str, n: np.ndarray, c: np.ndarray, k: int) -> Accuracy | None:
    """Mean pass@k over the items with at least k samples, with a bootstrap interval over
    those items; None when no item has k samples."""
    kept = n >= k
    if not kept.any():
        return None
    values = np.array([stats.pass_at_k(int(a), int(b), k) for a, b in zip(n[kept], c[kept])])
    rng = np.random.default_rng(stats.SEED)
    means = values[rng.integers(0, len(values), size=(stats.RESAMPLES, len(values)))].mean(axis=1)
    low, high = np.quantile(means, [(1 - stats.CONFIDENCE) / 2, (1 + stats.CONFIDENCE) / 2])
    return Accuracy(f"{name} pass@{k}", int(kept.sum()), int(n[kept].sum()), int(c[kept].sum()), float(values.mean()),
                    float(low), float(high))


def breakdown(frame: pd.DataFrame, info: PredictRun) -> dict[str, list[Accuracy]]:
    """Per configuration: all items, then each source kind and each task present."""
    out: dict[str, list[Accuracy]] = {}
    for (config,), counts in stats.task_counts(frame).groupby(level=["config"], sort=True):
        counts = counts.droplevel("config")
        rows = [accuracy("all items", counts)]
        for k in LEADERBOARD_KS.get(info.benchmark or "", ()):
            got = pass_at(LEADERBOARD_NAMES[info.benchmark or ""], counts["n1"].to_numpy(), counts["c1"].to_numpy(), k)
            rows += [got] if got is not None else []
        for kind in SOURCE_KINDS:
            ids = [i for i in counts.index if kind in info.items[i].sources]
            if ids:
                rows.append(accuracy(f"source {kind}", counts.loc[ids]))
        for task in sorted({info.items[i].task for i in counts.index}):
            rows.append(accuracy(f"task {task}", counts.loc[[i for i in counts.index if info.items[i].task == task]]))
        out[config] = rows
    return out


def run_breakdown(run_dir: Path) -> dict[str, list[Accuracy]] | None:
    """The breakdown of a prediction run; None for any other run."""
    info = read_predict_run(run_dir)
    if info is None:
        return None
    return breakdown(load_run(Path(run_dir)).frame, info)


def outcomes_breakdown(outcomes: Outcomes, frame: pd.DataFrame) -> dict[str, list[Accuracy]]:
    """The breakdown of every configuration of `outcomes` that is a prediction run's, by
    its name in `frame` (the report's rows: renamed when several sources share a name)."""
    out = {}
    for name, info in outcomes.configs.items():
        facts = read_predict_run(Path(info.run_dir)) if info.run_dir else None
        rows = frame[frame["config"] == name]
        if facts is not None and len(rows):
            out.update(breakdown(rows, facts))
    return out
