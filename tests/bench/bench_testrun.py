"""Wall time of one test round: cold (a fresh container) and warm (the session's
container and build tree reused, the solution changed since the last round), for tasks of
fixed26 and, given `--upstream PATH`, the same exercises as upstream Exercism ships them
(imported unchanged with `harness suite import`), side by side in the same run with

  baseline  what Exercism's and Aider's runners do: a fresh build folder, cmake configure,
            make, with Catch2's main compiled from the single header every time;
  floor     g++ of the test and solution units, a link against the precompiled main the
            harness links (fixed26: the harness's; upstream: the image's Catch2WithMain)
            and the test binary's run, timed directly inside the container.

All run in the same sandbox image. Rounds are timed on the wall clock and, because these
machines are shared, also in CPU seconds used inside the container. With --upstream both
suites answer with the upstream reference (it passes fixed26's tests too), so the two rows
differ only in what the harness builds around the same solution; without it, fixed26
answers with its own. Warm rounds alternate between that answer and the same with a
comment added to its source files, so every round really recompiles the solution (and
only the solution: its header is unchanged, as in most second rounds).

    .venv/bin/python tests/bench/bench_testrun.py [--tasks a,b,c] [--repeats N]
        [--upstream /path/to/polyglot-benchmark/cpp/exercises/practice]
    .venv/bin/python tests/bench/bench_testrun.py --baseline-rev REV [--rounds N] [--tasks a,b,c] [--repeats N]

With --baseline-rev, this tree and REV (from a git worktree, with the sandbox image of that
revision, built when missing) each run the fixed26 rounds without the baseline and the
floor, in turn, --rounds times (A/B/A/B, so a machine that gets busier weighs on both):
what this tree's round costs against REV's, in wall and container CPU seconds.

Goal: a round of an upstream task costs at most 1.3x the same task in fixed26, cold and
warm (the `upstream / fixed26` lines).
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

from harness.paths import bundled_dir  # noqa: E402
from harness.records import TestMain  # noqa: E402
from harness.sandbox.base import Role  # noqa: E402
from harness.sandbox.docker import DockerSandbox  # noqa: E402
from harness.task import Task, load_task  # noqa: E402
from harness.languages.cpp.testrun import linked_test_main, run_tests  # noqa: E402
from harness.staging import stage_files  # noqa: E402

from tests.bench.revisions import revision, run_bench  # noqa: E402

GOAL = 1.3
PARTS = ("cold", "warm", "baseline", "floor", "cold_cpu", "warm_cpu")
# What the floor links besides the objects, per task (as their CMakeLists do).
LIBS = {"gigasecond": "-lboost_date_time", "meetup": "-lboost_date_time", "bank-account": "-pthread",
        "parallel-letter-frequency": "-ltbb -pthread"}


def summary(xs: list[float]) -> dict:
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=4) if len(xs) >= 2 else [xs[0]] * 3
    return {"median": round(statistics.median(xs), 3), "iqr": round(q[2] - q[0], 3),
            "min": round(xs[0], 3), "max": round(xs[-1], 3), "n": len(xs)}


def timed_in_container(session, script: str) -> float:
    """Run `script` in the container and return the seconds it measured itself."""
    wrapped = f"s=$(date +%s.%N); {script} >/dev/null 2>&1; e=$(date +%s.%N); echo \"$s $e\""
    res = session.exec(["sh", "-c", wrapped], role=Role.builder, timeout_s=900)
    start, end = map(float, res.output.decode().split()[-2:])
    return end - start


def container_cpu(session) -> float:
    """CPU seconds the session's container has used so far (cmake, compilers, the test
    binary): unlike wall time, barely moved by other work on a shared machine."""
    stats = session.sandbox.client.api.stats(session.container.id, stream=False, one_shot=True)
    return stats["cpu_stats"]["cpu_usage"]["total_usage"] / 1e9


def candidates(ref: dict[str, bytes]) -> list[dict[str, bytes]]:
    """The answer, and the answer with every source file touched by a comment."""
    sources = [f for f in ref if f.endswith(".cpp")] or list(ref)
    touched = {f: data + b"\n// touched by the benchmark\n" if f in sources else data for f, data in ref.items()}
    return [ref, touched]


def floor_script(task: Task, session) -> str:
    src = f"{session.src_root}/{task.slug}"
    main = linked_test_main(task, session)
    defines = "-DEXERCISM_RUN_ALL_TESTS" + (" -DEXERCISM_TEST_SUITE" if main is TestMain.catch2 else "")
    link_main = "/usr/lib/libCatch2WithMain.a" if main is TestMain.catch2 else session.test_main
    units = [f for f in stage_files(task, {})[0] if f.endswith(".cpp") and not f.startswith("test/")]
    objs, steps = [], []
    for k, unit in enumerate(units):
        objs.append(f"/build/floor{k}.o")
        steps.append(f"g++ -std=c++17 -g -Wall -Wextra -Wpedantic -Werror {defines} -I{src} -c {src}/{unit} -o {objs[-1]}")
    steps += [f"g++ -fuse-ld=gold {' '.join(objs)} {link_main} {LIBS.get(task.slug, '')} -o /build/floor-bin",
              "/build/floor-bin"]
    return " && ".join(steps)


def bench_tasks(sandbox, tasks: list[Task], answer: dict[str, bytes], repeats: int, baseline: bool = True) -> list[dict]:
    """The same exercise from each suite with the same answer, measured in turn within every
    repeat, so that a machine busy with other work weighs on both alike (ratios are taken
    per repeat)."""
    cands = [candidates(answer) for _ in tasks]
    out = [{**{k: [] for k in PARTS}, "test_main": None, "catch_pch": None} for _ in tasks]
    for i in range(repeats):
        for task, cand, o in zip(tasks, cands, out):
            t0 = time.perf_counter()
            with sandbox.session(f"bench cold {task.slug}") as s:
                report = run_tests(task, cand[i % 2], s)
                o["cold_cpu"].append(container_cpu(s))
            o["cold"].append(time.perf_counter() - t0)
            assert report.status.value == "pass", report.message
            o["test_main"] = report.test_main.value
            o["catch_pch"] = "yes" if report.catch_precompiled else "no"

    sessions = [sandbox.session(f"bench warm {t.slug}") for t in tasks]
    try:
        for task, cand, s in zip(tasks, cands, sessions):
            run_tests(task, cand[1], s)  # configure once, as the first round of a trial does
        for i in range(repeats):
            for task, cand, s, o in zip(tasks, cands, sessions, out):
                cpu0, t0 = container_cpu(s), time.perf_counter()
                report = run_tests(task, cand[i % 2], s)
                o["warm"].append(time.perf_counter() - t0)
                o["warm_cpu"].append(container_cpu(s) - cpu0)
                assert report.status.value == "pass", report.message
        floors = []
        for task, cand, s in zip(tasks, cands, sessions):
            s.stage(task.slug, stage_files(task, cand[0])[0])
            floors.append(floor_script(task, s))
        for i in range(repeats):
            for task, s, floor, o in zip(tasks, sessions, floors, out):
                src = f"{s.src_root}/{task.slug}"
                base = (
                    f"rm -rf /build/base && cmake -S {src} -B /build/base -DEXERCISM_RUN_ALL_TESTS=ON"
                    f" && cmake --build /build/base --target {task.slug} && /build/base/{task.slug}"
                )
                if baseline:
                    o["baseline"].append(timed_in_container(s, f"env -u HARNESS_TEST_MAIN sh -c {shlex.quote(base)}"))
                o["floor"].append(timed_in_container(s, floor))
    finally:
        for s in sessions:
            s.close()
    return out


def upstream_suite(path: str, state: str):
    """The upstream exercises imported as a user would, into a throw-away state folder."""
    os.environ["HARNESS_STATE_DIR"] = state
    from harness.suite import import_suite

    return import_suite(path, "upstream-bench")


def rows_of(tree: Path, tasks: str, repeats: int) -> dict[str, dict]:
    """One run of `tree`'s own copy of this script (fixed26, no baseline), its rows by task."""
    out = run_bench(tree, "bench_testrun.py", "--tasks", tasks, "--repeats", str(repeats), "--no-baseline")
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {r["task"]: r for r in rows if r["suite"] == "fixed26"}


