"""The coverage simulation of harness.stats: how often the intervals hold the number they
are about, and how often the paired test calls a change where there is none.

Suites are drawn from a population of per-task success probabilities with some tasks never
solved (40%), some always (20%), the rest spread (Beta(2, 2)); each task is run T times.
The "tasks" target is N times the population's mean probability (a new draw of tasks and
trials); the "trials" target is the sum of the drawn tasks' own probabilities (these tasks,
new trials). For the false-positive rate, a second configuration with the very same
per-task probabilities is run T times and the stratified exact test is asked whether they
differ at 0.05.

The interval of a paired difference (NEW minus BASE over the same tasks) is checked at no
difference (NEW runs the very same probabilities) and at a real one (NEW gains GAIN of each
task's room, p + GAIN * (1 - p): a task never solved becomes solved 30% of the time, one
always solved stays so). Its "tasks" target is N * GAIN * (1 - the population's mean); its
"trials" target the sum of the drawn tasks' own gains.

`python -m tests.stats_coverage [--repetitions R]` prints the table the README shows."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

import numpy as np

from harness import stats

TASKS = (3, 8, 26)
TRIALS = (2, 4, 8)
NEVER, ALWAYS = 0.4, 0.2
POPULATION_MEAN = ALWAYS + (1 - NEVER - ALWAYS) * 0.5
RESAMPLES = 2_000
GAIN = 0.3


def draw_probabilities(rng: np.random.Generator, tasks: int) -> np.ndarray:
    u = rng.random(tasks)
    return np.where(u < NEVER, 0.0, np.where(u < NEVER + ALWAYS, 1.0, rng.beta(2, 2, tasks)))


@dataclass
class Cell:
    tasks: int
    trials: int
    repetitions: int
    covered_tasks: int       # intervals for the "tasks" target that held N * population mean
    covered_trials: int      # intervals for the "trials" target that held the tasks' own sum
    false_positives: int     # stratified exact test p <= 0.05 with no change
    # Paired-difference intervals that held the true difference: (gain, target) -> count.
    covered_differences: dict[tuple[float, str], int] = field(default_factory=dict)

    @property
    def coverage(self) -> dict[str, float]:
        return {"tasks": self.covered_tasks / self.repetitions, "trials": self.covered_trials / self.repetitions}

    @property
    def difference_coverage(self) -> dict[tuple[float, str], float]:
        return {key: hits / self.repetitions for key, hits in self.covered_differences.items()}

    @property
    def false_positive_rate(self) -> float:
        return self.false_positives / self.repetitions


def simulate(tasks: int, trials: int, repetitions: int, seed: int = 0) -> Cell:
    rng = np.random.default_rng([seed, tasks, trials])
    gains = np.random.default_rng([seed, tasks, trials, 1])  # its own stream: the other columns' suites stay as they were
    n = np.full(tasks, trials)
    cell = Cell(tasks, trials, repetitions, 0, 0, 0)
    for rep in range(repetitions):
        p = draw_probabilities(rng, tasks)
        c = rng.binomial(trials, p)
        low, high = stats.total_interval(n, c, "tasks", RESAMPLES, seed=rep)
        cell.covered_tasks += low <= tasks * POPULATION_MEAN <= high
        low, high = stats.total_interval(n, c, "trials", RESAMPLES, seed=rep)
        cell.covered_trials += low <= p.sum() <= high
        same = rng.binomial(trials, p)
        cell.false_positives += stats.stratified_exact_test(n, c, n, same) <= 0.05
        better = p + GAIN * (1 - p)
        for gain, new in ((0.0, same), (GAIN, gains.binomial(trials, better))):
            truths = {"tasks": tasks * gain * (1 - POPULATION_MEAN), "trials": gain * (1 - p).sum()}
            for target, truth in truths.items():
                low, high = stats.difference_interval(n, c, n, new, target, RESAMPLES, seed=rep)
                key = (gain, target)
                cell.covered_differences[key] = cell.covered_differences.get(key, 0) + (low <= truth <= high)
    return cell


def table(repetitions: int, seed: int = 0) -> list[Cell]:
    return [simulate(n, t, repetitions, seed) for n in TASKS for t in TRIALS]


def monte_carlo_error(rate: float, repetitions: int) -> float:
    return float(np.sqrt(rate * (1 - rate) / repetitions))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    t0 = time.monotonic()
    cells = table(args.repetitions, args.seed)
    print(f"| N tasks | T trials | coverage, new tasks and trials | coverage, these tasks | "
          f"false positives at 0.05 | difference, no change: new tasks / these tasks | "
          f"difference, gain {GAIN:g} of the room: new tasks / these tasks |\n|---|---|---|---|---|---|---|")
    for c in cells:
        d = c.difference_coverage
        print(f"| {c.tasks} | {c.trials} | {100 * c.coverage['tasks']:.1f}% | {100 * c.coverage['trials']:.1f}% | "
              f"{100 * c.false_positive_rate:.1f}% | {100 * d[0.0, 'tasks']:.1f}% / {100 * d[0.0, 'trials']:.1f}% | "
              f"{100 * d[GAIN, 'tasks']:.1f}% / {100 * d[GAIN, 'trials']:.1f}% |")
    print(f"\n{args.repetitions} repetitions per cell (bootstrap distributions exact; {RESAMPLES:,} resamples where "
          f"sampled), seed {args.seed}; "
          f"Monte Carlo error about {100 * monte_carlo_error(0.95, args.repetitions):.1f} points at 95%; "
          f"{time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
