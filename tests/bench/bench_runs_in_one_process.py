"""Runs one after another in one harness process, as a loop's evaluations or a test
session's runs are: gold over a few fixed26 tasks, --runs times, each run's wall time and
the CPU seconds of the whole machine while it ran (its containers and Aider's drivers
included; tests/bench/machine.py). With --baseline-rev REV, this script runs again with
REV's harness package first on the path (its image built when missing), --rounds times in
turn with this tree (A/B/A/B).

    .venv/bin/python tests/bench/bench_runs_in_one_process.py [--tasks clock,bank-account] [--runs 3]
        [--baseline-rev REV --rounds 2]"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# With --in-tree the harness package is the measured tree's, from PYTHONPATH: this one stays off the path.
if "--in-tree" not in sys.argv:
    sys.path.insert(0, str(ROOT))

# By this folder's own name (first on the path of a script run as a file): with --in-tree,
# `tests` is the measured tree's, which may predate machine.py.
from machine import machine_cpu_s  # noqa: E402


def measure(tasks: list[str], runs: int) -> list[dict]:
    from harness.run import run
    from harness.run.config import RunConfig

    got = []
    with tempfile.TemporaryDirectory(prefix="bench-runs-") as tmp:
        for i in range(runs):
            wall, busy = time.monotonic(), machine_cpu_s()
            summary = run(RunConfig(suite="fixed26", models=["gold"], tasks=tasks, trials=1, workers=2,
                                    sandbox="docker", runs_dir=Path(tmp), run_id=f"run-{i}"))
            passed = summary.configs[0].first_round_mean
            got.append({"wall_s": round(time.monotonic() - wall, 2), "busy_core_s": round(machine_cpu_s() - busy, 1),
                        "passed": passed})
    return got


def in_tree(tree: Path, tasks: str, runs: int) -> list[dict]:
    """This script, run with `tree`'s harness package first on the path."""
    done = subprocess.run([sys.executable, __file__, "--in-tree", "--tasks", tasks, "--runs", str(runs)], cwd=tree,
                          env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{tree}: exit {done.returncode}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default="clock,bank-account")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-rev")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--in-tree", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.in_tree:
        print(json.dumps(measure(args.tasks.split(","), args.runs)))
        return
    sides = {"this tree": ROOT}
    with contextlib.ExitStack() as stack:
        if args.baseline_rev is not None:
            from tests.bench.revisions import revision

            sides[args.baseline_rev] = stack.enter_context(revision(args.baseline_rev))
        for r in range(args.rounds if args.baseline_rev else 1):
            for name, tree in sides.items():
                got = in_tree(tree, args.tasks, args.runs)
                print(f"round {r + 1} {name:12} " + "; ".join(
                    f"run {i + 1}: {g['wall_s']:.1f} s, {g['busy_core_s']:.1f} core-s, {g['passed']:g} passed"
                    for i, g in enumerate(got)), flush=True)


if __name__ == "__main__":
    main()
