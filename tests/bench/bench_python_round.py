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
  round_cpu, floor_cpu
              CPU seconds the container used for each (docker's own count: unlike wall
              time, barely moved by other work on a shared machine; the engine's and
              runc's share of an exec is outside it)

Rounds and floors alternate within every repeat (A/B/A/B, so a machine that gets busier
weighs on both), and the answer alternates between the reference and the reference with
a comment added, so every round really has a changed solution. Ratios are the median of
per-repeat ratios; these machines are shared, so the load average is printed too.

    .venv/bin/python tests/bench/bench_python_round.py \\
        --upstream /path/to/polyglot-benchmark/python/exercises/practice [--tasks a,b] [--repeats N]
        [--baseline-rev REV [--rounds N]]

With --baseline-rev, this script runs --rounds times against this tree's harness and as
many against REV's (tests/bench/revisions.py: a git worktree, its sandbox image built when
missing), alternating
ABBA, each run with the same bench code, and prints both side by side: the medians over
the runs of each run's medians and of its per-repeat ratios, and this tree's round over
REV's (the median of the runs' paired ratios).

Goal: a round at most 1.3x the bare pytest run (`round / floor`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The harness measured: this tree's, or another revision's worktree (--baseline-rev runs).
sys.path.insert(0, os.environ.get("BENCH_HARNESS_TREE", str(ROOT)))
sys.path.insert(1, str(ROOT))

from harness.languages.python.testrun import run_tests  # noqa: E402
from harness.sandbox.base import Role  # noqa: E402
from harness.sandbox.docker import DockerSandbox  # noqa: E402
from harness.staging import stage_files  # noqa: E402
from harness.task import Task  # noqa: E402
from tests.bench.bench_testrun import container_cpu, summary, upstream_suite  # noqa: E402

GOAL = 1.3
PARTS = ("round", "floor", "floor_in", "round_cpu", "floor_cpu")
RATIOS = {"round_over_floor": ("round", "floor"), "round_over_floor_in": ("round", "floor_in"),
          "cpu_round_over_floor": ("round_cpu", "floor_cpu")}


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
            cpu0, t0 = container_cpu(s), time.perf_counter()
            report = run_tests(task, cands[i % 2], s)
            out["round"].append(time.perf_counter() - t0)
            out["round_cpu"].append(container_cpu(s) - cpu0)
            assert report.passed, report.message
            script = floor_script(task, folders[i % 2])
            cpu0, t0 = container_cpu(s), time.perf_counter()
            res = s.exec(["sh", "-c", f"s=$(date +%s.%N); {script}; c=$?; e=$(date +%s.%N); echo \"$c $s $e\""],
                         role=Role.builder, timeout_s=300)
            out["floor"].append(time.perf_counter() - t0)
            out["floor_cpu"].append(container_cpu(s) - cpu0)
            code, start, end = res.output.decode().split()[-3:]
            assert code == "0", f"bare pytest failed on {task.slug}: exit {code}"
            out["floor_in"].append(float(end) - float(start))
    return out


def measure(upstream: str, slugs: list[str], repeats: int) -> list[dict]:
    """One row a task: each part's summary and the medians of the per-repeat ratios."""
    sandbox = DockerSandbox()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-python-round-") as state:
        suite = upstream_suite(upstream, state)
        for slug in slugs:
            raw = bench_task(sandbox, suite.task(slug), repeats)
            row = {"task": slug, **{k: summary(raw[k]) for k in PARTS},
                   **{name: round(statistics.median(a / b for a, b in zip(raw[x], raw[y])), 3)
                      for name, (x, y) in RATIOS.items()}}
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def runs_of(tree: Path, upstream: str, tasks: str, repeats: int) -> list[dict]:
    """One run of this script against `tree`'s harness, its rows."""
    env = {**os.environ, "BENCH_HARNESS_TREE": str(tree), "PYTHONPATH": str(tree)}
    got = subprocess.run([sys.executable, __file__, "--upstream", upstream, "--tasks", tasks, "--repeats", str(repeats)],
                         cwd=tree, env=env, capture_output=True, text=True)
    if got.returncode != 0:
        sys.exit(f"{tree}: exit {got.returncode}: {got.stderr.strip()[-2000:]}")
    return [json.loads(line) for line in got.stdout.splitlines() if line.startswith("{")]


def versus(rev: str, upstream: str, tasks: str, rounds: int, repeats: int) -> None:
    # Here, in the parent alone: a child measuring an older tree imports that tree's tests.
    from tests.bench.revisions import revision

    load = os.getloadavg()[0]
    ours: list[dict[str, dict]] = []
    theirs: list[dict[str, dict]] = []
    with revision(rev) as tree:
        for i in range(rounds):  # ABBA: neither side always runs first
            for side in ((ROOT, ours), (tree, theirs))[:: 1 if i % 2 == 0 else -1]:
                side[1].append({r["task"]: r for r in runs_of(side[0], upstream, tasks, repeats)})
                print(f"run {i + 1} of {'this tree' if side[0] == ROOT else rev}: "
                      + ", ".join(f"{t} {r['round_over_floor']:.2f}x" for t, r in side[1][-1].items())
                      + f"; load average {os.getloadavg()[0]:.1f}", flush=True)
    print(f"\nload average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {rounds} runs of each tree "
          f"(ABBA), {repeats} repeats a run, warm session, 1 CPU per container; medians over the runs\n")
    print(f"| task | tree | round | floor | round / floor | round CPU | floor CPU | round CPU / floor CPU "
          f"| round, this / {rev} |")
    print("|---|---|---|---|---|---|---|---|---|")
    med = statistics.median
    for slug in tasks.split(","):
        paired = med(a[slug]["round"]["median"] / b[slug]["round"]["median"] for a, b in zip(ours, theirs))
        for name, runs in (("this", ours), (rev, theirs)):
            part = lambda k: med(r[slug][k]["median"] for r in runs)  # noqa: E731
            ratio = lambda k: med(r[slug][k] for r in runs)  # noqa: E731
            print(f"| {slug} | {name} | {part('round'):.3f} s | {part('floor'):.3f} s | {ratio('round_over_floor'):.2f}x "
                  f"| {part('round_cpu'):.3f} s | {part('floor_cpu'):.3f} s | {ratio('cpu_round_over_floor'):.2f}x "
                  f"| {f'{paired:.2f}x' if name == 'this' else ''} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True, help="the polyglot benchmark's python/exercises/practice")
    ap.add_argument("--tasks", default="bowling,forth,react,wordy,zipper")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--baseline-rev", default=None, help="a git revision to measure this tree's rounds against")
    ap.add_argument("--rounds", type=int, default=3, help="with --baseline-rev: runs of each tree, alternating")
    args = ap.parse_args()
    if args.baseline_rev:
        versus(args.baseline_rev, args.upstream, args.tasks, args.rounds, args.repeats)
        return
    load = os.getloadavg()[0]
    rows = measure(args.upstream, args.tasks.split(","), args.repeats)
    print(f"\nload average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, {args.repeats} repeats, "
          "warm session, 1 CPU per container")
    print("\n| task | round | floor (bare pytest, one exec) | floor timed in the container | round / floor "
          "| round / floor in the container | round CPU / floor CPU |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        cell = lambda k: f"{r[k]['median']:.3f} s (IQR {r[k]['iqr']:.3f})"  # noqa: E731
        print(f"| {r['task']} | {cell('round')} | {cell('floor')} | {cell('floor_in')} | {r['round_over_floor']:.2f}x "
              f"| {r['round_over_floor_in']:.2f}x | {r['cpu_round_over_floor']:.2f}x |")
    worst = max(r["round_over_floor"] for r in rows)
    print(f"\nworst round / floor {worst:.2f}x (goal <= {GOAL}x: {'met' if worst <= GOAL else 'NOT met'})")


if __name__ == "__main__":
    main()
