"""rank_score_at_k, the estimator `harness select` gives for each ranking strategy, against a
brute-force enumeration: every k-subset of the n answers drawn as likely, the best-scored
answer of the subset submitted, ties broken uniformly at random inside the subset (the
mean result of the tied answers)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from harness.stats import pass_at_k, rank_score_at_k


def brute_force(scores: list[float], passed: list[bool], k: int) -> Fraction:
    subsets = list(itertools.combinations(range(len(scores)), k))
    total = Fraction(0)
    for subset in subsets:
        best = max(scores[i] for i in subset)
        tied = [i for i in subset if scores[i] == best]
        total += Fraction(sum(passed[i] for i in tied), len(tied))
    return total / len(subsets)


def test_rank_score_matches_every_subset_enumerated():
    rng = random.Random(33)
    for _ in range(400):
        n = rng.randint(1, 9)
        k = rng.randint(1, n)
        # Few score levels, so that ties are common; scores may be negative (short1 is minus a length).
        scores = [float(rng.randint(-2, 2)) for _ in range(n)]
        passed = [rng.random() < 0.4 for _ in range(n)]
        assert rank_score_at_k(scores, passed, k) == pytest.approx(float(brute_force(scores, passed, k)), abs=1e-12)


def test_rank_score_by_hand_with_a_tie():
    # Scores 2, 2, 1 with results pass, fail, pass; k = 2 of n = 3. Subsets: {1, 2} a tie at
    # 2 (one half), {1, 3} answer 1 (pass), {2, 3} answer 2 (fail): (1/2 + 1 + 0) / 3.
    assert rank_score_at_k([2, 2, 1], [True, False, True], 2) == pytest.approx(0.5)


def test_a_perfect_ranker_gives_pass_at_k_and_no_ranking_pass_at_1():
    rng = random.Random(7)
    for _ in range(100):
        n = rng.randint(1, 10)
        k = rng.randint(1, n)
        passed = [rng.random() < 0.5 for _ in range(n)]
        c = sum(passed)
        assert rank_score_at_k([float(p) for p in passed], passed, k) == pytest.approx(pass_at_k(n, c, k))
        assert rank_score_at_k([0.0] * n, passed, k) == pytest.approx(c / n)


@pytest.mark.parametrize("scores, passed, k", [([1.0], [True], 2), ([1.0, 2.0], [True], 1), ([], [], 1)])
def test_k_outside_one_to_n_is_refused(scores, passed, k):
    with pytest.raises(ValueError):
        rank_score_at_k(scores, passed, k)