def versus(rev: str, tasks: str, rounds: int, repeats: int) -> None:
    parts = ("cold", "warm", "cold_cpu", "warm_cpu")
    ours: list[dict[str, dict]] = []
    theirs: list[dict[str, dict]] = []
    with revision(rev) as tree:
        for _ in range(rounds):
            ours.append(rows_of(ROOT, tasks, repeats))
            theirs.append(rows_of(tree, tasks, repeats))
    print(f"{rounds} rounds of {repeats} repeats each, alternating; medians of the rounds' medians\n")
    print(f"| task | part | this tree | {rev} | this / {rev} (median of per-round ratios) |")
    print("|---|---|---|---|---|")
    for slug in tasks.split(","):
        for part in parts:
            a = [r[slug][part]["median"] for r in ours]
            b = [r[slug][part]["median"] for r in theirs]
            ratio = statistics.median(x / y for x, y in zip(a, b))
            print(f"| {slug} | {part} | {statistics.median(a):.3f} s | {statistics.median(b):.3f} s | {ratio:.2f}x |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", default="phone-number,clock,gigasecond")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--upstream", default=None, help="folder of upstream Exercism C++ exercises (practice/)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the baseline (it compiles Catch2's main each time)")
    ap.add_argument("--baseline-rev", default=None, help="a git revision to measure this tree's rounds against")
    ap.add_argument("--rounds", type=int, default=3, help="with --baseline-rev: alternating runs of each tree")
    args = ap.parse_args()
    if args.baseline_rev:
        versus(args.baseline_rev, args.tasks, args.rounds, args.repeats)
        return
    if args.upstream is None:
        print("no --upstream PATH: benchmarking fixed26 only (give the upstream exercises' folder to compare)")
    sandbox = DockerSandbox()
    load = os.getloadavg()[0]
    fixed26 = bundled_dir("suites") / "fixed26"
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-testrun-") as state:
        upstream = upstream_suite(args.upstream, state) if args.upstream else None
        for slug in args.tasks.split(","):
            suites = [("fixed26", load_task(fixed26 / slug))]
            if upstream is not None:
                suites.append(("upstream", upstream.task(slug)))
            answer = suites[-1][1].reference_files()
            raw = bench_tasks(sandbox, [task for _, task in suites], answer, args.repeats, baseline=not args.no_baseline)
            for (suite, _), r in zip(suites, raw):
                measured = [k for k in PARTS if r[k]]
                row = {"suite": suite, "task": slug, "test_main": r["test_main"], "catch_pch": r["catch_pch"],
                       "raw": {k: r[k] for k in measured}, **{k: summary(r[k]) for k in measured}}
                if "baseline" in row:
                    row["warm_speedup_vs_baseline"] = round(row["baseline"]["median"] / row["warm"]["median"], 2)
                row["warm_over_floor"] = round(row["warm"]["median"] / row["floor"]["median"], 2)
                rows.append(row)
                print(json.dumps({k: v for k, v in row.items() if k != "raw"}), flush=True)
    print(f"\nload average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, "
          f"{args.repeats} repeats, 1 CPU per container")
    print("\n| suite | task | main | Catch2 precompiled | cold | warm | cold, container CPU | warm, container CPU | baseline | floor "
          "| warm vs baseline | warm / floor |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cell = lambda k: f"{r[k]['median']:.2f} s (IQR {r[k]['iqr']:.2f})" if k in r else "-"  # noqa: E731
        speedup = f"{r['warm_speedup_vs_baseline']:.1f}x faster" if "baseline" in r else "-"
        print(f"| {r['suite']} | {r['task']} | {r['test_main']} | {r['catch_pch']} | {cell('cold')} | {cell('warm')} | "
              f"{cell('cold_cpu')} | {cell('warm_cpu')} | {cell('baseline')} | "
              f"{cell('floor')} | {speedup} | {r['warm_over_floor']:.2f}x |")
    by = {(r["suite"], r["task"]): r for r in rows}
    for slug in args.tasks.split(","):
        if ("upstream", slug) not in by:
            continue
        up, ours = by[("upstream", slug)]["raw"], by[("fixed26", slug)]["raw"]
        ratios = {k: statistics.median(u / f for u, f in zip(up[k], ours[k])) for k in ("cold", "warm", "cold_cpu", "warm_cpu")}
        verdict = "met" if max(ratios["cold"], ratios["warm"]) <= GOAL else "NOT met"
        print(f"upstream / fixed26, {slug} (median of per-repeat ratios): wall cold {ratios['cold']:.2f}x, "
              f"warm {ratios['warm']:.2f}x (goal <= {GOAL}x: {verdict}); container CPU cold "
              f"{ratios['cold_cpu']:.2f}x, warm {ratios['warm_cpu']:.2f}x")


if __name__ == "__main__":
    main()
