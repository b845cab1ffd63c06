"""Every number a report prints, computed from the frame of trial outcomes
(harness.outcomes): means of tasks solved, recovery, intervals, unbiased pass@k, paired
differences with an exact test, per-task exact tests with Holm's correction, the power a
trial count allows, and cohort selection.

Counting. A trial's round-1 outcome counts once its first round was tested; its outcome
within two rounds counts once its second round was (or round 1 passed). A fault in round 2
never removes round 1's outcome: the trial counts in the round-1 rate and is left out of the
two-round rate and of recovery until `--resume` finishes it. A configuration's score is the
expected number of tasks solved: the sum over tasks of each task's success rate over its
trials whose outcome counts; with every trial counted that is the mean over trials of the
tasks solved in that trial.

Intervals say what they are about, one of two targets:

- "tasks" (the default): a new draw of tasks like these, each run for new trials. A
  two-level bootstrap: each resample draws N tasks with replacement, then new trials for
  each drawn task. Each task's trials are redrawn from its rate shrunk towards the
  configuration's pooled rate by the amount that makes the resampled spread of task rates
  equal to the spread observed (the observed spread already holds trial noise, so plain
  rates would count it twice), and never towards certainty where the suite shows none.
  Percentile levels are widened as Student's t widens a normal interval with N - 1 degrees
  of freedom (a bootstrap from few tasks is too narrow otherwise): a one- or two-task
  interval is the whole range the resamples reach.
- "trials": these same tasks, each run for new trials. Only trials are redrawn, each task's
  from its successes and failures plus TRIAL_PRIOR of each, so that 0/n or n/n is never
  taken as certain.

The bootstrap distribution is computed exactly by convolution where the trial counts allow
(bootstrap_distribution), else sampled. The smoothing constants were chosen by the coverage
simulation in tests/test_stats.py
(README, "Statistics"): suites of 3, 8 and 26 tasks with some tasks never solved, some
always, the rest spread, 2, 4 or 8 trials.

A paired difference (NEW minus BASE over shared tasks) has an interval for either target
and a p-value from the stratified exact test: under no change each task's successes are
spread over its trials of both configurations at random, so NEW's total of successes has the
convolution of the tasks' hypergeometric distributions as its exact null distribution,
whatever the number of tasks. Per task, Fisher's exact test with Holm's correction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from functools import lru_cache
from typing import Literal

import numpy as np
import pandas as pd

from .errors import BadInput

RESAMPLES = 10_000
SEED = 0
CONFIDENCE = 0.95
ALPHA = 0.05
MIN_TASKS = 8        # below this many tasks the report warns that intervals are unreliable
TRIAL_PRIOR = 0.125  # successes and failures added to a task's trials when they are redrawn alone
POWER = 0.8          # plan-trials: the chance of detecting the effect that a plan asks for

Target = Literal["tasks", "trials"]
TARGETS: dict[str, str] = {
    "tasks": "a new draw of tasks like these, each run for new trials",
    "trials": "these same tasks, each run for new trials",
}


def interval_method(target: Target = "tasks", resamples: int = RESAMPLES, seed: int = SEED,
                    confidence: float = CONFIDENCE) -> str:
    """The sentence every report prints next to its intervals: what they are about and how
    they were made."""
    if target == "tasks":
        how = ("two-level bootstrap: tasks resampled with replacement, then new trials for each drawn task; "
               "percentile levels widened by Student's t for the number of tasks")
    else:
        how = "bootstrap of trials within each task (the tasks are fixed)"
    return (f"{confidence:.0%} intervals for {TARGETS[target]} ({how}; the bootstrap distribution computed exactly, "
            f"or from {resamples:,} resamples with seed {seed} where unequal trial counts make its lattice too fine).")


def small_suite_warning(tasks: int, here: str | None = None) -> str | None:
    """The warning a report prints when its fewest tasks are below MIN_TASKS; `here` says
    where (which sets of tasks), when there is more than one."""
    if tasks >= MIN_TASKS:
        return None
    return (f"Warning: intervals are unreliable below {MIN_TASKS} tasks (here {here or tasks}); "
            "they are wide on purpose and still may not hold their nominal coverage.")


# --- per-task counts ---------------------------------------------------------------------


COUNT_COLUMNS = ["n1", "c1", "n2", "c2", "f2", "r2"]


def task_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (config, task): trials whose round-1 outcome counts (n1) and their successes
    (c1); trials whose outcome within two rounds counts (n2) and their successes (c2); of
    the latter, the round-1 failures (f2) and those passing after two rounds (r2: recovered).
    A task with no counted trial is left out."""
    known1, known2 = frame["round1_known"], frame["round2_known"]
    failed2 = known2 & ~frame["round1"]
    marked = pd.DataFrame({
        "config": frame["config"], "task": frame["task"],
        "n1": known1, "c1": known1 & frame["round1"], "n2": known2, "c2": known2 & frame["round2"],
        "f2": failed2, "r2": failed2 & frame["round2"],
    })
    counts = marked.groupby(["config", "task"], observed=True, sort=True)[COUNT_COLUMNS].sum()
    return counts[counts["n1"] > 0].astype("int64")


def round_counts(counts: pd.DataFrame, round_no: int) -> pd.DataFrame:
    """Columns n and c of one round, over the tasks that have a counted trial in it."""
    n, c = counts[f"n{round_no}"], counts[f"c{round_no}"]
    keep = n > 0
    return pd.DataFrame({"n": n[keep], "c": c[keep]})


# --- intervals ---------------------------------------------------------------------------


def _binomial_pmf(n: int, q: float) -> np.ndarray:
    k = np.arange(n + 1)
    comb = np.array([math.comb(n, int(i)) for i in k], dtype=float)
    return comb * q ** k * (1 - q) ** (n - k)


