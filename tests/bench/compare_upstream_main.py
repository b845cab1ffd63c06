"""Side by side with the anchor (not part of the test command): every upstream Exercism
C++ exercise, imported unchanged, built the harness's way (its EXERCISM_TEST_SUITE branch,
linking the image's precompiled Catch2WithMain and including Debian's Catch2 header) and
the upstream way (test/tests-main.cpp compiled with the vendored test/catch.hpp), for the
reference, the stub and a few mutants of the reference; per-test outcomes compared.

    .venv/bin/python tests/bench/compare_upstream_main.py PATH [--mutants 3] [--workers 2]

PATH is the upstream exercises' folder (polyglot-benchmark/cpp/exercises/practice). Prints
one line per exercise (candidates compared, how many differ, seconds of build each way),
every difference in full, and exits 1 if any outcome differs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.languages.cpp.mutants import generate_mutants  # noqa: E402
from harness.records import TestMain, TestReport  # noqa: E402
from harness.sandbox.base import SandboxLimits  # noqa: E402
from harness.sandbox.docker import DockerSandbox  # noqa: E402
from harness.languages.cpp.testrun import run_tests  # noqa: E402


def outcomes(report: TestReport) -> tuple:
    return report.status.value, [(t.name, t.status.value, t.message) for t in report.tests]


def compare(task, sandbox, mutants: int) -> dict:
    reference = task.reference_files()
    cands = {"reference": reference, "stub": task.stub_files()}
    for m in generate_mutants(reference, cap=mutants, seed=16):
        cands[f"mutant {m.describe()}"] = m.apply(reference)
    out = {"task": task.slug, "compared": 0, "differ": [], "seconds": {TestMain.catch2: 0.0, TestMain.task: 0.0}}
    with sandbox.session(f"compare {task.slug} catch2") as fast, sandbox.session(f"compare {task.slug} upstream") as up:
        up.catch2_with_main = False
        for name, files in cands.items():
            got, want = run_tests(task, files, fast), run_tests(task, files, up)
            assert (got.test_main, want.test_main) == (TestMain.catch2, TestMain.task), task.slug
            out["seconds"][got.test_main] += got.build_seconds
            out["seconds"][want.test_main] += want.build_seconds
            out["compared"] += 1
            if outcomes(got) != outcomes(want):
                out["differ"].append((name, outcomes(got), outcomes(want)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", type=Path)
    ap.add_argument("--mutants", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--tasks", default=None)
    args = ap.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="compare-upstream-") as state:
        os.environ["HARNESS_STATE_DIR"] = state
        from harness.suite import import_suite

        suite = import_suite(args.path, "upstream-compare")
        tasks = suite.select(args.tasks.split(",") if args.tasks else None)
        # The upstream way compiles Catch2's main in every build tree: minutes on a busy machine.
        sandbox = DockerSandbox(SandboxLimits(build_timeout_s=900))
        t0 = time.time()
        with ThreadPoolExecutor(args.workers) as pool:
            results = list(pool.map(lambda t: compare(t, sandbox, args.mutants), tasks))
    for r in results:
        s = r["seconds"]
        print(f"{r['task']:28s} {r['compared']} candidates, {len(r['differ'])} differ; build "
              f"{s[TestMain.catch2]:6.1f} s with the image's main, {s[TestMain.task]:6.1f} s the upstream way")
        for name, got, want in r["differ"]:
            print(f"  {name}:\n    catch2 main: {got}\n    upstream:    {want}")
    differ = sum(len(r["differ"]) for r in results)
    print(f"\n{sum(r['compared'] for r in results)} candidates in {len(results)} exercises, {differ} with different "
          f"outcomes; {time.time() - t0:.0f} s, load average {load:.1f} -> {os.getloadavg()[0]:.1f}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
