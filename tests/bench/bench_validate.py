"""Wall time of `harness suite validate` (without mutants) for each worker count asked
for, with the machine's load average before and after each, since on a shared machine a
busy neighbour is the usual reason a figure is off, and the CPU seconds the sandbox
containers used (Docker on cgroup v1 or v2), which a neighbour does not change: CPU seconds
over cores is what the run would take on an idle machine with perfect packing. Prints one
JSON object.

    .venv/bin/python tests/bench/bench_validate.py [--suite fixed26] [--workers 2,3] [--tasks a,b]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from harness.sandbox import make_sandbox
from harness.suite import find_suite
from harness.suite_validation import validate_suite


def container_cpu_seconds(container_id: str) -> float | None:
    for path in (Path(f"/sys/fs/cgroup/cpuacct/docker/{container_id}/cpuacct.usage"),
                 Path(f"/sys/fs/cgroup/system.slice/docker-{container_id}.scope/cpu.stat")):
        try:
            text = path.read_text()
        except OSError:
            continue
        if path.name == "cpuacct.usage":
            return int(text) / 1e9
        return int(text.split("usage_usec")[1].split()[0]) / 1e6
    return None


def count_cpu(sandbox, totals: list[float]) -> None:
    """Wrap the sandbox's sessions so each adds its container's CPU seconds when closed."""
    open_session = sandbox.session

    def session(label: str = ""):
        s = open_session(label)
        close = s._close

        def _close():
            if s.container is not None:
                used = container_cpu_seconds(s.container.id)
                if used is not None:
                    totals.append(used)
            close()

        s._close = _close
        return s

    sandbox.session = session


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="fixed26")
    ap.add_argument("--workers", default="2")
    ap.add_argument("--tasks", default=None)
    ap.add_argument("--sandbox", default="docker")
    args = ap.parse_args()
    suite = find_suite(args.suite)
    tasks = args.tasks.split(",") if args.tasks else None
    sandbox = make_sandbox(args.sandbox)
    cpu: list[float] = []
    if sandbox.backend == "docker":
        count_cpu(sandbox, cpu)
    results = []
    for workers in (int(w) for w in args.workers.split(",")):
        cpu.clear()
        load_before = os.getloadavg()[0]
        start = time.monotonic()
        v = validate_suite(suite, sandbox, tasks=tasks, workers=workers)
        results.append({
            "workers": workers,
            "seconds": round(time.monotonic() - start, 1),
            "container_cpu_seconds": round(sum(cpu), 1) if cpu else None,
            "tasks": len(v.tasks),
            "runs": sum(len(t.runs) for t in v.tasks),
            "broken": [t.slug for t in v.broken],
            "load_before": round(load_before, 2),
            "load_after": round(os.getloadavg()[0], 2),
            "slowest": sorted(((t.seconds, t.slug) for t in v.tasks), reverse=True)[:5],
        })
    print(json.dumps({"suite": suite.name, "backend": sandbox.backend, "cores": os.cpu_count(),
                      "results": results}, indent=2))


if __name__ == "__main__":
    main()
