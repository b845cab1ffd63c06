"""Benchmark (not part of the test command): `harness run --model gold` on a suite, and
where each trial's wall time goes.

    .venv/bin/python tests/bench/bench_run.py [--suite fixed26] [--tasks a,b] [--trials 1]
                                              [--workers 1,2] [--sandbox docker] [--json]

For each worker count, one run in process (the code path `harness run` takes), timed from
the call to the summary. Per trial, from its result.json:
  model     waiting on the model endpoint (the gold server; real models dominate here)
  agent     Aider's own work in the round outside model calls
  test      build and test in the sandbox (compiling the Catch2 tests dominates)
  overhead  the rest of the trial's wall time: workspace, sandbox session start and close,
            the agent chat start (the first trial of each worker waits for its driver to
            import Aider), snapshots, records
and for the run: setup (planning, sandbox, Aider environment check, manifest) until the
first trial starts, throughput in trials per minute, and the load average the machine was
under (these machines are shared; a loaded machine inflates every figure).
Goals: overhead under 2 s per trial; the whole suite in under 3 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.records import TrialResult  # noqa: E402
from harness.runner import RunConfig, run  # noqa: E402

PARTS = ("wall", "model", "agent", "test", "overhead")


def trial_split(result: TrialResult) -> dict[str, float]:
    wall = (datetime.fromisoformat(result.finished_at) - datetime.fromisoformat(result.started_at)).total_seconds()
    model = sum(r.timings.model_seconds for r in result.rounds)
    agent = sum(r.timings.agent_seconds for r in result.rounds)
    test = sum(r.timings.test_seconds for r in result.rounds)
    return {"wall": wall, "model": model, "agent": agent, "test": test, "overhead": wall - model - agent - test}


def describe(values: list[float]) -> dict[str, float]:
    return {"mean": statistics.mean(values), "median": statistics.median(values), "max": max(values)}


def bench(args, workers: int, runs_dir: Path) -> dict:
    load_before = os.getloadavg()[0]
    config = RunConfig(suite=args.suite, models=["gold"], tasks=args.tasks, trials=args.trials, rounds=2,
                       workers=workers, sandbox=args.sandbox, runs_dir=runs_dir, run_id=f"bench-w{workers}")
    t0 = time.time()
    summary = run(config)
    total = time.time() - t0
    results = [TrialResult.model_validate_json(p.read_bytes()) for p in sorted(summary.run_dir.glob("*/*/trial-*/result.json"))]
    splits = [trial_split(r) for r in results]
    first_start = min(datetime.fromisoformat(r.started_at).timestamp() for r in results)
    passed_r1 = sum(r.solved_by(1) for r in results)
    return {
        "workers": workers, "trials": len(results), "passed_round_1": passed_r1,
        "infra_errors": sum(not r.done for r in results),
        "total_s": total, "setup_s": first_start - t0, "trials_per_min": 60 * len(results) / total,
        "load_avg_before": load_before, "load_avg_after": os.getloadavg()[0],
        "per_trial": {part: describe([s[part] for s in splits]) for part in PARTS},
        "slowest_overhead": sorted(((s["overhead"], r.task) for s, r in zip(splits, results)), reverse=True)[:3],
    }


def print_row(b: dict) -> None:
    print(f"\nworkers={b['workers']}: {b['trials']} trials, {b['passed_round_1']} passed round 1, "
          f"{b['infra_errors']} infra errors; total {b['total_s']:.1f} s (setup {b['setup_s']:.1f} s), "
          f"{b['trials_per_min']:.1f} trials/min; load average {b['load_avg_before']:.1f} -> {b['load_avg_after']:.1f} "
          f"on {os.cpu_count()} cores")
    print(f"  {'per trial (s)':14s} {'mean':>7s} {'median':>7s} {'max':>7s}")
    for part in PARTS:
        d = b["per_trial"][part]
        print(f"  {part:14s} {d['mean']:7.2f} {d['median']:7.2f} {d['max']:7.2f}")
    print("  largest overheads: " + ", ".join(f"{task} {s:.2f} s" for s, task in b["slowest_overhead"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="fixed26")
    ap.add_argument("--tasks", default=None, help="comma-separated slugs (default: all)")
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts, one run each")
    ap.add_argument("--sandbox", default="auto")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    args.tasks = args.tasks.split(",") if args.tasks else None
    out = []
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        for w in (int(x) for x in args.workers.split(",")):
            b = bench(args, w, Path(tmp))
            out.append(b)
            if not args.json:
                print_row(b)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        goal = [b for b in out if b["workers"] == 2]
        for b in goal:
            print(f"\ngoal, 2 workers: suite in {b['total_s']:.0f} s (< 180 s: {'met' if b['total_s'] < 180 else 'NOT met'}); "
                  f"mean overhead {b['per_trial']['overhead']['mean']:.2f} s per trial "
                  f"(< 2 s: {'met' if b['per_trial']['overhead']['mean'] < 2 else 'NOT met'})")


if __name__ == "__main__":
    main()
