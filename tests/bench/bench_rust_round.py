"""Wall time and CPU of one Rust test round in a warm session (the session's container
reused, the solution changed since the last round) against the bare `cargo test --
--include-ignored` in the same container, for upstream polyglot Rust exercises imported
unchanged with `harness suite import`:

  round       languages/rust/testrun.run_tests: the screen, `cargo test --no-run` into the
              session's target folder, each test binary run as the runner in a copy of
              the package; timed on the host
  floor       what Aider's benchmark does: `cargo test -- --include-ignored` in a folder
              holding the package with the same solution, its own target folder (warmed
              from the image as the round's is, kept from repeat to repeat as Aider's
              exercise folder keeps its own), one exec timed on the host
  round_cpu, floor_cpu
              CPU seconds the container used for each (docker's own count: barely moved
              by other work on a shared machine)

Rounds and floors alternate within every repeat, and the answer alternates between the
reference and the reference with a comment added, so every round compiles a changed
solution. Ratios are the median of per-repeat ratios; the load average is printed too.

    .venv/bin/python tests/bench/bench_rust_round.py \\
        --upstream /path/to/polyglot-benchmark/rust/exercises/practice [--tasks a,b] [--repeats N]

Goal: a round at most 1.3x the bare command (`round / floor`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.languages.rust.testrun import run_tests  # noqa: E402
from harness.sandbox.base import Role  # noqa: E402
from harness.sandbox.docker import DockerSandbox  # noqa: E402
from harness.staging import stage_files  # noqa: E402
from harness.task import Task  # noqa: E402
from tests.bench.bench_testrun import container_cpu, summary, upstream_suite  # noqa: E402

PARTS = ("round", "floor", "round_cpu", "floor_cpu")
RATIOS = {"round_over_floor": ("round", "floor"), "cpu_round_over_floor": ("round_cpu", "floor_cpu")}
FLOOR = "/build/bench-floor"


def candidates(ref: dict[str, bytes]) -> list[dict[str, bytes]]:
    """The answer, and the answer with every Rust source touched by a comment."""
    return [ref, {f: data + b"\n// touched by the benchmark\n" if f.endswith(".rs") else data for f, data in ref.items()}]


def floor_script(folder: str) -> str:
    """Aider's test run over the staged package: the solution copied in, `cargo test`."""
    return (f"cp -R {folder}/. {FLOOR}/package/ && cd {FLOOR}/package && CARGO_HOME={FLOOR}/home "
            f"CARGO_TARGET_DIR={FLOOR}/target cargo test -- --include-ignored >/dev/null 2>&1")


def bench_task(sandbox, task: Task, repeats: int) -> dict[str, list[float]]:
    cands = candidates(task.reference_files())
    out: dict[str, list[float]] = {k: [] for k in PARTS}
    with sandbox.session(f"bench rust round {task.slug}", "rust") as s:
        folders = []
        for k, cand in enumerate(cands):
            s.stage(f"{task.slug}-floor{k}", stage_files(task, cand)[0])
            folders.append(f"{s.src_root}/{task.slug}-floor{k}")
        s.exec(["sh", "-c", f"mkdir -p {FLOOR}/package {FLOOR}/home && cp /opt/harness/cargo/config.toml {FLOOR}/home/ "
                f"&& cp -a /opt/harness/cargo-target {FLOOR}/target && {floor_script(folders[1])}"],
               role=Role.builder, timeout_s=600)
        report = run_tests(task, cands[1], s)  # the first round of a trial: not timed
        assert report.passed, report.message
        for i in range(repeats):
            cpu0, t0 = container_cpu(s), time.perf_counter()
            report = run_tests(task, cands[i % 2], s)
            out["round"].append(time.perf_counter() - t0)
            out["round_cpu"].append(container_cpu(s) - cpu0)
            assert report.passed, report.message
            cpu0, t0 = container_cpu(s), time.perf_counter()
            res = s.exec(["sh", "-c", f"{floor_script(folders[i % 2])}; echo $?"], role=Role.builder, timeout_s=600)
            out["floor"].append(time.perf_counter() - t0)
            out["floor_cpu"].append(container_cpu(s) - cpu0)
            assert res.output.decode().split()[-1] == "0", f"bare cargo test failed on {task.slug}"
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--tasks", default="acronym,gigasecond,react")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    load = os.getloadavg()[0]
    sandbox = DockerSandbox()
    with tempfile.TemporaryDirectory(prefix="bench-rust-round-") as state:
        suite = upstream_suite(args.upstream, state)
        for slug in args.tasks.split(","):
            raw = bench_task(sandbox, suite.task(slug), args.repeats)
            row = {"task": slug, **{k: summary(raw[k]) for k in PARTS},
                   **{name: round(statistics.median(a / b for a, b in zip(raw[x], raw[y])), 3)
                      for name, (x, y) in RATIOS.items()}}
            print(json.dumps(row), flush=True)
    print(f"load average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)


if __name__ == "__main__":
    main()