def redraw_rates(n: np.ndarray, c: np.ndarray, target: Target) -> np.ndarray:
    """The success rate each task's trials are redrawn from (see the module docstring)."""
    n, c = np.asarray(n, dtype=float), np.asarray(c, dtype=float)
    if target == "trials":
        return (c + TRIAL_PRIOR) / (n + 2 * TRIAL_PRIOR)
    rates = c / n
    pooled = (c.sum() + 0.5) / (n.sum() + 1)   # Jeffreys: a suite that never passes is not sure never to
    spread = rates.var()
    if rates.size < 2 or spread == 0:
        return np.full(rates.size, pooled)
    # Never all the way to the observed rates: a task seen 0/n stays possible to pass.
    most = n.sum() / (n.sum() + 1)
    h = float(np.mean(1 / n))
    if h >= 1:  # one trial per task: trial noise and task spread cannot be told apart
        return pooled + most * (rates - pooled)
    mean = rates.mean()
    between = (rates.var(ddof=1) - mean * (1 - mean) * h) / (1 - h)
    shrink = min(most, math.sqrt(max(0.0, between / spread)))
    return pooled + shrink * (rates - pooled)


def _outcome_groups(columns: list[tuple[np.ndarray, np.ndarray, float]], target: Target,
                   rates: list[np.ndarray] | None = None):
    """Tasks grouped by their counts in every column: (task count, per column (n, q, weight)).
    Each column's trials are redrawn at `rates`, by default redraw_rates for the target."""
    keys = np.column_stack([np.column_stack([n, c]) for n, c, _ in columns]).astype(np.int64)
    redrawn = np.column_stack(rates if rates is not None else [redraw_rates(n, c, target) for n, c, _ in columns])
    _, first, sizes = np.unique(keys, axis=0, return_index=True, return_counts=True)
    for i, size in zip(first, sizes):
        yield int(size), [(int(keys[i, 2 * j]), float(redrawn[i, j]), w) for j, (_, _, w) in enumerate(columns)]


def resampled_totals(columns: list[tuple[np.ndarray, np.ndarray, float]], target: Target = "tasks",
                     resamples: int = RESAMPLES, seed: int = SEED, rates: list[np.ndarray] | None = None) -> np.ndarray:
    """Bootstrap resamples (resamples,) of sum over tasks of sum_j weight_j * c_j / n_j.

    For the "tasks" target a resample's N draws are independent and each is a task drawn
    uniformly, then its trials, so each resample is a multinomial count of N draws over the
    mixture of the tasks' outcome distributions. For "trials", tasks with the same counts
    are redrawn together: the sum of g redraws of n trials at rate q is one binomial of
    g * n trials. (bootstrap_distribution computes the same distribution exactly where its
    lattice is small enough, and samples it with this otherwise.)"""
    rng = np.random.default_rng(seed)
    n_tasks = len(columns[0][0])
    groups = list(_outcome_groups(columns, target, rates))
    if target == "trials":
        totals = np.zeros(resamples)
        for size, parts in groups:
            for n, q, w in parts:
                totals += w * rng.binomial(size * n, q, resamples) / n
        return totals
    values, probs = [], []
    for size, parts in groups:
        v, p = np.zeros(1), np.ones(1)
        for n, q, w in parts:
            v = (v[:, None] + w * np.arange(n + 1) / n).ravel()
            p = (p[:, None] * _binomial_pmf(n, q)).ravel()
        values.append(v)
        probs.append(p * size / n_tasks)
    support, where = np.unique(np.round(np.concatenate(values), 12), return_inverse=True)
    mass = np.bincount(where, weights=np.concatenate(probs), minlength=support.size)
    return rng.multinomial(n_tasks, mass / mass.sum(), size=resamples) @ support


# Lattices of up to this many points are convolved exactly; larger ones (tasks whose trial
# counts have a large least common multiple) are sampled.
EXACT_POINTS = 1 << 20


def _draw_pmf(parts: list[tuple[int, float, float]], scale: int) -> np.ndarray:
    """One task draw's total on the lattice 1/scale, from its lowest possible value: the
    sum over columns of weight * Binomial(n, q) / n."""
    pmf = np.ones(1)
    for n, q, w in parts:
        step = scale // n
        spread = np.zeros(n * step + 1)
        spread[::step] = _binomial_pmf(n, q)
        pmf = np.convolve(pmf, spread if w > 0 else spread[::-1])
    return pmf


