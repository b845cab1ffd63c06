"""Benchmark (not part of the test command): the local executor and the Ray executor at
equal cores, side by side in one invocation, on the two kinds of work that matter most:

  gold run      `harness run --model gold` on fixed26, one trial per task (the code path of
                `harness run`, in process), local with N workers, then Ray with N slots
  verification  one `verify_batch` of distinct candidates of every fixed26 task with a
                verifier (reference, faulty controls, stub), the GRPO reward's path, on a
                warm executor (slots started, references observed) and on a cold one

    .venv/bin/python tests/bench/bench_executor.py [--slots 2] [--repeat 1] [--json]

The cluster is real and on this machine (tests/ray_cluster.py): two nodes of slots/2 CPUs
and slots/2 `sandbox` each, so Ray's slots hold the same cores as the local workers. Ray's
overhead per trial and per candidate is (Ray's wall - local wall) / units; the goal is
under 10% of the local wall at equal cores. For the scaling model in the README it prints
the slot-seconds per unit (wall x slots / units). The load average is printed before and
after: these machines are shared, and a loaded machine inflates every figure.
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

from harness.executor import ExecutorSettings, make_executor  # noqa: E402
from harness.run import run  # noqa: E402
from harness.run.config import RunConfig  # noqa: E402
from harness.store import RunFolder  # noqa: E402
from harness.task import load_task  # noqa: E402
from harness.verify import verify_batch  # noqa: E402
from tests.ray_cluster import LocalCluster  # noqa: E402

GOAL = 0.10
FIXED26 = ROOT / "suites" / "fixed26"


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def candidates() -> list:
    items = []
    for folder in sorted(FIXED26.glob("*/.meta/verifier.toml")):
        task = load_task(folder.parent.parent)
        items.append((task, task.reference_files()))
        faulty = task.path / ".meta" / "faulty"
        for control in sorted(faulty.iterdir()) if faulty.is_dir() else []:
            items.append((task, task.reference_files() | {p.name: p.read_bytes() for p in control.iterdir()}))
        items.append((task, task.stub_files()))
    return items


def daemons_cpu(cluster: LocalCluster) -> float:
    """CPU seconds Ray's own processes (GCS, raylets, agents, monitors: all but the
    workers, which run the slots) have used so far: on the benchmark's cores, beside the
    builds."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0.0
    for pid in cluster.processes():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if b"default_worker.py" not in cmdline and b"ray::" not in cmdline:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def gold_run(settings: ExecutorSettings, slots: int, runs: Path) -> dict[str, float]:
    start = time.perf_counter()
    summary = run(RunConfig(suite="fixed26", models=["gold"], trials=1, sandbox="docker", workers=slots,
                            runs_dir=runs, executor=settings))
    wall = time.perf_counter() - start
    (s,) = summary.configs
    if (s.first_round_mean, s.infra_errors) != (26, 0):
        raise SystemExit(f"gold did not pass every task on {settings.kind}: {s}")
    # Where a trial's time went, from its own records: the trial inside its slot, and of
    # that the build and tests in the sandbox.
    results = [RunFolder(summary.run_dir).read_result("gold", t, 1) for t in RunFolder(summary.run_dir).read_manifest().tasks]
    trial = [(datetime.fromisoformat(r.finished_at) - datetime.fromisoformat(r.started_at)).total_seconds() for r in results]
    test = [sum(n.timings.test_seconds for n in r.rounds) for r in results]
    return {"wall": wall, "trial": statistics.mean(trial), "test": statistics.mean(test)}


