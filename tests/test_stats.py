"""The statistics module against values computed by hand, by brute force, and by scipy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from harness import stats
from harness.errors import BadInput
from harness.outcomes import _frame
from harness.report import fmt_mean, fmt_ratio
from tests.report_support import marginal_table, outcomes_table


def _frame_of(table: dict[str, dict[str, list]]) -> pd.DataFrame:
    rows = outcomes_table(table)
    rows["status"] = np.where(rows["round2"], "passed", "failed")
    return _frame(rows)


def test_means_and_recovery_of_a_table_built_by_hand():
    counts = stats.task_counts(_frame_of({"m": marginal_table()})).loc["m"]
    summary = stats.summarize("m", counts)
    assert summary.tasks == 26 and summary.trials == 4
    assert summary.mean == pytest.approx((11.25, 15.25))
    assert (summary.recovery.k, summary.recovery.n) == (16, 59)
    # the issue's own formatting examples
    assert fmt_mean(summary.mean[0], summary.tasks) == "11.25 (43.3%)"
    assert fmt_mean(summary.mean[1], summary.tasks) == "15.25 (58.7%)"
    assert fmt_ratio(summary.recovery.k, summary.recovery.n) == "16/59 (27.1%)"
    # pass@1 is the mean success rate
    assert summary.pass_at_k["round1"][1] == pytest.approx(11.25 / 26)


def test_mean_equals_mean_over_trials_of_tasks_solved():
    frame = _frame_of({"m": marginal_table()})
    per_trial = frame.groupby("trial")[["round1", "round2"]].sum().mean()
    summary = stats.summarize("m", stats.task_counts(frame).loc["m"])
    assert summary.mean == pytest.approx((per_trial["round1"], per_trial["round2"]))


def test_a_task_with_an_unfinished_trial_uses_its_finished_trials():
    frame = _frame_of({"m": {"a": [1, 1, None, 1], "b": [None, None, 2, 2]}})
    frame.loc[(frame.task == "a") & (frame.trial == 4), ["status", "done"]] = ["infra_error", False]
    summary = stats.summarize("m", stats.task_counts(frame).loc["m"])
    # a: 2 of 3 finished trials; b: 0/4 in round 1, 2/4 within two rounds
    assert summary.mean == pytest.approx((2 / 3, 2 / 3 + 0.5))
    assert (summary.recovery.k, summary.recovery.n) == (2, 1 + 4)


@pytest.mark.parametrize("n_tasks", [26, 700])  # 700 tasks: several chunks of resamples
def test_bootstrap_interval_matches_scipy(n_tasks):
    rng = np.random.default_rng(7)
    rates = rng.integers(0, 5, n_tasks) / 4
    ours = stats.percentile_interval(stats.bootstrap_sums(rates, 10_000, seed=3))[:, 0]
    theirs = scipy_stats.bootstrap((rates,), np.sum, n_resamples=10_000, method="percentile",
                                   confidence_level=0.95, rng=np.random.default_rng(3)).confidence_interval
    np.testing.assert_allclose(ours, [theirs.low, theirs.high], rtol=1e-9)


def test_bootstrap_columns_are_each_what_they_would_be_alone():
    rng = np.random.default_rng(1)
    a, b = rng.random(30), rng.random(30)
    together = stats.bootstrap_sums(np.column_stack([a, b]), 2_000, seed=5)
    np.testing.assert_allclose(together[:, 1], stats.bootstrap_sums(b, 2_000, seed=5)[:, 0])


def _brute_pass_at_k(n: int, c: int, k: int) -> float:
    trials = [True] * c + [False] * (n - c)
    draws = list(itertools.combinations(range(n), k))
    return sum(any(trials[i] for i in d) for d in draws) / len(draws)


def test_pass_at_k_against_enumeration():
    for n in range(1, 9):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert stats.pass_at_k(n, c, k) == pytest.approx(_brute_pass_at_k(n, c, k), abs=1e-12), (n, c, k)


def test_pass_at_k_averages_over_tasks_with_enough_trials():
    # tasks with 4 trials (2 successes) and 2 trials (0 successes): pass@3 only sees the first
    assert stats.mean_pass_at_k(np.array([4, 2]), np.array([2, 0]), 3) == pytest.approx(1.0)
    assert stats.mean_pass_at_k(np.array([4, 2]), np.array([2, 0]), 2) == pytest.approx((1 - 1 / 6 + 0) / 2)
    with pytest.raises(ValueError):
        stats.pass_at_k(3, 1, 4)


def test_ks_to_show():
    assert stats.ks_to_show(4) == [1, 2, 3, 4]
    assert stats.ks_to_show(64) == [1, 2, 5, 10, 20, 50, 64]


def test_holm_worked_example():
    # p = 0.01, 0.04, 0.03, 0.005 (m = 4). Sorted: 0.005*4 = 0.02, 0.01*3 = 0.03,
    # 0.03*2 = 0.06, 0.04*1 = 0.04 -> made non-decreasing: 0.02, 0.03, 0.06, 0.06.
    # Step-down at 0.05: 0.005 <= 0.05/4 and 0.01 <= 0.05/3 are rejected; 0.03 > 0.05/2 stops.
    adjusted = stats.holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(adjusted, [0.03, 0.06, 0.06, 0.02])
    assert list(adjusted <= 0.05) == [True, False, False, True]
    np.testing.assert_allclose(stats.holm([0.5, 0.9]), [1.0, 1.0])


def test_exact_test_by_hand():
    # 0/4 against 4/4: the observed table and its mirror each have probability
    # 1 / C(8, 4) = 1/70 under the hypergeometric null; nothing else is as extreme.
    assert stats.exact_test(0, 4, 4, 4) == pytest.approx(2 / 70)
    assert stats.exact_test(2, 4, 2, 4) == pytest.approx(1.0)


def test_task_changes_label_only_what_survives_holm():
    base = pd.DataFrame({"n": [10, 10, 4, 4], "c1": [10, 0, 0, 2], "c2": [10, 0, 0, 2]},
                        index=pd.Index(["drop", "rise", "small", "same"], name="task"))
    new = pd.DataFrame({"n": [10, 10, 4, 4], "c1": [0, 10, 1, 2], "c2": [0, 10, 1, 2]}, index=base.index)
    changes = {c.task: c for c in stats.task_changes(base, new, round_no=2)}
    # 10/10 -> 0/10: Fisher p = 2 / C(20, 10) ~ 1.1e-5, times 4 tasks stays far below 0.05
    assert changes["drop"].p_value == pytest.approx(2 / math.comb(20, 10))
    assert changes["drop"].label == "regression"
    assert changes["rise"].label == "gain"
    assert changes["small"].label == "gain (n.s.)"
    assert changes["same"].label == "no change"
    assert [c.task for c in stats.task_changes(base, new, 2)] == ["drop", "same", "small", "rise"]


def test_paired_difference_of_identical_configs_is_zero_with_p_one():
    counts = stats.task_counts(_frame_of({"m": marginal_table()})).loc["m"]
    (r1, r2) = stats.paired_differences(counts, counts, 1_000)
    assert r1.difference == 0 and r1.interval == (0.0, 0.0) and r1.p_value == 1.0


def test_paired_difference_of_a_clear_gain():
    table = marginal_table()
    better = {t: ([1, 1, 1, 1] if t.startswith("never") else v) for t, v in table.items()}
    frame = _frame_of({"base": table, "new": better})
    counts = stats.task_counts(frame)
    d1, d2 = stats.paired_differences(counts.loc["base"], counts.loc["new"], 10_000)
    assert d1.difference == pytest.approx(10) and d2.difference == pytest.approx(10)
    # 10 of 26 tasks gain a full task each, the rest nothing: a resample's gain is the
    # number of its 26 draws that hit those 10 tasks, Binomial(26, 10/26).
    hits = scipy_stats.binom(26, 10 / 26)
    assert d2.interval[0] == pytest.approx(hits.ppf(0.025), abs=1)
    assert d2.interval[1] == pytest.approx(hits.ppf(0.975), abs=1)
    # no resample misses all 10 (chance (16/26)^26 ~ 3e-6 each): p is the floor 2/(B+1)
    assert d2.p_value == pytest.approx(2 / 10_001)


def test_coverage_of_the_task_bootstrap_interval():
    """1,000 simulated suites of 100 tasks, 4 trials each. Each suite draws its tasks from a
    known population of per-task success rates, so the true expected number of tasks solved
    is 100 times the population's mean rate. All suites share one set of 10,000 resampled
    task positions (the statistic is linear in how often each task is drawn, so the whole
    simulation is one matrix product); each suite's own interval is unaffected by that.
    Over seeds the covered share averages about 94.8% here with a spread of 0.7 points
    (the binomial spread of 1,000 suites); percentile intervals cover a little less than
    nominal on small suites (about 94.2% at 26 tasks), hence 100 tasks."""
    rng = np.random.default_rng(0)
    population = np.concatenate([np.zeros(20), np.full(10, 0.25), np.full(10, 0.5), np.full(10, 0.9), np.ones(30)])
    n_tasks, trials, suites = 100, 4, 1_000
    true_mean = n_tasks * population.mean()
    drawn = rng.choice(population, size=(n_tasks, suites))
    observed = rng.binomial(trials, drawn) / trials
    bounds = stats.percentile_interval(stats.bootstrap_sums(observed, 10_000, seed=11))
    covered = ((bounds[0] <= true_mean) & (true_mean <= bounds[1])).mean()
    assert 0.93 <= covered <= 0.97, covered


def test_best_trials_keeps_the_k_best_per_config():
    frame = _frame_of({"m": {"a": [1, None, 2, 1], "b": [None, None, 1, 1], "c": [2, None, None, 1]}})
    # totals within two rounds: trial 1: 2, trial 2: 0, trial 3: 2, trial 4: 3;
    # round 1 breaks the tie of trials 1 and 3 (1 against 1) -> the lower index, trial 1
    kept = stats.best_trials(frame, 2)
    assert sorted(kept["trial"].unique()) == [1, 4]
    with pytest.raises(BadInput):
        stats.best_trials(frame, 5)


@pytest.mark.parametrize("spec", ["best", "best:0", "worst:2", "best:x"])
def test_bad_cohort_spec(spec):
    with pytest.raises(BadInput):
        stats.parse_cohort(spec)
