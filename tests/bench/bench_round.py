"""Wall time of one test round in a warm session (the session's container reused, the
solution changed since the last round) against the bare test command Aider's benchmark
runs, in the same container, for upstream polyglot exercises of one language imported
unchanged with `harness suite import` (the language is the exercises folder's):

  round       the language's run_tests (languages/<name>/testrun.py): the round's folder
              laid out, the screen, the build and the tests behind the harness's judge
              (Python: the candidate's module behind the proxy), the runner's clean-up;
              timed on the host
  floor       what Aider's benchmark runs (FLOORS below: `pytest`, `go test ./...`, ...)
              in a folder holding the exercise and the solution, in the same container,
              one exec timed on the host, its caches warmed by one untimed run as the
              round's are by the trial's first round
  floor_in    the same command timed by the container itself (no exec around it)
  round_cpu, floor_cpu
              CPU seconds the container used for each (docker's own count: unlike wall
              time, barely moved by other work on a shared machine; the engine's and
              runc's share of an exec is outside it)

Rounds and floors alternate within every repeat (A/B/A/B, so a machine that gets busier
weighs on both), and every round and every floor gets the reference with a comment of its
own added, so each really has a changed solution (nothing reused from a cache of builds or
of test results). Ratios are the median of
per-repeat ratios; these machines are shared, so the load average is printed too.

    .venv/bin/python tests/bench/bench_round.py \\
        --upstream /path/to/polyglot-benchmark/<language>/exercises/practice [--tasks a,b] [--repeats N]
        [--baseline-rev REV [--rounds N]]

With --baseline-rev, this script runs --rounds times against this tree's harness and as
many against REV's (tests/bench/revisions.py: a git worktree, its sandbox image built when
missing), alternating
ABBA, each run with the same bench code, and prints both side by side: the medians over
the runs of each run's medians and of its per-repeat ratios, and this tree's round over
REV's (the median of the runs' paired ratios).

Goal: a round at most 1.3x the bare test command (`round / floor`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The harness measured: this tree's, or another revision's worktree (--baseline-rev runs).
sys.path.insert(0, os.environ.get("BENCH_HARNESS_TREE", str(ROOT)))
sys.path.insert(1, str(ROOT))

from harness.languages.registry import language_for  # noqa: E402
from harness.sandbox.base import Role  # noqa: E402
from harness.sandbox.docker import DockerSandbox  # noqa: E402
from harness.staging import stage_files  # noqa: E402
from harness.task import Task  # noqa: E402
from tests.bench.bench_testrun import container_cpu, summary, upstream_suite  # noqa: E402

GOAL = 1.3
PARTS = ("round", "floor", "floor_in", "round_cpu", "floor_cpu")
RATIOS = {"round_over_floor": ("round", "floor"), "round_over_floor_in": ("round", "floor_in"),
          "cpu_round_over_floor": ("round_cpu", "floor_cpu")}


# Aider's test command for each language (benchmark.py's run_unit_tests), as a shell line run
# in the exercise's folder by the builder, with the environment the image gives and no cache
# written outside the folder.
_ENV = "env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8"
_JARS = ":".join(f"/usr/share/java/{jar}.jar" for jar in (
    "junit-jupiter-api", "junit-jupiter-params", "apiguardian-api", "assertj-core", "com.android.json"))
# Debian's Go 1.21 lives outside the plain PATH (the Go image's ENV adds it).
_GO_ENV = _ENV.replace("PATH=", "PATH=/usr/lib/go-1.21/bin:")
FLOORS = {
    "python": f"{_ENV} PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -p no:cacheprovider",
    "go": f"mkdir -p .floor-tmp && {_GO_ENV} GOCACHE=/build/.floor-cache GOPATH=/build/.floor-path "
          "GOTMPDIR=$PWD/.floor-tmp GOFLAGS=-mod=mod GOPROXY=off CGO_ENABLED=0 go test ./...",
    # The crates' build shared from the image's warm target, as the round's session copies it;
    # the image's cargo config without its profile (builds without debug info), which Aider's
    # image does not have.
    "rust": "mkdir -p /build/.floor-home && sed '/^\\[profile/,$d' /opt/harness/cargo/config.toml >/build/.floor-home/config.toml "
            "&& { [ -d /build/.floor-target ] || cp -a /opt/harness/cargo-target /build/.floor-target; } "
            f"&& {_ENV} CARGO_HOME=/build/.floor-home CARGO_TARGET_DIR=/build/.floor-target "
            "cargo test -- --include-ignored",
    # Aider's npm-test.sh over the image's node_modules.
    "javascript": "ln -sfn /opt/harness/npm/node_modules node_modules && sed -i 's/\\bxtest(/test(/g' *.spec.js "
                  f"&& {_ENV.replace('HOME=/nonexistent', 'HOME=$PWD/.floor-home')} npm run test",
    # Gradle's wrapper cannot be fetched: javac and JUnit's console launcher over Debian's
    # jars, as Gradle would run them, with no class-data archive (the round uses the image's).
    "java": "sed -i '/@Disabled(/d' src/test/java/*.java && mkdir -p .floor-out "
            f"&& {_ENV} javac -d .floor-out -cp {_JARS} src/main/java/*.java src/test/java/*.java "
            f"&& {_ENV} java -jar /usr/share/java/junit-platform-console-standalone.jar -cp .floor-out:{_JARS} "
            "--scan-classpath .floor-out --disable-banner",
}
COMMENT = {"python": b"#"}


def candidate(task: Task, k: int) -> dict[str, bytes]:
    """The answer with every solution file touched by a comment of its own: each round and
    each floor sees a solution it has not built, as a model's next answer is, so no build or
    test result is reused from the one before."""
    mark = COMMENT.get(task.layout.name, b"//") + f" touched by the benchmark, {k}\n".encode()
    return {f: data + b"\n" + mark if f in task.solution_files else data for f, data in task.reference_files().items()}


def floor_script(task: Task, folder: str) -> str:
    if task.layout.name not in FLOORS:
        sys.exit(f"no floor command for {task.layout.title} in this script")
    return f"cd {shlex.quote(folder)} && {FLOORS[task.layout.name]} >/tmp/floor.log 2>&1 </dev/null"


def timed_floor(s, script: str) -> tuple[float, float, float]:
    """Wall seconds on the host, seconds in the container, CPU seconds of one floor run."""
    cpu0, t0 = container_cpu(s), time.perf_counter()
    res = s.exec(["sh", "-c", f"s=$(date +%s.%N); {script}; c=$?; e=$(date +%s.%N); echo \"$c $s $e\""],
                 role=Role.builder, timeout_s=300)
    wall, cpu = time.perf_counter() - t0, container_cpu(s) - cpu0
    code, start, end = res.output.decode().split()[-3:]
    if code != "0":
        log = s.exec(["tail", "-c", "2000", "/tmp/floor.log"], role=Role.builder, timeout_s=30).output.decode()
        sys.exit(f"the bare test command failed: exit {code}: {script}\n{log}")
    return wall, float(end) - float(start), cpu


def floor_folder(s, task: Task, k: int) -> str:
    """A folder holding the exercise with candidate k, the builder's own copy (Aider's
    benchmark tests a folder it may write in); made before the floor is timed."""
    name = f"{task.slug}-floor{k}"
    s.stage(name, stage_files(task, candidate(task, k))[0])
    s.exec(["cp", "-r", f"{s.src_root}/{name}", f"/build/{name}"], role=Role.builder, timeout_s=60)
    return f"/build/{name}"


def bench_task(sandbox, task: Task, repeats: int) -> dict[str, list[float]]:
    judge = language_for(task)
    out: dict[str, list[float]] = {k: [] for k in PARTS}
    with sandbox.session(f"bench round {task.slug}", task.layout.name) as s:
        timed_floor(s, floor_script(task, floor_folder(s, task, -1)))  # caches warmed, not timed
        report = judge.run_tests(task, candidate(task, -1), s)  # the first round of a trial: not timed
        assert report.passed, report.message
        for i in range(repeats):
            cpu0, t0 = container_cpu(s), time.perf_counter()
            report = judge.run_tests(task, candidate(task, i), s)
            out["round"].append(time.perf_counter() - t0)
            out["round_cpu"].append(container_cpu(s) - cpu0)
            assert report.passed, report.message
            wall, inside, cpu = timed_floor(s, floor_script(task, floor_folder(s, task, i)))
            out["floor"].append(wall)
            out["floor_in"].append(inside)
            out["floor_cpu"].append(cpu)
    return out


def measure(upstream: str, slugs: list[str], repeats: int) -> list[dict]:
    """One row a task: each part's summary and the medians of the per-repeat ratios."""
    sandbox = DockerSandbox()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-round-") as state:
        suite = upstream_suite(upstream, state)
        for slug in slugs:
            raw = bench_task(sandbox, suite.task(slug), repeats)
            row = {"task": slug, **{k: summary(raw[k]) for k in PARTS},
                   **{name: round(statistics.median(a / b for a, b in zip(raw[x], raw[y])), 3)
                      for name, (x, y) in RATIOS.items()}}
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def runs_of(tree: Path, upstream: str, tasks: str, repeats: int) -> list[dict]:
    """One run of this script against `tree`'s harness, its rows."""
    env = {**os.environ, "BENCH_HARNESS_TREE": str(tree), "PYTHONPATH": str(tree)}
    got = subprocess.run([sys.executable, __file__, "--upstream", upstream, "--tasks", tasks, "--repeats", str(repeats)],
                         cwd=tree, env=env, capture_output=True, text=True)
    if got.returncode != 0:
        sys.exit(f"{tree}: exit {got.returncode}: {got.stderr.strip()[-2000:]}")
    return [json.loads(line) for line in got.stdout.splitlines() if line.startswith("{")]


