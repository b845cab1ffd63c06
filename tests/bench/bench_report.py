"""Benchmark (not part of the test command): how long `harness report` takes on 100,000
trial outcomes, and where the time goes.

    .venv/bin/python tests/bench/bench_report.py [--configs 8 --tasks 250 --trials 50]
                                                 [--runs 10000]

1. In process, phase by phase: reading the outcomes file, the statistics (per-task counts,
   two-level bootstrap intervals, pass@k, health), building the document, and each renderer
   (terminal, JSON, CSV, Markdown and HTML with their plots).
2. End to end, the real command (`harness report --outcomes FILE --format F`) in a fresh
   process per format: what a user waits for, imports included.
3. With --runs N: the same report read from a run folder of N result.json files written
   the way the runner writes them: the first report parses every file (reading files, not
   statistics, dominates) and leaves a row cache; every later one stats the files and
   parses only those written since.
Goal: under 3 s for 100,000 outcomes.
"""

from __future__ import annotations

import argparse
import io
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def synthetic_outcomes(configs: int, tasks: int, trials: int, seed: int = 0) -> pd.DataFrame:
    """Per-task success rates from a U-shaped Beta, as real suites have (tasks mostly always
    or never solved), each config a little better than the last; round 2 recovers a third."""
    rng = np.random.default_rng(seed)
    ease = rng.beta(0.5, 0.5, tasks)
    rows = []
    for c in range(configs):
        p1 = np.clip(ease + 0.02 * c, 0, 1)
        r1 = rng.random((tasks, trials)) < p1[:, None]
        r2 = r1 | (rng.random((tasks, trials)) < 0.33)
        rows.append(pd.DataFrame({
            "config": f"config-{c}", "task": np.repeat([f"task-{t:04d}" for t in range(tasks)], trials),
            "trial": np.tile(np.arange(1, trials + 1), tasks), "round1": r1.ravel(), "round2": r2.ravel(),
        }))
    return pd.concat(rows, ignore_index=True)


def _timed(label: str, fn, timings: list):
    start = time.perf_counter()
    value = fn()
    timings.append((label, time.perf_counter() - start))
    return value


def in_process(path: Path) -> list[tuple[str, float]]:
    timings: list[tuple[str, float]] = []
    _timed("import harness.report (+pandas, numpy, pydantic)", lambda: __import__("harness.report"), timings)
    from rich.console import Console

    from harness import report, stats
    from harness.outcomes import load

    outcomes = _timed("read the Parquet file into the frame", lambda: load([("outcomes", str(path))]), timings)
    frame = outcomes.frame
    counts = _timed("stats: per-task counts (groupby)", lambda: stats.task_counts(frame), timings)
    configs = list(outcomes.configs)
    _timed("stats: two-level bootstrap intervals (exact, all configs, both rounds)",
           lambda: [stats.intervals_of(counts.loc[c]) for c in configs], timings)
    _timed("stats: means, recovery, pass@k", lambda: [stats.summarize(c, counts.loc[c]) for c in configs], timings)
    _timed("stats: agent health", lambda: [stats.health(frame[frame["config"] == c]) for c in configs], timings)
    doc = _timed("build the whole document (all of the stats again)", lambda: report.build_report(outcomes), timings)
    sink = Console(file=io.StringIO(), width=200)
    _timed("render terminal", lambda: report.render_terminal(doc, sink), timings)
    _timed("render JSON", lambda: report.render_json(doc), timings)
    _timed("render CSV", lambda: report.render_csv(doc), timings)
    _timed("import matplotlib (first plot)", lambda: __import__("matplotlib.backends.backend_agg"), timings)
    pngs = {}
    for plot in doc.plots:
        pngs[plot.name] = _timed(f"plot {plot.name} (PNG)", lambda plot=plot: report.render_png(plot), timings)
    _timed("render HTML (plots given)", lambda: report.render_html(doc, pngs), timings)
    return timings


def _run(command: list[str]) -> tuple[float, float]:
    """Wall seconds, and CPU seconds (user + system) of the child: on a shared machine the
    CPU time is the steadier figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def end_to_end(path: Path, out_dir: Path, fmt: str) -> tuple[float, float]:
    harness = ROOT / ".venv" / "bin" / "harness"
    command = [str(harness), "report", "--outcomes", str(path)]
    if fmt != "terminal":
        command += ["--format", fmt, "--out", str(out_dir / f"report.{fmt}")]
    return _run(command)


def from_runs(n_results: int, work: Path) -> list[tuple[str, float]]:
    sys.path.insert(0, str(ROOT))
    from tests.report_support import write_run

    tasks = 250
    trials = max(1, n_results // tasks)
    rng = np.random.default_rng(1)
    table = {f"task-{t:04d}": [int(x) if x else None for x in rng.choice([0, 1, 2], trials)] for t in range(tasks)}
    start = time.perf_counter()
    write_run(work, "bench", {"config-0": table}, tests_per_report=20)
    written = time.perf_counter() - start
    size = next(work.rglob("result.json")).stat().st_size
    harness = ROOT / ".venv" / "bin" / "harness"
    command = [str(harness), "report", str(work / "bench")]
    first_wall, first_cpu = _run(command)   # parses every result.json, writes the row cache
    again_wall, again_cpu = _run(command)   # stats the files, reads the cache
    n = f"{tasks * trials:,}"
    return [(f"write {n} result.json files (setup; 20 test cases a round, ~{size // 1000} kB each)", written),
            (f"harness report on a run folder of {n} results, first report (CPU {first_cpu:.3f} s)", first_wall),
            (f"harness report on the same run folder again, rows cached (CPU {again_cpu:.3f} s)", again_wall)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", type=int, default=8)
    parser.add_argument("--tasks", type=int, default=250)
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--runs", type=int, default=0, help="also time a run folder of this many results")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        frame = synthetic_outcomes(args.configs, args.tasks, args.trials)
        path = work / "outcomes.parquet"
        frame.to_parquet(path)
        print(f"{len(frame):,} trial outcomes: {args.configs} configs x {args.tasks} tasks x {args.trials} trials\n")

        print("In process, by phase:")
        timings = in_process(path)
        for label, seconds in timings:
            print(f"  {seconds:7.3f} s  {label}")

        print("\nEnd to end, `harness report --outcomes FILE` in a fresh process:")
        for fmt in ("terminal", "json", "csv", "md", "html"):
            wall, cpu = end_to_end(path, work, fmt)
            verdict = "under" if wall < 3 else "over"
            print(f"  {wall:7.3f} s wall, {cpu:6.3f} s CPU  --format {fmt}  ({verdict} the 3 s goal)")

        if args.runs:
            print("\nFrom a run folder:")
            for label, seconds in from_runs(args.runs, work / "runs"):
                print(f"  {seconds:7.3f} s  {label}")


if __name__ == "__main__":
    main()
