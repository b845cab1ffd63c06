"""Every number a report prints, computed from the frame of trial outcomes
(harness.outcomes): means of tasks solved, recovery, task-bootstrap intervals, unbiased
pass@k, paired differences, per-task exact tests with Holm's correction, and cohort
selection.

The unit of sampling is the task. A configuration's score is the expected number of tasks
solved, estimated as the sum over tasks of each task's success rate over its finished
trials; with every trial finished that is exactly the mean over trials of the tasks solved
in that trial. Intervals resample tasks with replacement, each task keeping all of its
trials, because the question a study asks is how the score would move on another draw of
tasks like these, and trials of one task are not independent of each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from .errors import BadInput

RESAMPLES = 10_000
SEED = 0
CONFIDENCE = 0.95
ALPHA = 0.05

# Index draws per chunk when turning resamples into counts: bounds memory (8 bytes each)
# whatever the suite size.
_CHUNK_DRAWS = 2_000_000


def interval_method(resamples: int = RESAMPLES, seed: int = SEED, confidence: float = CONFIDENCE) -> str:
    """The sentence every report prints next to its intervals."""
    return (
        f"{confidence:.0%} task-bootstrap percentile intervals: the tasks are resampled with "
        f"replacement, each keeping all of its trials; {resamples:,} resamples, seed {seed}."
    )


# --- per-task counts ---------------------------------------------------------------------


def task_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (config, task): finished trials n, successes in round 1 (c1) and within two
    rounds (c2). Unfinished trials (infrastructure errors, never written) do not count."""
    done = frame[frame["done"]]
    counts = done.groupby(["config", "task"], observed=True, sort=True).agg(
        n=("trial", "size"), c1=("round1", "sum"), c2=("round2", "sum")
    )
    return counts.astype("int64")


def rates(counts: pd.DataFrame) -> np.ndarray:
    """(N, 2) per-task success rates, round 1 and within two rounds."""
    n = counts["n"].to_numpy(dtype=float)
    return np.column_stack([counts["c1"].to_numpy() / n, counts["c2"].to_numpy() / n])


# --- bootstrap ---------------------------------------------------------------------------