def bootstrap_distribution(columns: list[tuple[np.ndarray, np.ndarray, float]], target: Target = "tasks",
                           resamples: int = RESAMPLES, seed: int = SEED,
                           rates: list[np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The bootstrap distribution of sum over tasks of sum_j weight_j * c_j / n_j, as sorted
    values and their probabilities.

    columns: per column (n, c, weight +1 or -1) over the same tasks in the same order: one
    column for a mean, two (weights -1 and +1) for a paired difference, whose resampled
    tasks are then the same for both. Totals lie on the lattice 1/L, L the least common
    multiple of the trial counts; where that lattice is small the distribution is exact (the
    "tasks" target: N independent draws from the mixture of the tasks' outcome
    distributions, an N-fold convolution; "trials": the convolution of every task's own),
    computed by FFT. Otherwise it is `resamples` seeded samples (resampled_totals). `rates`
    replaces the rates each column's trials are redrawn at (redraw_rates by default)."""
    n_tasks = len(columns[0][0])
    if n_tasks == 0:
        raise ValueError("bootstrap over zero tasks")
    if any(abs(w) != 1 for _, _, w in columns):
        raise ValueError("column weights must be +1 or -1")
    scale = math.lcm(*(int(x) for n, _, _ in columns for x in np.unique(n)))
    points = n_tasks * len(columns) * scale + 1
    if points > EXACT_POINTS:
        totals = np.sort(resampled_totals(columns, target, resamples, seed, rates))
        return totals, np.full(resamples, 1 / resamples)
    groups = list(_outcome_groups(columns, target, rates))
    size = 1 << (points - 1).bit_length()
    if target == "tasks":
        mixture = sum(g / n_tasks * _draw_pmf(parts, scale) for g, parts in groups)
        spectrum = np.fft.rfft(mixture, size) ** n_tasks
    else:
        spectrum = np.ones(size // 2 + 1, dtype=complex)
        for g, parts in groups:
            spectrum *= np.fft.rfft(_draw_pmf(parts, scale), size) ** g
    pmf = np.fft.irfft(spectrum, size)[:points]
    pmf = np.where(pmf > 1e-15, pmf, 0.0)  # the transform's rounding noise is not probability
    lowest = -n_tasks * scale * sum(1 for _, _, w in columns if w < 0)
    return (lowest + np.arange(points)) / scale, pmf / pmf.sum()


def _t_two_sided(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with integer df, by the closed series of Abramowitz and
    Stegun 26.7.3-4 (a report need not import scipy for it)."""
    theta = math.atan(t / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2 == 0:
        term = total = 1.0
        for k in range(2, df - 1, 2):
            term *= c2 * (k - 1) / k
            total += term
        return s * total
    if df == 1:
        return 2 * theta / math.pi
    term = total = math.cos(theta)
    for k in range(3, df - 1, 2):
        term *= c2 * (k - 1) / k
        total += term
    return 2 / math.pi * (theta + s * total)


def student_t_quantile(p: float, df: int) -> float:
    """The p-quantile (p > 1/2) of Student's t: bisection on the exact distribution below
    200 degrees of freedom, the Cornish-Fisher expansion above (error below 1e-7 there)."""
    z = NormalDist().inv_cdf(p)
    if df >= 200:
        return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
                + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))
    low, high = z, z
    while _t_two_sided(high, df) < 2 * p - 1:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        if _t_two_sided(mid, df) < 2 * p - 1:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * high:
            break
    return (low + high) / 2


def tail_level(target: Target, tasks: int, confidence: float = CONFIDENCE) -> float:
    """The lower percentile level of an interval: (1 - confidence) / 2, widened for the
    "tasks" target as Student's t with tasks - 1 degrees of freedom widens a normal
    interval; 0 (the whole range) below two tasks."""
    tail = (1 - confidence) / 2
    if target == "trials":
        return tail
    if tasks < 2:
        return 0.0
    return NormalDist().cdf(-student_t_quantile(1 - tail, tasks - 1))


def percentiles(values: np.ndarray, probs: np.ndarray, tail: float) -> tuple[float, float]:
    """The smallest value with at least `tail` probability at or below it, and the largest
    with at least `tail` at or above it; with tail 0, the extremes of the support."""
    keep = probs > 0
    values, probs = values[keep], probs[keep]
    at_or_below = np.cumsum(probs)
    at_or_above = np.cumsum(probs[::-1])[::-1]
    slack = 1e-12
    low = int(np.searchsorted(at_or_below, tail - slack, side="left"))
    high = int(np.searchsorted(-at_or_above, -(tail - slack), side="right")) - 1
    return float(values[min(low, values.size - 1)]), float(values[max(high, 0)])


def interval(columns: list[tuple[np.ndarray, np.ndarray, float]], target: Target = "tasks",
             resamples: int = RESAMPLES, seed: int = SEED, confidence: float = CONFIDENCE) -> tuple[float, float]:
    values, probs = bootstrap_distribution(columns, target, resamples, seed)
    return percentiles(values, probs, tail_level(target, len(columns[0][0]), confidence))


def total_interval(n, c, target: Target = "tasks", resamples: int = RESAMPLES, seed: int = SEED,
                   confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Interval of the expected number of tasks solved, from per-task trials n and successes c."""
    return interval([(np.asarray(n), np.asarray(c), 1.0)], target, resamples, seed, confidence)


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


def rank_score_at_k(scores: Sequence[float], passed: Sequence[bool], k: int) -> float:
    """The expected success of the answer a ranker submits when it sees k answers drawn
    without replacement from n: in every k-subset (each as likely) the answer with the
    highest score, ties broken uniformly at random inside the subset. The unbiased
    estimator over subsets, as pass@k is (pass@k is this with the answers' own results as
    scores; equal scores give pass@1).

    Closed form: the answers of one score level are submitted when the subset holds at
    least one of them and none scored higher, in C(t + b, k) - C(b, k) of the C(n, k)
    subsets (t answers at the level, b below it), and then each of them as likely."""
    n = len(scores)
    if len(passed) != n or not 1 <= k <= n:
        raise ValueError(f"rank_score@{k} needs 1 <= k <= n and a result per score (n={n}, results={len(passed)})")
    total = math.comb(n, k)
    value = 0.0
    for level in set(scores):
        results = [bool(p) for s, p in zip(scores, passed) if s == level]
        below = sum(1 for s in scores if s < level)
        chosen = math.comb(len(results) + below, k) - math.comb(below, k)
        value += chosen / total * sum(results) / len(results)
    return value


def ks_to_show(trials: int) -> list[int]:
    """Every k up to T when T is small; otherwise 1, 2, 5, 10, 20, 50, ... and T."""
    if trials <= 10:
        return list(range(1, trials + 1))
    ks, base = [], 1
    while base <= trials:
        ks += [k for k in (base, 2 * base, 5 * base) if k <= trials]
        base *= 10
    return sorted(set(ks + [trials]))


@dataclass
class PassAtK:
    value: float     # nan when no task has k trials
    tasks: int       # the tasks it averages over: those with at least k trials


def mean_pass_at_k(n: np.ndarray, c: np.ndarray, k: int) -> PassAtK:
    """pass@k averaged over the tasks with at least k counted trials, and how many those are."""
    values = [pass_at_k(int(ni), int(ci), k) for ni, ci in zip(n, c) if ni >= k]
    return PassAtK(float(np.mean(values)) if values else float("nan"), len(values))


# --- tests of success counts -------------------------------------------------------------


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


@lru_cache(maxsize=65_536)
def _hypergeometric(total: int, successes: int, draws: int) -> tuple[int, np.ndarray]:
    """The lowest possible count and the pmf of successes among `draws` of `total` trials
    of which `successes` succeeded, drawn without replacement."""
    low, high = max(0, draws - (total - successes)), min(successes, draws)
    ways = [math.comb(successes, x) * math.comb(total - successes, draws - x) for x in range(low, high + 1)]
    whole = math.comb(total, draws)
    return low, np.array([w / whole for w in ways])


def stratified_exact_test(n_base, c_base, n_new, c_new) -> float:
    """Two-sided p-value of "no change on any task" from per-task counts: NEW's total of
    successes against its exact null distribution, the convolution over tasks of the
    hypergeometric count of NEW's successes among the task's pooled successes; twice the
    smaller tail, at most 1. Its size is at most alpha at any number of tasks."""
    null, offset = np.ones(1), 0
    for nb, cb, nn, cn in zip(n_base, c_base, n_new, c_new):
        low, pmf = _hypergeometric(int(nb + nn), int(cb + cn), int(nn))
        offset += low
        null = np.convolve(null, pmf)
    observed = int(np.sum(c_new)) - offset
    lower, upper = null[:observed + 1].sum(), null[observed:].sum()
    return float(min(1.0, 2 * min(lower, upper)))


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


# --- power -------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def smallest_p(n_base: int, n_new: int) -> float:
    """The smallest two-sided Fisher p-value one task can reach with these trial counts:
    every trial of one configuration passing and every trial of the other failing."""
    return min(exact_test(0, n_base, n_new, n_new), exact_test(n_base, n_base, 0, n_new))


def trials_for_significance(tasks: int, alpha: float = ALPHA, limit: int = 1000) -> int:
    """The fewest trials per configuration (the same in both) with which a task can be
    significant after Holm's correction over `tasks` tasks: 2 / C(2T, T) <= alpha / tasks."""
    for trials in range(1, limit + 1):
        if 2 / math.comb(2 * trials, trials) * tasks <= alpha:
            return trials
    return limit


@dataclass
class TaskPower:
    smallest_p: float            # the smallest p any one task can reach
    reachable: bool              # whether some task can be significant after Holm
    trials_needed: int           # trials per configuration that would make it reachable

    def sentence(self, tasks: int, alpha: float) -> str | None:
        if self.reachable:
            return None
        return (f"No task can reach significance: with these trial counts the smallest p-value one task can "
                f"have is {self.smallest_p:.3g}, and Holm's correction over {tasks} tasks needs "
                f"{alpha / tasks:.3g} or less; {self.trials_needed} trials per configuration would be needed.")


def task_power(n_base: Sequence[int] | np.ndarray, n_new: Sequence[int] | np.ndarray, alpha: float = ALPHA) -> TaskPower:
    lowest = min(smallest_p(int(a), int(b)) for a, b in zip(n_base, n_new))
    tasks = len(n_base)
    return TaskPower(lowest, lowest * tasks <= alpha, trials_for_significance(tasks, alpha))


def shifted_rates(rates: np.ndarray, effect: float) -> np.ndarray:
    """Per-task rates whose sum moves by `effect` tasks: a gain is shared in proportion to
    each task's failure rate, a loss in proportion to its success rate."""
    rates = np.asarray(rates, dtype=float)
    room = (1 - rates) if effect >= 0 else rates
    if room.sum() < abs(effect) - 1e-12:
        direction = "gain" if effect >= 0 else "lose"
        raise BadInput(f"--effect {effect:g}: the baseline can {direction} at most {room.sum():.2f} tasks")
    return rates + effect * room / room.sum() if room.sum() else rates


@dataclass
class PowerPoint:
    trials: int
    power: float


def detection_power(rates: np.ndarray, new_rates: np.ndarray, trials: int, alpha: float = ALPHA,
                    simulations: int = 1000, seed: int = SEED) -> float:
    """The share of simulated comparisons, both configurations run for `trials` trials per
    task, in which the stratified exact test finds the change at `alpha` in its direction."""
    rng = np.random.default_rng([seed, trials])
    n = np.full(len(rates), trials)
    base = rng.binomial(trials, rates, (simulations, len(rates)))
    new = rng.binomial(trials, new_rates, (simulations, len(rates)))
    sign = np.sign(np.sum(new_rates) - np.sum(rates))
    found = 0
    for b, c in zip(base, new):
        if np.sign(c.sum() - b.sum()) == sign and stratified_exact_test(n, b, n, c) <= alpha:
            found += 1
    return found / simulations


def plan_trials(rates: np.ndarray, effect: float, alpha: float = ALPHA, power: float = POWER,
                simulations: int = 1000, seed: int = SEED, max_trials: int = 256) -> tuple[int | None, list[PowerPoint]]:
    """The fewest trials per task (both configurations) that detect a change of `effect`
    tasks with the given power, by simulation from the baseline's per-task rates; the
    powers computed on the way. None when even max_trials do not."""
    new_rates = shifted_rates(rates, effect)
    seen: dict[int, float] = {}

    def at(t: int) -> float:
        if t not in seen:
            seen[t] = detection_power(rates, new_rates, t, alpha, simulations, seed)
        return seen[t]

    high = 1
    while at(high) < power:
        if high >= max_trials:
            return None, [PowerPoint(t, p) for t, p in sorted(seen.items())]
        high = min(2 * high, max_trials)
    low = high // 2
    while high - low > 1:
        mid = (low + high) // 2
        if at(mid) >= power:
            high = mid
        else:
            low = mid
    return high, [PowerPoint(t, p) for t, p in sorted(seen.items())]


# --- summaries ---------------------------------------------------------------------------


@dataclass
class Ratio:
    k: int
    n: int

    @property
    def fraction(self) -> float | None:
        return self.k / self.n if self.n else None


STATES = {
    "passed": "passed",
    "failed": "failed",
    "partial": "fault after round 1 (round 1 kept)",
    "infra_error": "infrastructure error",
    "missing": "never written",
}


@dataclass
class Health:
    """Agent health over a configuration's trials (every recorded trial, finished or not)."""

    trials: int              # task-trials expected
    finished: int
    partial: int             # an infrastructure error after round 1's outcome was recorded
    infra_errors: int        # an infrastructure error before any outcome (partial ones not included)
    missing: int             # never written
    malformed_responses: int
    exhausted_context_windows: int
    timeouts: int
    tokens_per_trial: float | None
    cost_per_trial: float | None


NAN_PAIR = (float("nan"), float("nan"))


@dataclass
class Summary:
    """The headline numbers of one configuration over one set of tasks."""

    config: str
    tasks: int                       # N: tasks with a counted round-1 outcome
    trials: int                      # T: the most counted round-1 outcomes any task has
    mean: tuple[float, float]        # expected tasks solved: round 1, within two rounds (nan: none counted)
    tasks2: int = 0                  # tasks with a counted two-round outcome
    interval: tuple[tuple[float, float], tuple[float, float]] = (NAN_PAIR, NAN_PAIR)
    recovery: Ratio | None = field(default_factory=lambda: Ratio(0, 0))   # None: no two-round outcome
    pass_at_k: dict[str, dict[int, PassAtK]] = field(default_factory=dict)  # "round1"/"round2"

    def percent(self, round_no: int) -> float:
        tasks = self.tasks if round_no == 1 else self.tasks2
        return 100.0 * self.mean[round_no - 1] / tasks if tasks else float("nan")


def recovery(counts: pd.DataFrame) -> Ratio | None:
    """First-round failures among the trials with a counted two-round outcome (n), and
    those that pass after round 2 (k). None when no trial has a two-round outcome (a
    one-round run)."""
    two = counts[counts["n2"] > 0]
    if two.empty:
        return None
    return Ratio(k=int(two["r2"].sum()), n=int(two["f2"].sum()))


@dataclass
class Transitions:
    """Finished trials by their round-1 outcome against the outcome of the round they
    submitted (their last): under real feedback a trial stops at its first pass, so none
    is broken; under simulated feedback a round can follow a pass and break it."""

    both_pass: int
    fixed: int       # fail -> pass
    broken: int      # pass -> fail
    both_fail: int

    @property
    def trials(self) -> int:
        return self.both_pass + self.fixed + self.broken + self.both_fail

    @property
    def recovery(self) -> Ratio:
        """Round-1 failures the submitted round passes."""
        return Ratio(self.fixed, self.fixed + self.both_fail)


def transitions(frame: pd.DataFrame) -> Transitions:
    """The transitions of one configuration's finished trials (rows of the outcome frame)."""
    done = frame[frame["done"]]
    first, submitted = done["round1"], done["status"] == "passed"
    return Transitions(both_pass=int((first & submitted).sum()), fixed=int((~first & submitted).sum()),
                       broken=int((first & ~submitted).sum()), both_fail=int((~first & ~submitted).sum()))


def summarize(config: str, counts: pd.DataFrame, with_pass_at_k: bool = True) -> Summary:
    """Means, recovery and pass@k of one configuration from its per-task counts (one row
    per task). Intervals come separately (intervals_of)."""
    one, two = round_counts(counts, 1), round_counts(counts, 2)
    summary = Summary(
        config=config, tasks=len(one), trials=int(one["n"].max()) if len(one) else 0,
        mean=(float((one["c"] / one["n"]).sum()), float((two["c"] / two["n"]).sum()) if len(two) else float("nan")),
        tasks2=len(two), recovery=recovery(counts),
    )
    if with_pass_at_k:
        ks = ks_to_show(summary.trials)
        summary.pass_at_k = {
            f"round{r}": {k: mean_pass_at_k(rc["n"].to_numpy(), rc["c"].to_numpy(), k) for k in ks}
            for r, rc in ((1, one), (2, two)) if len(rc)
        }
    return summary


def intervals_of(counts: pd.DataFrame, target: Target = "tasks", resamples: int = RESAMPLES, seed: int = SEED,
                 confidence: float = CONFIDENCE) -> tuple[tuple[float, float], tuple[float, float]]:
    """Intervals of the round-1 and two-round means of one configuration."""
    out = []
    for r in (1, 2):
        rc = round_counts(counts, r)
        out.append(total_interval(rc["n"], rc["c"], target, resamples, seed, confidence) if len(rc) else NAN_PAIR)
    return out[0], out[1]


def states(frame: pd.DataFrame) -> dict[str, int]:
    """How many of a configuration's task-trials are in each state (STATES)."""
    found = frame["status"].value_counts()
    return {state: int(found.get(state, 0)) for state in STATES}


def health(frame: pd.DataFrame) -> Health:
    """Agent health of one configuration's rows (finished or not)."""
    recorded = frame[frame["status"] != "missing"]
    tokens = recorded["prompt_tokens"] + recorded["completion_tokens"]
    count = states(frame)
    return Health(
        trials=len(frame),
        finished=count["passed"] + count["failed"],
        partial=count["partial"],
        infra_errors=count["infra_error"],
        missing=count["missing"],
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
    tasks: int
    base: float
    new: float
    difference: float
    interval: tuple[float, float]
    p_value: float               # the stratified exact test of "no change on any task"


DIFFERENCE_PRIOR = 0.02  # successes and failures added to each task's own trials in a difference's redraw


def _own_rates(n, c) -> np.ndarray:
    return (np.asarray(c, dtype=float) + DIFFERENCE_PRIOR) / (np.asarray(n, dtype=float) + 2 * DIFFERENCE_PRIOR)


def difference_spread(nb, cb, nn, cn) -> tuple[float, float]:
    """The variance of one task's difference (NEW's rate minus BASE's) that a new draw of
    tasks and trials would show, and its degrees of freedom.

    The per-task differences' sample variance already holds both the spread of the tasks'
    true differences and the trials' noise; where it is below the trials' own binomial noise
    (q(1 - q)/n on each side, q from _own_rates), that noise stands instead, so tasks that
    never changed still leave room for a change. Degrees of freedom by Satterthwaite on the
    share of the variance that is trial noise: N - 1 for the spread between tasks, the
    trials' own for the noise; below MIN_TASKS tasks, N - 1 whatever the share (too few
    tasks to tell that they do not differ: two tasks that each went 0/4 -> 1/4 say little
    about a third)."""
    nb, cb, nn, cn = (np.asarray(x, dtype=float) for x in (nb, cb, nn, cn))
    tasks = nb.size
    qb, qn = _own_rates(nb, cb), _own_rates(nn, cn)
    noise = float(np.mean(qb * (1 - qb) / nb + qn * (1 - qn) / nn))
    spread = max(float((cn / nn - cb / nb).var(ddof=1)) if tasks > 1 else 0.0, noise)
    share = noise / spread
    noise_df = max(float((nb - 1).sum() + (nn - 1).sum()), 1.0)
    if tasks < MIN_TASKS:
        return spread, float(max(tasks - 1, 1))
    return spread, 1 / ((1 - share) ** 2 / (tasks - 1) + share ** 2 / noise_df)


def difference_interval(nb, cb, nn, cn, target: Target = "tasks", resamples: int = RESAMPLES, seed: int = SEED,
                        confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Interval of NEW minus BASE in expected tasks solved over the same tasks.

    "trials": both configurations' trials redrawn on the fixed tasks (redraw_rates). "tasks":
    the shape of the two-level bootstrap (tasks resampled, the same ones for both sides, each
    side's trials redrawn at its own rate plus DIFFERENCE_PRIOR successes and failures),
    scaled about its mean to N times difference_spread's variance and centred on the observed
    difference; percentile levels widened as Student's t with difference_spread's degrees of
    freedom widens a normal interval. (Redrawing each side at rates shrunk towards its pooled
    rate, as a mean's interval does, fits each side's spread of task rates; for a difference
    it counts the trials' noise twice, once in the observed per-task differences and once in
    the redraw, and held the true difference 99-100% of the time in the coverage simulation.)"""
    columns = [(np.asarray(nb), np.asarray(cb), -1.0), (np.asarray(nn), np.asarray(cn), 1.0)]
    if target == "trials":
        return interval(columns, target, resamples, seed, confidence)
    tasks = len(columns[0][0])
    values, probs = bootstrap_distribution(columns, "tasks", resamples, seed, [_own_rates(n, c) for n, c, _ in columns])
    mean = float(values @ probs)
    var = float(((values - mean) ** 2) @ probs)
    spread, df = difference_spread(nb, cb, nn, cn)
    observed = float((columns[1][1] / columns[1][0] - columns[0][1] / columns[0][0]).sum())
    scaled = observed + (math.sqrt(tasks * spread / var) * (values - mean) if var > 0 else 0 * values)
    tail = NormalDist().cdf(-student_t_quantile(1 - (1 - confidence) / 2, max(1, round(df)))) if tasks > 1 else 0.0
    low, high = percentiles(scaled, probs, tail)
    return max(low, -tasks), min(high, float(tasks))


def paired_differences(
    base: pd.DataFrame, new: pd.DataFrame, target: Target = "tasks", resamples: int = RESAMPLES,
    seed: int = SEED, confidence: float = CONFIDENCE,
) -> list[PairedDifference]:
    """Per round, over the tasks both count tables hold with a counted outcome in that
    round (same index, same order): the difference, its interval (both configurations'
    trials redrawn on the same resampled tasks) and the stratified exact test's p-value."""
    if not base.index.equals(new.index):
        raise ValueError("paired counts must cover the same tasks in the same order")
    out = []
    for r in (1, 2):
        keep = (base[f"n{r}"] > 0) & (new[f"n{r}"] > 0)
        if not keep.any():
            continue
        nb, cb = base.loc[keep, f"n{r}"].to_numpy(), base.loc[keep, f"c{r}"].to_numpy()
        nn, cn = new.loc[keep, f"n{r}"].to_numpy(), new.loc[keep, f"c{r}"].to_numpy()
        low, high = difference_interval(nb, cb, nn, cn, target, resamples, seed, confidence)
        out.append(PairedDifference(
            round=r, tasks=int(keep.sum()), base=float((cb / nb).sum()), new=float((cn / nn).sum()),
            difference=float((cn / nn - cb / nb).sum()), interval=(low, high),
            p_value=stratified_exact_test(nb, cb, nn, cn),
        ))
    return out


def clears_bar(difference: PairedDifference, delta: float) -> bool:
    """A pre-registered bar of `delta` tasks (for a metric of written suites: `delta` of
    its share) is cleared when the lower bound of the gain's interval is at least `delta`,
    not merely the point estimate."""
    return difference.interval[0] >= delta


def _counts(frame: pd.DataFrame, i: int) -> tuple[int, int, int, int]:
    """Row i's n1, c1, n2, c2."""
    n1, c1, n2, c2 = (int(frame[c].iat[i]) for c in ("n1", "c1", "n2", "c2"))
    return n1, c1, n2, c2


@dataclass
class TaskChange:
    task: str
    base: tuple[int, int, int, int]   # n1, c1, n2, c2
    new: tuple[int, int, int, int]
    change: float                     # difference of success rates in the chosen round
    p_value: float
    p_holm: float
    label: str


def task_changes(base: pd.DataFrame, new: pd.DataFrame, round_no: int, alpha: float = ALPHA) -> list[TaskChange]:
    """One row per shared task with a counted outcome in `round_no` in both: counts, the
    change in success rate, Fisher's exact p-value, its Holm adjustment across those tasks,
    and the label. A gain or a regression is called significant only when its Holm-adjusted
    p is <= alpha; otherwise it is labelled "(n.s.)". Sorted by change, regressions first,
    then by task."""
    keep = (base[f"n{round_no}"] > 0) & (new[f"n{round_no}"] > 0)
    base, new = base[keep], new[keep]
    nb, cb = base[f"n{round_no}"].to_numpy(), base[f"c{round_no}"].to_numpy()
    nn, cn = new[f"n{round_no}"].to_numpy(), new[f"c{round_no}"].to_numpy()
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
            base=_counts(base, i), new=_counts(new, i),
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


def best_trials(frame: pd.DataFrame, k: int, round_no: int = 2) -> pd.DataFrame:
    """Keep, per configuration, the K trials with the most tasks solved in the round being
    reported (`round_no`: round 1, or within two rounds), ties broken by the other round,
    then by the lower trial index. Every row of a kept trial stays (finished or not)."""
    other = 3 - round_no
    solved = frame.assign(
        ranked=frame[f"round{round_no}_known"] & frame[f"round{round_no}"],
        tie=frame[f"round{other}_known"] & frame[f"round{other}"],
    )
    totals = solved.groupby(["config", "trial"], observed=True)[["ranked", "tie"]].sum().reset_index()
    per_config = totals.groupby("config", observed=True)["trial"].nunique()
    short = per_config[per_config < k]
    if len(short):
        name, have = short.index[0], int(short.iloc[0])
        raise BadInput(f"--cohort best:{k}: config {name} has only {have} trials")
    totals = totals.sort_values(["config", "ranked", "tie", "trial"], ascending=[True, False, False, True])
    keep = totals.groupby("config", observed=True).head(k)[["config", "trial"]]
    return frame.merge(keep, on=["config", "trial"], how="inner")


def cohort_inflation(frame: pd.DataFrame, selected: pd.DataFrame, round_no: int) -> dict[str, float]:
    """Per configuration: the selected cohort's mean tasks solved in `round_no` minus the
    mean over all its trials, on the same data."""
    def means(rows: pd.DataFrame) -> pd.Series:
        counts = round_counts(task_counts(rows), round_no)
        return (counts["c"] / counts["n"]).groupby(level="config").sum()

    everyone, chosen = means(frame), means(selected)
    return {str(c): float(chosen.get(c, 0.0) - everyone.get(c, 0.0)) for c in everyone.index}


# --- metrics of written test suites -------------------------------------------------------
# A test-writing trial's round has a validity (a success, counted as above) and two shares
# in [0, 1]: the assertions that hold on the correct solution and the broken solutions the
# suite catches (valid suites only). A configuration's figure for a share is the mean over
# tasks of each task's mean over its trials with a value. Intervals are the same two
# targets' bootstrap as for successes, sampled (shares have no lattice to convolve on):
# tasks resampled, then each drawn task's values; or, for "trials", only the values. A paired
# difference resamples the same tasks for both configurations, and its p-value is the exact
# sign-flip test of the per-task differences (under "no change", each task's difference is
# as likely either way), enumerated up to 2^16 sign patterns and sampled beyond. A written
# suite's diagnostics (result_facts.DIAGNOSTIC_COLUMNS) are summarized and compared as the
# shares are: counts are not shares, but the bootstrap and the sign-flip test need none.

EXACT_SIGN_FLIPS = 16


@dataclass
class MetricSummary:
    """One metric of one configuration over one set of tasks and one round."""

    config: str
    metric: str
    round: int
    tasks: int          # tasks with a value
    values: int         # trial values behind it
    mean: float         # mean over tasks of the task means (nan: no value)
    interval: tuple[float, float] = NAN_PAIR


def metric_values(frame: pd.DataFrame, metric: str, round_no: int) -> pd.DataFrame:
    """config, task, value: one row per trial with a value of `metric` in round 1 or
    within two rounds (validity as 1/0 wherever that round's outcome counts)."""
    if metric == "valid":
        known = frame[f"round{round_no}_known"]
        rows = frame[known]
        return pd.DataFrame({"config": rows["config"], "task": rows["task"],
                             "value": rows[f"round{round_no}"].astype(float)}).reset_index(drop=True)
    col = f"{metric}_{round_no}"
    rows = frame[frame[col].notna()] if col in frame else frame.iloc[0:0]
    return pd.DataFrame({"config": rows["config"], "task": rows["task"],
                         "value": pd.to_numeric(rows[col] if col in rows else [], errors="coerce")}).reset_index(drop=True)


def task_means(frame: pd.DataFrame, config: str, metric: str, round_no: int) -> dict[str, float]:
    """Each task's mean of the metric over the config's trials with a value."""
    values = metric_values(frame[frame["config"] == config], metric, round_no)
    return {str(t): float(v) for t, v in values.groupby("task")["value"].mean().items()}


def _by_task(values: pd.DataFrame, tasks: list[str]) -> list[np.ndarray]:
    groups = {t: g["value"].to_numpy(dtype=float) for t, g in values.groupby("task", sort=False)}
    return [groups[t] for t in tasks]


def _padded(groups: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(g) for g in groups)
    table = np.full((len(groups), width), np.nan)
    for i, g in enumerate(groups):
        table[i, :len(g)] = g
    return table, np.array([len(g) for g in groups])


def _resampled_task_means(table: np.ndarray, sizes: np.ndarray, picks: np.ndarray,
                          rng: np.random.Generator) -> np.ndarray:
    """For each resample (row of `picks`, task indexes), each picked task's mean over its
    values redrawn with replacement."""
    n = sizes[picks]
    draws = (rng.random((*picks.shape, table.shape[1])) * n[..., None]).astype(np.int64)
    drawn = table[picks[..., None], draws]
    used = np.arange(table.shape[1]) < n[..., None]
    return np.where(used, drawn, 0.0).sum(axis=-1) / n


def _picks(tasks: int, target: Target, resamples: int, rng: np.random.Generator) -> np.ndarray:
    if target == "trials":
        return np.broadcast_to(np.arange(tasks), (resamples, tasks))
    return rng.integers(0, tasks, (resamples, tasks))


def share_interval(groups: list[np.ndarray], target: Target = "tasks", resamples: int = RESAMPLES,
                   seed: int = SEED, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Interval of the mean over tasks of per-task means of shares in [0, 1]."""
    rng = np.random.default_rng(seed)
    table, sizes = _padded(groups)
    means = _resampled_task_means(table, sizes, _picks(len(groups), target, resamples, rng), rng).mean(axis=1)
    return percentiles(np.sort(means), np.full(resamples, 1 / resamples), tail_level(target, len(groups), confidence))


def summarize_metric(frame: pd.DataFrame, config: str, metric: str, round_no: int, tasks: set[str] | None = None,
                     target: Target = "tasks", resamples: int = RESAMPLES, seed: int = SEED,
                     confidence: float = CONFIDENCE) -> MetricSummary:
    """The metric's mean over tasks with its interval; validity's interval is the exact one
    of tasks solved (total_interval), as a share."""
    values = metric_values(frame[frame["config"] == config], metric, round_no)
    if tasks is not None:
        values = values[values["task"].isin(tasks)]
    order = sorted(values["task"].unique())
    if not order:
        return MetricSummary(config, metric, round_no, 0, 0, float("nan"))
    groups = _by_task(values, order)
    mean = float(np.mean([g.mean() for g in groups]))
    if metric == "valid":
        n = np.array([len(g) for g in groups])
        c = np.array([int(g.sum()) for g in groups])
        low, high = total_interval(n, c, target, resamples, seed, confidence)
        interval = (low / len(order), high / len(order))
    else:
        interval = share_interval(groups, target, resamples, seed, confidence)
    return MetricSummary(config, metric, round_no, len(order), len(values), mean, interval)


@dataclass
class MetricDifference(PairedDifference):
    """NEW minus BASE in one metric's mean over the tasks both have a value for (a share,
    not tasks); p_value: validity's stratified exact test, the shares' sign-flip test."""

    metric: str


def sign_flip_test(differences: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> float:
    """Two-sided p-value of "no change" for per-task differences: the share of sign
    patterns whose sum is at least as far from zero as the observed sum (exact up to
    EXACT_SIGN_FLIPS nonzero differences, sampled beyond)."""
    d = np.asarray(differences, dtype=float)
    d = d[np.abs(d) > 1e-12]
    if d.size == 0:
        return 1.0
    observed = abs(d.sum()) - 1e-9
    if d.size <= EXACT_SIGN_FLIPS:
        patterns = ((np.arange(2 ** d.size)[:, None] >> np.arange(d.size)) & 1) * 2 - 1
    else:
        patterns = np.random.default_rng(seed).choice([-1, 1], (resamples, d.size))
    return float(np.mean(np.abs(patterns @ d) >= observed))


def metric_difference(frame: pd.DataFrame, base: str, new: str, metric: str, round_no: int,
                      tasks: set[str] | None = None, target: Target = "tasks", resamples: int = RESAMPLES,
                      seed: int = SEED, confidence: float = CONFIDENCE) -> MetricDifference | None:
    """None when no task has a value of the metric in both configurations."""
    b = metric_values(frame[frame["config"] == base], metric, round_no)
    n = metric_values(frame[frame["config"] == new], metric, round_no)
    shared = set(b["task"]) & set(n["task"])
    if tasks is not None:
        shared &= tasks
    order = sorted(shared)
    if not order:
        return None
    bg, ng = _by_task(b, order), _by_task(n, order)
    base_mean, new_mean = float(np.mean([g.mean() for g in bg])), float(np.mean([g.mean() for g in ng]))
    if metric == "valid":
        nb, cb = np.array([len(g) for g in bg]), np.array([int(g.sum()) for g in bg])
        nn, cn = np.array([len(g) for g in ng]), np.array([int(g.sum()) for g in ng])
        low, high = interval([(nb, cb, -1.0), (nn, cn, 1.0)], target, resamples, seed, confidence)
        return MetricDifference(round_no, len(order), base_mean, new_mean, new_mean - base_mean,
                                (low / len(order), high / len(order)), stratified_exact_test(nb, cb, nn, cn), metric)
    rng = np.random.default_rng(seed)
    picks = _picks(len(order), target, resamples, rng)
    tb, sb = _padded(bg)
    tn, sn = _padded(ng)
    diffs = (_resampled_task_means(tn, sn, picks, rng) - _resampled_task_means(tb, sb, picks, rng)).mean(axis=1)
    low, high = percentiles(np.sort(diffs), np.full(resamples, 1 / resamples), tail_level(target, len(order), confidence))
    per_task = np.array([g.mean() for g in ng]) - np.array([g.mean() for g in bg])
    return MetricDifference(round_no, len(order), base_mean, new_mean, new_mean - base_mean, (low, high),
                            sign_flip_test(per_task, resamples, seed), metric)
