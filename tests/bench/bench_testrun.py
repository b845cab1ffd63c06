"""Wall time of one test round: cold (a fresh container) and warm (the session's
container and build tree reused, the solution changed since the last round), side by side
in the same run with

  baseline  what Exercism's and Aider's runners do: a fresh build folder, cmake configure,
            make, with Catch2's main compiled from the single header every time;
  floor     g++ of the test and solution units, a link against the precompiled main and
            the test binary's run, timed directly inside the container.

All three run in the same sandbox image. Each warm round alternates between the reference
and a faulty control, so every round really recompiles the solution.

    .venv/bin/python tests/bench/bench_testrun.py [--tasks a,b,c] [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import time

from harness.sandbox.base import Role
from harness.sandbox.docker import DockerSandbox
from harness.paths import bundled_dir
from harness.task import load_task
from harness.testrun import run_tests, stage_files


def summary(xs: list[float]) -> dict:
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=4) if len(xs) >= 2 else [xs[0]] * 3
    return {"median": round(statistics.median(xs), 3), "iqr": round(q[2] - q[0], 3),
            "min": round(xs[0], 3), "max": round(xs[-1], 3), "n": len(xs)}


def timed_in_container(session, script: str) -> float:
    """Run `script` in the container and return the seconds it measured itself."""
    wrapped = f"s=$(date +%s.%N); {script} >/dev/null 2>&1; e=$(date +%s.%N); echo \"$s $e\""
    res = session.exec(["sh", "-c", wrapped], role=Role.builder, timeout_s=600)
    start, end = map(float, res.output.decode().split()[-2:])
    return end - start


def candidates(task):
    ref = task.reference_files()
    faulty_dirs = sorted((task.path / ".meta" / "faulty").iterdir())
    bad = {p.name: p.read_bytes() for p in faulty_dirs[0].iterdir()}
    return [ref, bad]


def bench_task(sandbox, task, repeats: int) -> dict:
    cands = candidates(task)
    slug, name = task.slug, task.name
    out = {"task": slug, "cold": [], "warm": [], "baseline": [], "floor": []}
    for i in range(repeats):
        t0 = time.perf_counter()
        with sandbox.session(f"bench cold {slug}") as s:
            report = run_tests(task, cands[i % 2], s)
        out["cold"].append(time.perf_counter() - t0)
        assert report.status.value in ("pass", "fail"), report.message

    with sandbox.session(f"bench warm {slug}") as s:
        run_tests(task, cands[1], s)  # configure once, as the first round of a trial does
        for i in range(repeats):
            t0 = time.perf_counter()
            run_tests(task, cands[i % 2], s)
            out["warm"].append(time.perf_counter() - t0)

        src = f"{s.src_root}/{slug}"
        files, _ = stage_files(task, cands[0])
        s.stage(slug, files)
        units = [f"{src}/{f}" for f in files if f.endswith(".cpp")]
        libs = {"gigasecond": "-lboost_date_time", "meetup": "-lboost_date_time",
                "bank-account": "-pthread", "parallel-letter-frequency": "-ltbb -pthread"}.get(slug, "")
        for i in range(repeats):
            base = (
                f"rm -rf /build/base && cmake -S {src} -B /build/base -DEXERCISM_RUN_ALL_TESTS=ON -UHARNESS_TEST_MAIN"
                f" && env -u HARNESS_TEST_MAIN cmake --build /build/base --target {slug} && /build/base/{slug}"
            )
            out["baseline"].append(timed_in_container(s, f"env -u HARNESS_TEST_MAIN sh -c {shlex.quote(base)}"))
            objs = []
            compile_cmds = []
            for k, unit in enumerate(units):
                obj = f"/build/floor{k}.o"
                objs.append(obj)
                compile_cmds.append(f"g++ -std=c++17 -g -Wall -Wextra -Wpedantic -Werror "
                                    f"-DEXERCISM_RUN_ALL_TESTS -I{src} -c {unit} -o {obj}")
            floor = " && ".join(compile_cmds + [
                f"g++ {' '.join(objs)} {s.test_main} {libs} -o /build/floor-bin", "/build/floor-bin"])
            out["floor"].append(timed_in_container(s, floor))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default="phone-number,clock,gigasecond")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    sandbox = DockerSandbox()
    rows = []
    for slug in args.tasks.split(","):
        raw = bench_task(sandbox, load_task(bundled_dir("suites") / "fixed26" / slug), args.repeats)
        row = {"task": slug, **{k: summary(v) for k, v in raw.items() if k != "task"}}
        row["warm_speedup_vs_baseline"] = round(row["baseline"]["median"] / row["warm"]["median"], 2)
        row["warm_over_floor"] = round(row["warm"]["median"] / row["floor"]["median"], 2)
        rows.append(row)
        print(json.dumps(row))
    print("\n| task | cold | warm | baseline | floor | warm vs baseline | warm / floor |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        cell = lambda k: f"{r[k]['median']:.2f} s (IQR {r[k]['iqr']:.2f})"  # noqa: E731
        print(f"| {r['task']} | {cell('cold')} | {cell('warm')} | {cell('baseline')} | {cell('floor')} | "
              f"{r['warm_speedup_vs_baseline']:.1f}x faster | {r['warm_over_floor']:.2f}x |")


if __name__ == "__main__":
    main()