def bootstrap_sums(values: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Bootstrap distribution of column sums over rows resampled with replacement.

    values: (N,) or (N, m), one row per task. Returns (resamples, m). Resample b draws N
    row indices exactly as `rng.integers(0, N, (resamples, N))` would (the draw
    scipy.stats.bootstrap makes), so with the same seed both see the same resamples. The
    sum is linear in how often each row was drawn, so a chunk of resamples becomes a count
    matrix and all m columns cost one matrix product: several configurations over suites
    of the same size share one pass."""
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    n_rows = values.shape[0]
    if n_rows == 0:
        raise ValueError("bootstrap over zero tasks")
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, values.shape[1]))
    step = max(1, _CHUNK_DRAWS // n_rows)
    for start in range(0, resamples, step):
        size = min(step, resamples - start)
        idx = rng.integers(0, n_rows, (size, n_rows))
        idx += (np.arange(size) * n_rows)[:, None]
        counts = np.bincount(idx.ravel(), minlength=size * n_rows).reshape(size, n_rows)
        out[start:start + size] = counts @ values
    return out


def percentile_interval(distribution: np.ndarray, confidence: float = CONFIDENCE) -> np.ndarray:
    """(2, m) lower and upper percentile bounds of a (B, m) bootstrap distribution."""
    tail = (1 - confidence) / 2
    return np.quantile(distribution, [tail, 1 - tail], axis=0)


def bootstrap_p_value(distribution: np.ndarray) -> np.ndarray:
    """Two-sided p-value for "the difference is zero" from the bootstrap distribution of a
    difference: twice the smaller tail beyond zero, counted with the +1 that keeps a finite
    number of resamples from ever claiming p = 0. It agrees with the percentile interval:
    p < 1 - confidence roughly when the interval excludes zero."""
    b = distribution.shape[0]
    below = (distribution <= 0).sum(axis=0)
    above = (distribution >= 0).sum(axis=0)
    return np.minimum(1.0, 2 * (np.minimum(below, above) + 1) / (b + 1))


# --- pass@k ------------------------------------------------------------------------------


@lru_cache(maxsize=65_536)
def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n trials with c successes: 1 - C(n-c, k) / C(n, k), the chance
    that k trials drawn without replacement from the n hold at least one success."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@{k} needs 1 <= k <= n and 0 <= c <= n (n={n}, c={c})")
    if n - c < k:
        return 1.0
    # Python's int / int is correctly rounded however large the binomials get.
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def ks_to_show(trials: int) -> list[int]:
    """Every k up to T when T is small; otherwise 1, 2, 5, 10, 20, 50, ... and T."""
    if trials <= 10:
        return list(range(1, trials + 1))
    ks, base = [], 1
    while base <= trials:
        ks += [k for k in (base, 2 * base, 5 * base) if k <= trials]
        base *= 10
    return sorted(set(ks + [trials]))


def mean_pass_at_k(n: np.ndarray, c: np.ndarray, k: int) -> float:
    """pass@k averaged over the tasks with at least k finished trials (nan if none)."""
    values = [pass_at_k(int(ni), int(ci), k) for ni, ci in zip(n, c) if ni >= k]
    return float(np.mean(values)) if values else float("nan")


# --- tests of two success counts ---------------------------------------------------------


@lru_cache(maxsize=None)
def exact_test(c_base: int, n_base: int, c_new: int, n_new: int) -> float:
    """Two-sided p-value of Fisher's exact test on the 2x2 table of successes and failures.

    Why Fisher's and not Boschloo's: both are exact; Boschloo's is more powerful but
    maximises over a nuisance parameter numerically (tens of milliseconds per table, and a
    result that depends on the search grid), while Fisher's conditional test is a closed
    sum over one hypergeometric distribution: deterministic, cheap enough to run on every
    task of every comparison, and conservative, which errs towards "n.s." rather than
    towards announcing a regression that is not there."""
    from scipy.stats import fisher_exact  # scipy.stats takes ~1 s to import: only here

    table = [[c_new, n_new - c_new], [c_base, n_base - c_base]]
    return float(fisher_exact(table, alternative="two-sided").pvalue)


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values, in the input's order: the i-th smallest p is
    multiplied by (m - i + 1), then made non-decreasing along the sorted order and capped
    at 1. A hypothesis is rejected at level alpha when its adjusted p is <= alpha."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, p[order] * (m - np.arange(m)))
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


# --- summaries ---------------------------------------------------------------------------


@dataclass
class Ratio:
    k: int
    n: int

    @property
    def fraction(self) -> float | None:
        return self.k / self.n if self.n else None


@dataclass
class Health:
    """Agent health over a configuration's trials (every recorded trial, finished or not)."""

    trials: int              # task-trials expected
    finished: int
    infra_errors: int
    missing: int             # never written
    malformed_responses: int
    exhausted_context_windows: int
    timeouts: int
    tokens_per_trial: float | None
    cost_per_trial: float | None


@dataclass
class Summary:
    """The headline numbers of one configuration over one set of tasks."""

    config: str
    tasks: int                       # N: tasks with at least one finished trial
    trials: int                      # T: the most finished trials any task has
    mean: tuple[float, float]        # expected tasks solved: round 1, within two rounds
    interval: tuple[tuple[float, float], tuple[float, float]] | None = None
    recovery: Ratio = field(default_factory=lambda: Ratio(0, 0))
    pass_at_k: dict[str, dict[int, float]] = field(default_factory=dict)  # "round1"/"round2"

    def percent(self, round_no: int) -> float:
        return 100.0 * self.mean[round_no - 1] / self.tasks if self.tasks else float("nan")


def recovery(counts: pd.DataFrame) -> Ratio:
    """First-round failures over all finished task-trials (n), and those solved in round 2
    (k). Round 2 only runs after a failed round 1, so c2 - c1 are exactly the recoveries."""
    return Ratio(k=int((counts["c2"] - counts["c1"]).sum()), n=int((counts["n"] - counts["c1"]).sum()))


def summarize(config: str, counts: pd.DataFrame, with_pass_at_k: bool = True) -> Summary:
    """Means, recovery and pass@k of one configuration from its per-task counts (one row
    per task). Intervals come separately (bootstrap_intervals), so that every configuration
    of a report is resampled in one pass."""
    r = rates(counts)
    summary = Summary(
        config=config,
        tasks=len(counts),
        trials=int(counts["n"].max()) if len(counts) else 0,
        mean=(float(r[:, 0].sum()), float(r[:, 1].sum())),
        recovery=recovery(counts),
    )
    if with_pass_at_k:
        n, c1, c2 = (counts[col].to_numpy() for col in ("n", "c1", "c2"))
        ks = ks_to_show(summary.trials)
        summary.pass_at_k = {
            "round1": {k: mean_pass_at_k(n, c1, k) for k in ks},
            "round2": {k: mean_pass_at_k(n, c2, k) for k in ks},
        }
    return summary


def bootstrap_intervals(
    blocks: list[np.ndarray], resamples: int = RESAMPLES, seed: int = SEED, confidence: float = CONFIDENCE
) -> list[np.ndarray]:
    """Percentile intervals of the column sums of each (N_i, m_i) block: one (2, m_i) array
    per block. Blocks with the same N share one resampling pass (and so the same resampled
    task positions, which leaves each block's own interval what it would be alone)."""
    by_size: dict[int, list[int]] = {}
    for i, block in enumerate(blocks):
        by_size.setdefault(block.shape[0], []).append(i)
    out: list[np.ndarray] = [np.empty(0)] * len(blocks)
    for members in by_size.values():
        stacked = np.hstack([blocks[i] for i in members])
        bounds = percentile_interval(bootstrap_sums(stacked, resamples, seed), confidence)
        col = 0
        for i in members:
            width = blocks[i].shape[1]
            out[i] = bounds[:, col:col + width]
            col += width
    return out


def health(frame: pd.DataFrame) -> Health:
    """Agent health of one configuration's rows (finished or not)."""
    recorded = frame[frame["status"] != "missing"]
    tokens = recorded["prompt_tokens"] + recorded["completion_tokens"]
    return Health(
        trials=len(frame),
        finished=int(frame["done"].sum()),
        infra_errors=int((frame["status"] == "infra_error").sum()),
        missing=int((frame["status"] == "missing").sum()),
        malformed_responses=int(frame["malformed_responses"].sum()),
        exhausted_context_windows=int(frame["exhausted_context_windows"].sum()),
        timeouts=int(frame["timeouts"].sum()),
        tokens_per_trial=float(tokens.mean()) if len(recorded) else None,
        cost_per_trial=float(recorded["cost"].mean()) if len(recorded) else None,
    )


# --- paired comparison -------------------------------------------------------------------


@dataclass
class PairedDifference:
    """NEW minus BASE in expected tasks solved over the shared tasks, one round."""

    round: int
    base: float
    new: float
    difference: float
    interval: tuple[float, float]
    p_value: float


def paired_differences(
    base: pd.DataFrame, new: pd.DataFrame, resamples: int = RESAMPLES, seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> list[PairedDifference]:
    """Paired task bootstrap over the tasks both count tables hold (same index, same
    order): each resample draws tasks and takes both configurations' rates on them."""
    if not base.index.equals(new.index):
        raise ValueError("paired counts must cover the same tasks in the same order")
    rb, rn = rates(base), rates(new)
    distribution = bootstrap_sums(rn - rb, resamples, seed)
    bounds = percentile_interval(distribution, confidence)
    p = bootstrap_p_value(distribution)
    return [
        PairedDifference(
            round=i + 1,
            base=float(rb[:, i].sum()),
            new=float(rn[:, i].sum()),
            difference=float((rn[:, i] - rb[:, i]).sum()),
            interval=(float(bounds[0, i]), float(bounds[1, i])),
            p_value=float(p[i]),
        )
        for i in range(2)
    ]


def clears_bar(difference: PairedDifference, delta: float) -> bool:
    """A pre-registered bar of `delta` tasks is cleared when the lower bound of the gain's
    interval lies above it, not merely the point estimate."""
    return difference.interval[0] > delta


@dataclass
class TaskChange:
    task: str
    base: tuple[int, int, int]   # n, c1, c2
    new: tuple[int, int, int]
    change: float                # difference of success rates in the chosen round
    p_value: float
    p_holm: float
    label: str


def task_changes(base: pd.DataFrame, new: pd.DataFrame, round_no: int, alpha: float = ALPHA) -> list[TaskChange]:
    """One row per shared task: counts, the change in success rate in `round_no`, Fisher's
    exact p-value, its Holm adjustment across the tasks, and the label. A gain or a
    regression is called significant only when its Holm-adjusted p is <= alpha; otherwise
    it is labelled "(n.s.)". Sorted by change, regressions first, then by task."""
    col = f"c{round_no}"
    nb, cb = base["n"].to_numpy(), base[col].to_numpy()
    nn, cn = new["n"].to_numpy(), new[col].to_numpy()
    change = cn / nn - cb / nb
    p = np.array([exact_test(int(a), int(b), int(c), int(d)) for a, b, c, d in zip(cb, nb, cn, nn)])
    adjusted = holm(p)
    out = []
    for i, task in enumerate(base.index):
        if change[i] == 0:
            label = "no change"
        else:
            label = "gain" if change[i] > 0 else "regression"
            if adjusted[i] > alpha:
                label += " (n.s.)"
        out.append(TaskChange(
            task=str(task),
            base=tuple(int(base[c].iat[i]) for c in ("n", "c1", "c2")),
            new=tuple(int(new[c].iat[i]) for c in ("n", "c1", "c2")),
            change=float(change[i]), p_value=float(p[i]), p_holm=float(adjusted[i]), label=label,
        ))
    out.sort(key=lambda t: (t.change, t.task))
    return out


# --- cohorts -----------------------------------------------------------------------------


def parse_cohort(spec: str | None) -> int | None:
    """`best:K` -> K; None -> None (nothing selected)."""
    if spec is None:
        return None
    kind, _, number = spec.partition(":")
    if kind != "best" or not number.isdigit() or int(number) < 1:
        raise BadInput(f"--cohort {spec!r}: expected best:K with K a positive whole number")
    return int(number)


def best_trials(frame: pd.DataFrame, k: int) -> pd.DataFrame:
    """Keep, per configuration, the K trials with the highest total: tasks solved within
    two rounds, ties broken by tasks solved in round 1, then by the lower trial index.
    Every row of a kept trial stays (finished or not)."""
    totals = (
        frame[frame["done"]].groupby(["config", "trial"], observed=True)[["round2", "round1"]].sum()
        .reset_index()
    )
    all_trials = frame[["config", "trial"]].drop_duplicates()
    totals = all_trials.merge(totals, on=["config", "trial"], how="left").fillna({"round1": 0, "round2": 0})
    per_config = totals.groupby("config", observed=True)["trial"].nunique()
    short = per_config[per_config < k]
    if len(short):
        name, have = short.index[0], int(short.iloc[0])
        raise BadInput(f"--cohort best:{k}: config {name} has only {have} trials")
    totals = totals.sort_values(["config", "round2", "round1", "trial"], ascending=[True, False, False, True])
    keep = totals.groupby("config", observed=True).head(k)[["config", "trial"]]
    return frame.merge(keep, on=["config", "trial"], how="inner")
