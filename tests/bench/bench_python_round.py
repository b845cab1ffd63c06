"""Wall time of one Python test round in a warm session (the session's container reused,
the solution changed since the last round) against the bare `pytest` floor in the same
container, for upstream polyglot Python exercises imported unchanged with `harness suite
import`:

  round       languages/python/testrun.run_tests: the round's folder laid out, pytest
              over the test files with the candidate's module behind the proxy (its
              server a process of its own), the runner's clean-up; timed on the host
  floor       what Aider's benchmark does: `pytest` in a folder holding the test file and
              the solution, in the same container, one exec timed on the host
  floor_in    the same pytest run timed by the container itself (no exec around it)

Rounds and floors alternate within every repeat (A/B/A/B, so a machine that gets busier
weighs on both), and the answer alternates between the reference and the reference with
a comment added, so every round really has a changed solution. Ratios are the median of
per-repeat ratios; these machines are shared, so the load average is printed too.

    .venv/bin/python tests/bench/bench_python_round.py \\
        --upstream /path/to/polyglot-benchmark/python/exercises/practice [--tasks a,b] [--repeats N]

Goal: a round at most 1.3x the bare pytest run (`round / floor`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.languages.python.testrun import run_tests  # noqa: E402
from harness.sandbox.base import Role  # noqa: E402
from harness.sandbox.docker import DockerSandbox  # noqa: E402
from harness.staging import stage_files  # noqa: E402
from harness.task import Task  # noqa: E402
from tests.bench.bench_testrun import summary, upstream_suite  # noqa: E402

GOAL = 1.3
PARTS = ("round", "floor", "floor_in")


def candidates(ref: dict[str, bytes]) -> list[dict[str, bytes]]:
    """The answer, and the answer with every solution module touched by a comment."""
    return [ref, {f: data + b"\n# touched by the benchmark\n" if f.endswith(".py") else data for f, data in ref.items()}]


def floor_script(task: Task, folder: str) -> str:
    """Aider's test run: `pytest` in the exercise's folder (no cache written, as the round)."""
    return (f"cd {shlex.quote(folder)} && env -i PATH=/usr/bin:/bin PYTHONDONTWRITEBYTECODE=1 HOME=/nonexistent "
            "LANG=C.UTF-8 python3 -m pytest -p no:cacheprovider >/dev/null 2>&1 </dev/null")


def bench_task(sandbox, task: Task, repeats: int) -> dict[str, list[float]]:
    cands = candidates(task.reference_files())
    out: dict[str, list[float]] = {k: [] for k in PARTS}
    with sandbox.session(f"bench python round {task.slug}") as s:
        folders = []
        for k, cand in enumerate(cands):
            name = f"{task.slug}-floor{k}"
            s.stage(name, stage_files(task, cand)[0])
            folders.append(f"{s.src_root}/{name}")
        report = run_tests(task, cands[1], s)  # the first round of a trial: not timed
        assert report.passed, report.message
        for i in range(repeats):
            t0 = time.perf_counter()
            report = run_tests(task, cands[i % 2], s)
            out["round"].append(time.perf_counter() - t0)
            assert report.passed, report.message
            script = floor_script(task, folders[i % 2])
            t0 = time.perf_counter()
            res = s.exec(["sh", "-c", f"s=$(date +%s.%N); {script}; c=$?; e=$(date +%s.%N); echo \"$c $s $e\""],
                         role=Role.builder, timeout_s=300)
            out["floor"].append(time.perf_counter() - t0)
            code, start, end = res.output.decode().split()[-3:]
            assert code == "0", f"bare pytest failed on {task.slug}: exit {code}"
            out["floor_in"].append(float(end) - float(start))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True, help="the polyglot benchmark's python/exercises/practice")
    ap.add_argument("--tasks", default="bowling,forth,react,wordy,zipper")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    sandbox = DockerSandbox()
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-python-round-") as state:
        suite = upstream_suite(args.upstream, state)
        for slug in args.tasks.split(","):
            raw = bench_task(sandbox, suite.task(slug), args.repeats)
            row = {"task": slug, **{k: summary(raw[k]) for k in PARTS},
                   "round_over_floor": round(statistics.median(r / f for r, f in zip(raw["round"], raw["floor"])), 2),
                   "round_over_floor_in": round(statistics.median(r / f for r, f in zip(raw["round"], raw["floor_in"])), 2)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(f"\nload average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, {args.repeats} repeats, "
          "warm session, 1 CPU per container")
    print("\n| task | round | floor (bare pytest, one exec) | floor timed in the container | round / floor "
          "| round / floor in the container |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        cell = lambda k: f"{r[k]['median']:.3f} s (IQR {r[k]['iqr']:.3f})"  # noqa: E731
        print(f"| {r['task']} | {cell('round')} | {cell('floor')} | {cell('floor_in')} | {r['round_over_floor']:.2f}x "
              f"| {r['round_over_floor_in']:.2f}x |")
    worst = max(r["round_over_floor"] for r in rows)
    print(f"\nworst round / floor {worst:.2f}x (goal <= {GOAL}x: {'met' if worst <= GOAL else 'NOT met'})")


if __name__ == "__main__":
    main()
