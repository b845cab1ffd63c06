"""Output-prediction items observed per minute (`harness predict build`) on a suite's
tasks, their verifier calls or, without a verifier, their own test cases: every version of
the code (reference, faulty controls, --mutants compiling mutants per task) built with the
probe and run twice, into a fresh folder, so nothing comes from a previous build. Items
are counted by where their calls came from. Reports wall seconds, items and
versions of code per minute, the load average before and after (a shared machine), and
the CPU seconds the sandbox containers used (bench_validate.count_cpu), which a busy
neighbour does not change. Prints one JSON object.

    .venv/bin/python tests/bench/bench_predict.py [--workers 2] [--mutants 3] [--tasks a,b]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from bench_validate import count_cpu

from harness.predict.build import build
from harness.languages.cpp.probe import is_case
from harness.predict.config import PredictBuildConfig
from harness.sandbox import make_sandbox


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="fixed26")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--mutants", type=int, default=3)
    ap.add_argument("--tasks", default=None)
    ap.add_argument("--sandbox", default="docker")
    args = ap.parse_args()
    sandbox = make_sandbox(args.sandbox)
    cpu: list[float] = []
    if sandbox.backend == "docker":
        count_cpu(sandbox, cpu)
    versions = [0]
    with tempfile.TemporaryDirectory() as tmp:
        config = PredictBuildConfig(suite=args.suite, out="bench", root=Path(tmp), workers=args.workers,
                                    mutants=args.mutants, tasks=args.tasks.split(",") if args.tasks else None)
        load_before = os.getloadavg()[0]
        start = time.monotonic()
        built = build(config, sandbox=sandbox, progress=lambda _: versions.__setitem__(0, versions[0] + 1))
        seconds = time.monotonic() - start
    m = built.manifest
    items = sum(m.items.values())
    print(json.dumps({
        "suite": m.suite, "backend": sandbox.backend, "cores": os.cpu_count(), "workers": args.workers,
        "mutants_per_task": args.mutants, "tasks": len(m.source_tasks) + len(m.eval_tasks),
        "seconds": round(seconds, 1), "items": items, "versions_of_code": versions[0],
        "items_per_minute": round(items / seconds * 60, 1),
        "versions_per_minute": round(versions[0] / seconds * 60, 1),
        "container_cpu_seconds": round(sum(cpu), 1) if cpu else None,
        "by_source": m.by_source, "dropped": m.dropped,
        "items_from": {"test cases": sum(is_case(i.call) for i in built.items),
                       "verifier calls": sum(not is_case(i.call) for i in built.items)},
        "tasks_with_items": len({i.task for i in built.items}),
        "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
    }, indent=2))


if __name__ == "__main__":
    main()