def versus(rev: str, upstream: str, tasks: str, rounds: int, repeats: int) -> None:
    # Here, in the parent alone: a child measuring an older tree imports that tree's tests.
    from tests.bench.revisions import revision

    load = os.getloadavg()[0]
    ours: list[dict[str, dict]] = []
    theirs: list[dict[str, dict]] = []
    with revision(rev) as tree:
        for i in range(rounds):  # ABBA: neither side always runs first
            for side in ((ROOT, ours), (tree, theirs))[:: 1 if i % 2 == 0 else -1]:
                side[1].append({r["task"]: r for r in runs_of(side[0], upstream, tasks, repeats)})
                print(f"run {i + 1} of {'this tree' if side[0] == ROOT else rev}: "
                      + ", ".join(f"{t} {r['round_over_floor']:.2f}x" for t, r in side[1][-1].items())
                      + f"; load average {os.getloadavg()[0]:.1f}", flush=True)
    print(f"\nload average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {rounds} runs of each tree "
          f"(ABBA), {repeats} repeats a run, warm session, 1 CPU per container; medians over the runs\n")
    print(f"| task | tree | round | floor | round / floor | round CPU | floor CPU | round CPU / floor CPU "
          f"| round, this / {rev} |")
    print("|---|---|---|---|---|---|---|---|---|")
    med = statistics.median
    for slug in tasks.split(","):
        paired = med(a[slug]["round"]["median"] / b[slug]["round"]["median"] for a, b in zip(ours, theirs))
        for name, runs in (("this", ours), (rev, theirs)):
            part = lambda k: med(r[slug][k]["median"] for r in runs)  # noqa: E731
            ratio = lambda k: med(r[slug][k] for r in runs)  # noqa: E731
            print(f"| {slug} | {name} | {part('round'):.3f} s | {part('floor'):.3f} s | {ratio('round_over_floor'):.2f}x "
                  f"| {part('round_cpu'):.3f} s | {part('floor_cpu'):.3f} s | {ratio('cpu_round_over_floor'):.2f}x "
                  f"| {f'{paired:.2f}x' if name == 'this' else ''} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True, help="the polyglot benchmark's <language>/exercises/practice")
    ap.add_argument("--tasks", default=None, help="exercises (default: the first five of the folder)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--baseline-rev", default=None, help="a git revision to measure this tree's rounds against")
    ap.add_argument("--rounds", type=int, default=3, help="with --baseline-rev: runs of each tree, alternating")
    args = ap.parse_args()
    args.tasks = args.tasks or ",".join(sorted(p.name for p in Path(args.upstream).iterdir() if p.is_dir())[:5])
    if args.baseline_rev:
        versus(args.baseline_rev, args.upstream, args.tasks, args.rounds, args.repeats)
        return
    load = os.getloadavg()[0]
    rows = measure(args.upstream, args.tasks.split(","), args.repeats)
    print(f"\nload average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, {args.repeats} repeats, "
          "warm session, 1 CPU per container")
    print("\n| task | round | floor (bare test command, one exec) | floor timed in the container | round / floor "
          "| round / floor in the container | round CPU / floor CPU |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        cell = lambda k: f"{r[k]['median']:.3f} s (IQR {r[k]['iqr']:.3f})"  # noqa: E731
        print(f"| {r['task']} | {cell('round')} | {cell('floor')} | {cell('floor_in')} | {r['round_over_floor']:.2f}x "
              f"| {r['round_over_floor_in']:.2f}x | {r['cpu_round_over_floor']:.2f}x |")
    worst = max(r["round_over_floor"] for r in rows)
    print(f"\nworst round / floor {worst:.2f}x (goal <= {GOAL}x: {'met' if worst <= GOAL else 'NOT met'})")


if __name__ == "__main__":
    main()
