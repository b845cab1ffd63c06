"""Written suites scored per minute against a task's mutant set, on the machine's cores
(2 in CI), with the sandbox time split into builds and test runs, beside the naive cost:
a full build (fresh build tree: configure, the written test unit, the solution, the link)
for every target.

For each task, the targets (faulty controls and the sampled mutants its own tests kill)
are sorted first, once, and reported apart (the cache keeps them for every later suite).
Then `--suites` valid suites per task are scored (the task's own tests, each copy with a
comment of its own so that every suite is new content, as a model's would be), in warm
sessions, one per worker: a session's first suite of a task compiles the targets'
solution objects (unless another session already kept them on the host), later ones only
link them (reported apart). The same suites are then scored once more in fresh sessions
(as `harness run --kind tests` gives every trial an emptied one): the targets' objects come
from the host. The naive cost is measured on `--naive` targets of the first task, each
built in a fresh build tree, and scaled to the target count.

    .venv/bin/python tests/bench/bench_testwriting.py [--tasks a,b] [--suites N]
        [--mutant-cap 30] [--workers 2] [--naive 4]

Goal: scoring a suite against ~30 targets costs far less than 30 full builds (the
`speedup` line: naive sandbox seconds per suite over the measured ones, all suites
together; `speedup_later`: over a suite whose targets' objects were already built).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.sandbox import make_sandbox  # noqa: E402
from harness.suite import find_suite  # noqa: E402
from harness.languages.cpp.testrun import drop_build, run_tests  # noqa: E402
from harness.testwriting.score import SuiteToScore, score_suites  # noqa: E402
from harness.testwriting.targets import find_targets  # noqa: E402
from harness.testwriting.written import with_written_tests  # noqa: E402


def naive_seconds(sandbox, task, source: bytes, targets, n: int) -> dict:
    """Full builds of `n` targets, each in a fresh build tree: sandbox seconds per target."""
    written = with_written_tests(task, source)
    session = sandbox.session("bench naive")
    try:
        build, run = [], []
        for target in targets.targets[:n]:
            drop_build(written, session)
            report = run_tests(written, target.files(task), session)
            build.append(report.build_seconds)
            run.append(report.run_seconds)
    finally:
        session.close()
    return {"targets": len(build), "build_s_per_target": round(sum(build) / len(build), 3),
            "run_s_per_target": round(sum(run) / len(run), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="fixed26")
    ap.add_argument("--tasks", default="perfect-numbers,allergies")
    ap.add_argument("--suites", type=int, default=4, help="suites scored per task")
    ap.add_argument("--mutant-cap", type=int, default=30)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--naive", type=int, default=4, help="targets measured with a full build each")
    ap.add_argument("--sandbox", default="docker")
    args = ap.parse_args()
    # A cache of its own: sorting the targets is measured, never skipped by an old entry.
    os.environ["HARNESS_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-testwriting-")
    suite = find_suite(args.suite)
    tasks = [suite.task(s) for s in args.tasks.split(",")]
    sandbox = make_sandbox(args.sandbox)

    start = time.monotonic()
    session = sandbox.session("bench targets")
    try:
        target_sets = {t.slug: find_targets(t, session, mutant_cap=args.mutant_cap) for t in tasks}
    finally:
        session.close()
    sorting_s = time.monotonic() - start

    items = []
    for t in tasks:
        own = t.read(t.test_files[0])
        items += [SuiteToScore(t, own + f"\n// suite {i}\n".encode()) for i in range(args.suites)]
    start = time.monotonic()
    scored = score_suites(sandbox, items, workers=args.workers, mutant_cap=args.mutant_cap)
    wall = time.monotonic() - start
    start = time.monotonic()
    fresh = score_suites(sandbox, [SuiteToScore(i.task, i.source + b"// fresh\n") for i in items],
                         workers=args.workers, mutant_cap=args.mutant_cap)
    fresh_wall = time.monotonic() - start

    per_suite_targets = sum(len(s.targets) for s in scored) / len(scored)
    build = sum(s.build_seconds for s in scored) / len(scored)
    run = sum(s.run_seconds for s in scored) / len(scored)
    # A session's first suite of a task compiles the targets' objects; later ones link them.
    later = [s for s in scored if s.targets and all(t.reused for t in s.targets)]
    first = [s for s in scored if s not in later]

    def split(group: list) -> dict:
        if not group:
            return {"suites": 0}
        return {"suites": len(group), "build_s": round(sum(s.build_seconds for s in group) / len(group), 2),
                "run_s": round(sum(s.run_seconds for s in group) / len(group), 2),
                "wall_s": round(sum(s.seconds for s in group) / len(group), 2)}
    naive = naive_seconds(sandbox, tasks[0], tasks[0].read(tasks[0].test_files[0]), target_sets[tasks[0].slug],
                          args.naive)
    naive_suite = (1 + per_suite_targets) * (naive["build_s_per_target"] + naive["run_s_per_target"])
    print(json.dumps({
        "backend": sandbox.backend, "cores": os.cpu_count(), "workers": args.workers, "load_average": os.getloadavg(),
        "tasks": {slug: {"targets": len(ts.targets), "mutants_kept": ts.mutants, "generated": ts.generated,
                         "not_compiled": ts.not_compiled, "survived": ts.survived}
                  for slug, ts in target_sets.items()},
        "sorting_targets_s": round(sorting_s, 1),
        "suites": len(scored), "all_valid": all(s.valid for s in scored),
        "kill_rates": sorted({s.kill_rate for s in scored}),
        "wall_s": round(wall, 1), "suites_per_minute": round(60 * len(scored) / wall, 2),
        "per_suite": {"targets": round(per_suite_targets, 1), "build_s": round(build, 2), "run_s": round(run, 2),
                      "sandbox_s": round(build + run, 2)},
        "first_suite_per_session": split(first), "later_suites": split(later),
        "fresh_sessions": {**split(fresh), "all_valid": all(s.valid for s in fresh),
                           "suites_per_minute": round(60 * len(fresh) / fresh_wall, 2),
                           "targets_linked_only": sum(t.reused for s in fresh for t in s.targets),
                           "targets": sum(len(s.targets) for s in fresh)},
        "naive": {**naive, "per_suite_s": round(naive_suite, 1)},
        "speedup": round(naive_suite / (build + run), 1),
        "speedup_later": (round(naive_suite / (split(later)["build_s"] + split(later)["run_s"]), 1)
                          if later else None),
    }, indent=2))


if __name__ == "__main__":
    main()
