"""Every task of a suite through the verifier: its reference must get +1 and each of its
faulty controls less, whether the task has a verifier.toml (calls) or is checked from its
own test file (tests). Prints one row per task and the seconds it took; exits 1 when a
reference or a control breaks the rule.

    .venv/bin/python tests/bench/bench_verify_suite.py [--suite fixed26] [--tasks a,b] [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
import time

from harness.sandbox.docker import DockerSandbox
from harness.suite import find_suite
from harness.verify import load_spec, verify_many


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="fixed26")
    ap.add_argument("--tasks", default="", help="comma-separated slugs (default: all)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    wanted = {t for t in args.tasks.split(",") if t}
    sandbox = DockerSandbox()
    bad = 0
    print("| task | checks from | checks | reference | faulty controls (best) | seconds |")
    print("|---|---|---|---|---|---|")
    for task in find_suite(args.suite).tasks:
        if wanted and task.slug not in wanted:
            continue
        controls = sorted(p for p in (task.path / ".meta" / "faulty").iterdir() if p.is_dir())
        files = [task.reference_files(), *({f.name: f.read_bytes() for f in c.iterdir()} for c in controls)]
        t0 = time.perf_counter()
        ref, *rest = verify_many(task, files, sandbox=sandbox, workers=args.workers)
        seconds = time.perf_counter() - t0
        best = max((v.reward for v in rest), default=-1.0)
        ok = ref.status.value == "ok" and ref.reward == 1.0 and best < 1.0
        bad += not ok
        print(f"| {task.slug} | {'verifier.toml' if load_spec(task) else 'its tests'} | {len(ref.checks)} | "
              f"{ref.status.value} {ref.reward:+.2f} | {len(rest)}, best {best:+.2f} | {seconds:.0f}{'' if ok else ' FAIL'} |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