def verification(settings: ExecutorSettings, slots: int, items: list) -> dict[str, float]:
    start = time.perf_counter()
    executor = make_executor(settings, sandbox="docker", workers=slots)
    started = time.perf_counter() - start
    with executor:
        t0 = time.perf_counter()
        cold = verify_batch(items, sandbox=executor)
        t1 = time.perf_counter()
        warm = verify_batch(items, sandbox=executor)
        t2 = time.perf_counter()
    if [v.reward for v in cold] != [v.reward for v in warm]:
        raise SystemExit("the warm batch's rewards differ from the cold one's")
    return {"start": started, "cold": t1 - t0, "warm": t2 - t1}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slots", type=int, default=2, help="local workers, and Ray slots (half on each node)")
    parser.add_argument("--repeat", type=int, default=1, help="this many rounds of both, alternating which goes first")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.slots % 2:
        raise SystemExit("--slots must be even (two nodes of slots/2 each)")
    half = args.slots // 2
    items = candidates()
    out: dict = {"slots": args.slots, "trials": 26, "candidates": len(items), "load_before": load(),
                 "local": {"gold": [], "verify": []}, "ray": {"gold": [], "verify": []}}
    cluster = LocalCluster(cpus=(half, half), sandboxes=(half, half)).start()
    try:
        on_ray = ExecutorSettings(kind="ray", address=cluster.address)
        here = ExecutorSettings(kind="local")
        with tempfile.TemporaryDirectory(prefix="bench-executor-") as tmp:
            verify_batch(items, sandbox="docker", workers=args.slots)  # the references' values, cached on disk
            for n in range(args.repeat):
                # Alternated, each first in turn: a machine whose load changes favours neither.
                order = (("local", here), ("ray", on_ray)) if n % 2 == 0 else (("ray", on_ray), ("local", here))
                for name, settings in order:
                    out[name]["gold"].append(gold_run(settings, args.slots, Path(tmp) / f"{name}-{n}"))
                for name, settings in order:
                    out[name]["verify"].append(verification(settings, args.slots, items))
        out["ray_daemons_cpu_s"] = daemons_cpu(cluster)
    finally:
        cluster.stop()
    out["load_after"] = load()
    report(out)
    if args.json:
        print(json.dumps(out, indent=2))


def report(out: dict) -> None:
    slots, trials, cands = out["slots"], out["trials"], out["candidates"]
    med = statistics.median
    print(f"load average before {out['load_before']}, after {out['load_after']}; {slots} local workers = "
          f"{slots} Ray slots on 2 nodes")
    rows = []
    for what, units, pick in (("gold run, fixed26", trials, lambda r: [g["wall"] for g in r["gold"]]),
                              ("verify batch, warm", cands, lambda r: [v["warm"] for v in r["verify"]]),
                              ("verify batch, cold", cands, lambda r: [v["cold"] for v in r["verify"]])):
        local, ray = med(pick(out["local"])), med(pick(out["ray"]))
        over = (ray - local) / local
        rows.append((what, units, local, ray, (ray - local) / units, over, local * slots / units, ray * slots / units))
    print(f"{'work':<20} {'units':>5} {'local s':>8} {'ray s':>8} {'ray +s/unit':>11} {'ray +%':>7} "
          f"{'slot-s/unit local':>17} {'ray':>6}")
    for what, units, local, ray, per, over, sl, sr in rows:
        flag = "ok" if over < GOAL else "over the 10% goal"
        print(f"{what:<20} {units:>5} {local:>8.1f} {ray:>8.1f} {per:>+11.3f} {100 * over:>+6.1f}% {sl:>17.2f} "
              f"{sr:>6.2f}  {flag}")
    for k in ("local", "ray"):
        g = out[k]["gold"]
        print(f"gold trial on {k}: {med([x['trial'] for x in g]):.2f} s inside its slot, of which build and tests "
              f"{med([x['test'] for x in g]):.2f} s (means over the 26 trials)")
    if "ray_daemons_cpu_s" in out:
        print(f"Ray's own processes used {out['ray_daemons_cpu_s']:.0f} CPU-seconds over the whole benchmark")
    starts = {k: med([v["start"] for v in out[k]["verify"]]) for k in ("local", "ray")}
    print(f"executor start: local {starts['local']:.2f} s, ray {starts['ray']:.2f} s ({slots} slots placed, "
          "each node's sandbox made); a run pays it once")


if __name__ == "__main__":
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    main()
