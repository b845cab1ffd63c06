"""Benchmark (not part of the test command): `harness run --model gold` on fixed26 and on
the upstream Exercism C++ or Python exercises imported with `harness suite import`, where
each trial's wall time goes, and Aider's own benchmark on the same exercises with the same
answers, side by side in one invocation.

    .venv/bin/python tests/bench/bench_run.py [--upstream PATH] [--workers 2] [--tasks a,b]
        [--aider-repo DIR --aider-python PY [--mount /npm-install=DIR]]
    .venv/bin/python tests/bench/bench_run.py --baseline-rev REV [--rounds N] [--upstream PATH] ...

  --upstream PATH     the upstream exercises, imported into a throw-away state folder: one
                      language's (polyglot-benchmark/cpp/exercises/practice, .../python/...:
                      the language is the folder's) or the whole checkout (polyglot-benchmark:
                      every language the harness has, as one suite); without it that half is
                      skipped, and so is Aider's benchmark; fixed26 (C++) runs only without it
                      or beside C++'s alone
  --aider-repo DIR    an Aider source tree (its benchmark/benchmark.py is run as it is)
  --baseline-rev REV  this tree and REV (a git worktree, with REV's sandbox image) run the
                      same gold runs in turn, --rounds times (A/B/A/B, so a machine that gets
                      busier weighs on both): whether a change made runs slower; with
                      --upstream and Aider's, Aider's benchmark runs in each round too (the
                      three in an order that turns), beside both
  --aider-python PY   a Python with aider-chat and the benchmark's own requirements
                      (lox, typer, pandas, matplotlib, imgcat); Aider's benchmark runs its
                      C++ tests with /aider/benchmark/cpp-test.sh, the path its Docker image
                      has (here under bubblewrap, the Aider tree mounted at /aider); Python
                      tests with the `pytest` first on the PATH (here /usr/bin's, Debian's, as
                      in the sandbox image); Go's, Rust's and JavaScript's in the environment
                      bench_aider_polyglot.py gives them. A language whose test command this
                      host lacks (AIDER_HOST_TOOLS) is left out of Aider's side, said in one
                      line
  --mount PATH=DIR    bind DIR at PATH on Aider's side: JavaScript's npm-test.sh reads
                      /npm-install (a folder where npm installed the image's Jest and Babel)
  --aider-go-cache-as-image
                      Aider's side's Go build cache starts as a copy of the Go image's (the
                      standard library built once at image build) rather than empty, as in a
                      fresh container of Aider's image

For each suite and worker count, one run in process (the code path `harness run` takes),
timed from the call to the summary. Per trial, from its result.json:
  model     waiting on the model endpoint (the gold server; real models dominate here)
  agent     Aider's own work in the round outside model calls
  test      build and test in the sandbox (compiling the Catch2 tests dominates)
  overhead  the rest of the trial's wall time: workspace, sandbox session start and close,
            the agent chat start (the first trial of each worker waits for its driver to
            import Aider), snapshots, records
and for the run: setup (planning, sandbox, Aider environment check, manifest) until the
first trial starts, throughput, and the load average the machine was under (these machines
are shared; a loaded machine inflates every figure). With --steps, the harness's own steps
are timed as well (count, total, mean, max seconds): container start and removal, the
agent chat's start (a driver's first one waits for its Aider import), its round, the
sandbox session's hand-over, the build and the run (C++), the test run beside the servers
and the runner's end (Python), record writing.

Aider's benchmark gets the same answers: a local OpenAI-compatible server that answers
every request with the reference solution of the exercise whose files it names, through
`--model openai/gold --edit-format whole --threads N --tries 2 --languages L`. It has no
sandbox: it builds and runs the tests on the host, the upstream way (C++: cmake, make,
Catch2's main compiled in every exercise; Python: `pytest` in the exercise's folder).

Over several languages it prints, per language and over all of them, what each side
solved, the harness's mean trial wall (Aider's results time only its coder, not its tests,
so its side has no such figure per language), and Aider's summary figures read three ways:
Aider's own summary code (`benchmark.py --stats DIR --stats-languages L`) on Aider's results
folder, `harness report --aider` on that folder, and the harness's own run in the aider
accounting view; the first two must agree digit for digit.

Goals, at 2 workers on 2 cores: either suite in at most 45 s, and at least 5x faster than
Aider's benchmark on the same exercises and answers.
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.accounting import aider_summary, in_view  # noqa: E402
from harness.languages import language_in_name  # noqa: E402
from harness.gold import ChatServer, ModelError  # noqa: E402
from harness.outcomes import load, load_aider_folder  # noqa: E402
from harness.records import TrialResult  # noqa: E402
from harness.sandbox.image import image_tag  # noqa: E402
from harness.run import run  # noqa: E402
from harness.run.config import RunConfig  # noqa: E402
from harness.task import Task  # noqa: E402

from tests.bench.bench_aider_polyglot import (  # noqa: E402
    LANGUAGES as AIDER_SIDE, ExerciseIndex, _bwrap_with_aider_at, parse_mounts, whole_answer)
from tests.bench.machine import machine_cpu_s  # noqa: E402
from tests.bench.revisions import revision, run_bench  # noqa: E402

PARTS = ("wall", "model", "agent", "test", "overhead")
GOAL_WALL_S = 45.0
GOAL_SPEEDUP = 5.0


def trial_split(result: TrialResult) -> dict[str, float]:
    wall = (datetime.fromisoformat(result.finished_at) - datetime.fromisoformat(result.started_at)).total_seconds()
    model = sum(r.timings.model_seconds for r in result.rounds)
    agent = sum(r.timings.agent_seconds for r in result.rounds)
    test = sum(r.timings.test_seconds for r in result.rounds)
    return {"wall": wall, "model": model, "agent": agent, "test": test, "overhead": wall - model - agent - test}


def describe(values: list[float]) -> dict[str, float]:
    return {"mean": statistics.mean(values), "median": statistics.median(values), "max": max(values)}


def time_steps() -> dict[str, list[float]]:
    """Wrap the steps of a trial with timers (this process only); returns where they land."""
    try:
        import harness.agents.aider.agent as agent
    except ImportError:  # a harness from before agents/aider/
        import harness.agents.aider as agent  # type: ignore[no-redef]
    import harness.run as run_package
    import harness.run.trial as trial
    import harness.sandbox.docker as docker
    import harness.sandbox.pool as pool
    import harness.languages.cpp.testrun as testrun
    import harness.languages.python.testrun as python_round

    times: dict[str, list[float]] = collections.defaultdict(list)

    def wrap(owner, name: str, label: str) -> None:
        original = getattr(owner, name, None)
        if original is None:  # an older harness without this step
            return

        @functools.wraps(original)
        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return original(*a, **k)
            finally:
                times[label].append(time.perf_counter() - t0)

        setattr(owner, name, timed)

    wrap(docker.DockerSession, "_start", "container start")
    wrap(docker.DockerSession, "_close", "container removal")
    wrap(docker.DockerSession, "reset", "session emptied for reuse (background)")
    wrap(agent.AiderAgent, "start", "agent chat start")
    wrap(agent.AiderAgent, "send", "agent round")
    wrap(agent.AiderAgent, "close", "agent chat end")
    wrap(pool.SessionLease, "use", "test round, with the wait for its session")
    wrap(pool.SessionLease, "close", "session given back")
    wrap(testrun, "_configure_and_build", "configure and build")
    wrap(testrun, "_run_binary", "test binary run and collect")
    wrap(python_round, "_proxied_round", "Python: test run beside the servers")
    wrap(python_round, "_end_runner", "Python: the runner's end, after the test run")
    wrap(run_package, "write_record", "record writing")  # the run's profile and contracts
    wrap(trial, "write_record", "record writing")
    return times


def print_steps(times: dict[str, list[float]]) -> None:
    print(f"  {'step (s)':44s} {'count':>5s} {'total':>8s} {'mean':>7s} {'max':>7s}")
    for label, xs in times.items():
        print(f"  {label:44s} {len(xs):5d} {sum(xs):8.2f} {statistics.mean(xs):7.3f} {max(xs):7.3f}")
    times.clear()


def _container_cpu_s() -> float | None:
    """CPU seconds used inside every Docker container so far (cgroup v1's docker parent
    keeps the usage of removed containers; cgroup v2 has no such parent)."""
    try:
        return int(Path("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage").read_text()) / 1e9
    except (OSError, ValueError):
        return None


def _engine_cpu_s() -> float:
    """CPU seconds of the Docker engine's long-lived processes (dockerd, containerd)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        if name in ("dockerd", "containerd"):
            rest = text[text.rindex(")") + 2:].split()
            total += (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _own_cpu_s() -> tuple[float, float]:
    """CPU seconds of this process, and of its children that have ended (Aider drivers)."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def cpu_sample() -> dict[str, float | None]:
    own, children = _own_cpu_s()
    return {"machine": machine_cpu_s(), "containers": _container_cpu_s(), "engine": _engine_cpu_s(),
            "harness": own, "drivers": children}


def cpu_used(before: dict, after: dict) -> dict[str, float | None]:
    """Where a run's CPU went; `other` is everything else on the machine (shims, other
    users' work on a shared machine)."""
    used = {k: (after[k] - before[k]) if after[k] is not None and before[k] is not None else None for k in before}
    known = sum(v for k, v in used.items() if k != "machine" and v is not None)
    used["other"] = used["machine"] - known
    return used


def bench(args, suite_name: str, suite_ref: str, workers: int, runs_dir: Path) -> dict:
    load_before = os.getloadavg()[0]
    run_id = f"bench-{re.sub('[^a-z0-9]+', '-', suite_name)}-w{workers}"
    config = RunConfig(suite=suite_ref, models=["gold"], tasks=args.tasks, trials=args.trials, rounds=2,
                       workers=workers, sandbox=args.sandbox, runs_dir=runs_dir, run_id=run_id)
    cpu_before = cpu_sample()
    t0 = time.time()
    summary = run(config)
    total = time.time() - t0
    cpu = cpu_used(cpu_before, cpu_sample())
    results = [TrialResult.model_validate_json(p.read_bytes()) for p in sorted(summary.run_dir.glob("*/*/trial-*/result.json"))]
    splits = [trial_split(r) for r in results]
    first_start = min(datetime.fromisoformat(r.started_at).timestamp() for r in results)
    linked = [getattr(r.rounds[0].test_report, "test_main", None) for r in results if r.rounds and r.rounds[0].test_report]
    mains = sorted({getattr(m, "value", "not recorded") for m in linked})
    return {
        "harness": "harness run", "suite": suite_name, "workers": workers, "trials": len(results),
        "passed_round_1": sum(r.passes_after(1) for r in results), "infra_errors": sum(not r.done for r in results),
        "test_main": ",".join(mains),
        "total_s": total, "setup_s": first_start - t0, "trials_per_min": 60 * len(results) / total,
        "load_avg_before": load_before, "load_avg_after": os.getloadavg()[0],
        "per_trial": {part: describe([s[part] for s in splits]) for part in PARTS}, "cpu_s": cpu,
        "slowest_overhead": sorted(((s["overhead"], r.task) for s, r in zip(splits, results)), reverse=True)[:3],
        "run_dir": str(summary.run_dir),
        "seconds_per_language": {lang: statistics.mean(s["wall"] for s, r in zip(splits, results)
                                                       if language_in_name(r.task) == lang)
                                 for lang in sorted({language_in_name(r.task) for r in results} - {None})},
    }


# --- Aider's own benchmark, same exercises, same answers ---------------------------------


class AnswerByFiles:
    """Aider's benchmark sends every exercise to one endpoint: each request is answered with
    the reference solution (the files benchmark.py gives a model) of the exercise it is
    about (bench_aider_polyglot's ExerciseIndex: its files, and where those are every Rust
    exercise's lib.rs, its texts)."""

    def __init__(self, tasks: list[Task]):
        self.tasks = {t.slug: t for t in tasks}
        self.exercises = ExerciseIndex(self.tasks)

    def __call__(self, route: str, body: dict) -> str:
        slug = self.exercises.of("\n".join(str(m.get("content") or "") for m in body.get("messages") or []))
        if slug is None:
            raise ModelError(404, "the request names no known exercise")
        task = self.tasks[slug]
        return whole_answer({f: data.decode() for f, data in task.reference_files().items() if not task.is_build_file(f)})


# What Aider's benchmark runs a language's tests with (its run_unit_tests), as this host must
# have it; JavaScript's also its image's /npm-install (--mount), Java's Gradle's wrapper from
# the internet, which no host here has.
AIDER_HOST_TOOLS = {"cpp": ("cmake", "make", "g++", "bwrap"), "python": ("/usr/bin/pytest",), "go": ("go",),
                    "rust": ("cargo",), "javascript": ("node", "npm", "bwrap")}


def aider_path(languages: list[str]) -> str:
    """The PATH Aider's side runs its tests with: each language's own folders first
    (bench_aider_polyglot's LANGUAGES: Go's toolchain), then /usr/bin's (Debian's pytest and
    cargo, as the sandbox images have them, not a rustup one), then this process's."""
    here = os.environ.get("PATH", "")
    first = [d for lang in languages if lang in AIDER_SIDE
             for d in AIDER_SIDE[lang].env.get("PATH", "").removesuffix(here).split(":") if d]
    return ":".join(dict.fromkeys([*first, "/usr/bin", "/bin"])) + ":" + here


def aider_languages(tasks: list[Task], mounts: dict[str, Path]) -> list[str]:
    """The languages of `tasks` this host can run Aider's benchmark on (their tools, and the
    folders given with --mount that their test scripts read); each other said."""
    ours = sorted({t.language for t in tasks if t.language is not None})
    path = aider_path(ours)
    runs = []
    for lang in ours:
        unmounted = [m for m in getattr(AIDER_SIDE.get(lang), "mounts", ()) if not mounts.get(m, Path("/-")).is_dir()]
        if not all(shutil.which(tool, path=path) for tool in AIDER_HOST_TOOLS.get(lang, ("-",))):
            print(f"Aider's benchmark: {lang} left out, this host lacks what runs its tests "
                  f"({', '.join(AIDER_HOST_TOOLS.get(lang, ('its Docker image',)))})")
        elif unmounted:
            print(f"Aider's benchmark: {lang} left out, its tests need --mount {unmounted[0]}=DIR")
        else:
            runs.append(lang)
    return runs


def image_go_cache(dest: Path) -> None:
    """The Go image's build cache (the standard library's build, made once at image build) as
    `dest`: Aider's side then starts where a harness session does, not from nothing."""
    created = subprocess.run(["docker", "create", image_tag("go"), "true"], capture_output=True, text=True, check=True)
    container = created.stdout.strip()
    try:
        subprocess.run(["docker", "cp", f"{container}:/opt/harness/gocache", str(dest)], check=True, capture_output=True)
    finally:
        subprocess.run(["docker", "rm", container], capture_output=True)


def aider_benchmark(args, tasks: list[Task], workers: int, tmp: Path) -> dict:
    """Run Aider's benchmark.py, unchanged, on a copy of the exercises (Aider's layout,
    <language>/exercises/practice/<exercise>), timed end to end; with /aider the Aider tree
    (its cpp-test.sh is called by that path)."""
    bench_dir = tmp / "aider-benchmarks"
    languages = aider_languages(tasks, args.mounts)
    for task in tasks:
        if task.language in languages:
            shutil.copytree(task.path, bench_dir / "polyglot" / task.language / "exercises" / "practice" / task.exercise)
    work = tmp / "aider-cwd"  # benchmark.py reads the commit of the git repository it runs in
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q",
                    "--allow-empty", "-m", "bench"], cwd=work, check=True)
    server = ChatServer(AnswerByFiles([t for t in tasks if t.language in languages])).start()
    # Python's tests run with the `pytest` first on the PATH: Debian's, as the sandbox image has it.
    # Each language's test environment as the request capture gives it (Go offline, cargo
    # offline on Debian's crates, RUST_BACKTRACE as in Aider's image).
    toolchains = {k: v for lang in languages if lang in AIDER_SIDE for k, v in AIDER_SIDE[lang].aider_env(work).items()}
    if args.aider_go_cache_as_image and "GOCACHE" in toolchains:
        image_go_cache(Path(toolchains["GOCACHE"]))
    env = {**os.environ, **toolchains, "AIDER_DOCKER": "1", "AIDER_BENCHMARK_DIR": str(bench_dir),
           "OPENAI_API_BASE": server.base(""), "OPENAI_API_KEY": "gold", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "AIDER_ANALYTICS": "false", "PATH": aider_path(languages)}
    wrap = ([] if Path("/aider/benchmark/cpp-test.sh").is_file()
            else _bwrap_with_aider_at(args.aider_repo, args.mounts) + ["--chdir", str(work)])
    argv = wrap + [args.aider_python, str(args.aider_repo / "benchmark" / "benchmark.py"), "gold", "--new",
                   "--model", "openai/gold", "--edit-format", "whole", "--threads", str(workers), "--tries", "2",
                   "--languages", ",".join(languages), "--exercises-dir", "polyglot"]
    load_before = os.getloadavg()[0]
    t0 = time.time()
    try:
        done = subprocess.run(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finally:
        server.stop()
    total = time.time() - t0
    run_dirs = list(bench_dir.glob("*--gold"))
    run_dir = run_dirs[0] if len(run_dirs) == 1 else bench_dir
    results = {path: json.loads(path.read_text()) for path in run_dir.glob("*/exercises/practice/*/.aider.results.json")}
    if done.returncode != 0 or len(run_dirs) != 1 or not results:
        tail = "\n".join(done.stdout.splitlines()[-15:])
        raise SystemExit(f"Aider's benchmark failed (exit {done.returncode}):\n{tail}")
    return {
        "harness": "aider benchmark.py", "suite": "upstream", "workers": workers, "trials": len(results),
        "passed_round_1": sum(bool(r.get("tests_outcomes")) and r["tests_outcomes"][0] for r in results.values()),
        "total_s": total, "trials_per_min": 60 * len(results) / total,
        "load_avg_before": load_before, "load_avg_after": os.getloadavg()[0], "run_dir": str(run_dir),
        "languages": languages,
    }


SUMMARY_KEYS = ("test_cases", "pass_rate_1", "pass_rate_2", "pass_num_1", "pass_num_2", "percent_cases_well_formed",
                "error_outputs", "num_malformed_responses", "num_with_malformed_responses", "user_asks", "lazy_comments",
                "exhausted_context_windows", "test_timeouts", "total_cost")


def _aiders_own_summary(args, run_dir: Path, language: str | None) -> dict[str, str]:
    """What Aider's summary code prints for its results folder (one language, or all)."""
    argv = [args.aider_python, str(args.aider_repo / "benchmark" / "benchmark.py"), "--stats", str(run_dir)]
    printed = subprocess.run(argv + (["--stats-languages", language] if language else []), capture_output=True,
                             text=True, cwd=args.aider_repo, env={**os.environ, "AIDER_ANALYTICS": "false"}).stdout
    return {m[1]: m[2] for m in re.finditer(r"^\s+(\w+): (\S+)$", printed, re.MULTILINE)}


def _view(frame_of) -> dict[str | None, dict]:
    """Aider's figures in the aider view of a source, per language (None: all of them)."""
    outcomes = frame_of()
    rows = aider_summary(in_view(outcomes.frame, "aider"), list(outcomes.configs))
    return {r.language: r.as_dict() for r in rows if r.trial in (1, None)}


def per_language(args, ours: dict, theirs: dict | None) -> list[str]:
    """Per language and over all: what each side solved, seconds per exercise, and Aider's
    summary of its own folder read by its code and by the harness (which must agree)."""
    harness = _view(lambda: load([("auto", ours["run_dir"])]))
    aider = _view(lambda: load_aider_folder(Path(theirs["run_dir"]))) if theirs else {}
    lines = ["| language | exercises | harness: passed 1st / 2nd try | harness: trial wall (mean) | Aider: passed 1st / "
             "2nd try (its summary) | `report --aider` on Aider's folder, against its summary |",
             "|---|---|---|---|---|---|"]
    for lang in sorted(k for k in harness if k is not None) + [None]:
        h = harness[lang]
        row = [lang or "all", str(h["test_cases"]), f"{h['pass_num_1']} / {h['pass_num_2']}",
               f"{ours['seconds_per_language'].get(lang, ours['per_trial']['wall']['mean']):.2f} s"]
        if theirs and (lang is None or lang in theirs["languages"]):
            own = _aiders_own_summary(args, Path(theirs["run_dir"]), lang)
            read = aider.get(lang) or aider[None]  # one language alone: its rows are the whole folder's
            differ = [k for k in SUMMARY_KEYS if k in own and own[k] != str(read[k])]
            row += [f"{own.get('pass_num_1')} / {own.get('pass_num_2', own.get('pass_num_1'))}",
                    "same digits" if not differ else "DIFFER: " + ", ".join(f"{k} {own[k]} vs {read[k]}" for k in differ)]
        else:
            row += ["-", "-"]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def print_row(b: dict) -> None:
    print(f"\n{b['harness']}, {b['suite']}, workers={b['workers']}: {b['trials']} trials, {b['passed_round_1']} passed "
          f"round 1; total {b['total_s']:.1f} s, {b['trials_per_min']:.1f} trials/min; load average "
          f"{b['load_avg_before']:.1f} -> {b['load_avg_after']:.1f} on {os.cpu_count()} cores")
    if "per_trial" not in b:
        return
    print(f"  test main: {b['test_main']}; setup {b['setup_s']:.1f} s; {b['infra_errors']} infra errors")
    print(f"  {'per trial (s)':14s} {'mean':>7s} {'median':>7s} {'max':>7s}")
    for part in PARTS:
        d = b["per_trial"][part]
        print(f"  {part:14s} {d['mean']:7.2f} {d['median']:7.2f} {d['max']:7.2f}")
    cpu = b["cpu_s"]
    print(f"  CPU seconds over the run (machine {cpu['machine']:.1f} of {os.cpu_count() * b['total_s']:.1f} available): "
          + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items() if k != "machine" and v is not None))
    print("  largest overheads: " + ", ".join(f"{task} {s:.2f} s" for s, task in b["slowest_overhead"]))


def versus(args, passed: list[str]) -> None:
    """This tree's gold runs against REV's, alternating: the medians of the rounds' walls and
    of the CPU seconds the run itself used (its containers, the engine, the harness and the
    Aider drivers: what a shared machine's other work does not add to); with Aider's
    benchmark (--upstream, --aider-repo, --aider-python), its wall each round as well, the
    three in an order that turns, and its wall over each tree's."""
    def figures(tree: Path) -> dict[tuple[str, int], tuple[float, float]]:
        out = run_bench(tree, "bench_run.py", "--json", *passed)
        rows = json.loads(out[out.index("\n[") + 1:] if not out.startswith("[") else out)  # after what it said first
        return {(r["suite"], r["workers"]): (r["total_s"], sum(v for k, v in r["cpu_s"].items()
                                                                if k in ("containers", "engine", "harness", "drivers") and v))
                for r in rows if r["harness"] == "harness run"}

    rev = args.baseline_rev
    runs: dict[str, list[dict[tuple[str, int], tuple[float, float]]]] = {"this tree": [], rev: []}
    load = os.getloadavg()[0]
    with revision(rev) as tree, tempfile.TemporaryDirectory(prefix="bench-run-aider-") as tmp:
        sides = [("this tree", lambda: figures(ROOT)), (rev, lambda: figures(tree))]
        if args.upstream is not None and args.aider_repo is not None and args.aider_python is not None:
            os.environ["HARNESS_STATE_DIR"] = str(Path(tmp) / "state")
            from harness.suite import import_suite

            tasks = import_suite(args.upstream, "upstream").select(args.tasks.split(",") if args.tasks else None)
            runs["Aider's benchmark"] = []
            sides.append(("Aider's benchmark", lambda: {
                ("upstream", w): (aider_benchmark(args, tasks, w, Path(tempfile.mkdtemp(dir=tmp)))["total_s"], 0.0)
                for w in (int(x) for x in args.workers.split(","))}))
        for i in range(args.rounds):
            for name, side in sides[i % len(sides):] + sides[:i % len(sides)]:
                runs[name].append(side())
                print(f"round {i + 1}, {name}: " + ", ".join(f"{k[0]} at {k[1]} workers {v[0]:.1f} s"
                                                            for k, v in runs[name][-1].items())
                      + f"; load average {os.getloadavg()[0]:.1f}", flush=True)
    print(f"\n{args.rounds} rounds, in turn; load average {load:.1f} before, {os.getloadavg()[0]:.1f} after, "
          f"on {os.cpu_count()} cores\n")
    print(f"| suite | workers | figure | this tree | {rev} | this / {rev} (median of per-round ratios) |")
    print("|---|---|---|---|---|---|")
    ours, theirs = runs["this tree"], runs[rev]
    for key in ours[0]:
        for i, figure in enumerate(("wall", "CPU of the run")):
            a, b = [r[key][i] for r in ours], [r[key][i] for r in theirs]
            ratio = statistics.median(x / y for x, y in zip(a, b))
            print(f"| {key[0]} | {key[1]} | {figure} | {statistics.median(a):.1f} s | {statistics.median(b):.1f} s "
                  f"| {ratio:.2f}x |")
    aider = runs.get("Aider's benchmark")
    for key in aider[0] if aider else ():
        walls = [r[key][0] for r in aider]
        over = {name: statistics.median(x[key][0] / r[key][0] for x, r in zip(aider, rs))
                for name, rs in (("this tree", ours), (rev, theirs))}
        print(f"\nAider's benchmark, {key[0]} at {key[1]} workers: {statistics.median(walls):.1f} s (median; "
              f"{', '.join(f'{w:.1f}' for w in walls)}); Aider's wall over this tree's {over['this tree']:.2f}x, "
              f"over {rev}'s {over[rev]:.2f}x (medians of per-round ratios)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", type=Path, default=None, help="folder of the upstream exercises (practice/)")
    ap.add_argument("--tasks", default=None, help="comma-separated slugs (default: all)")
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--workers", default="2", help="comma-separated worker counts, one run each")
    ap.add_argument("--sandbox", default="docker")
    ap.add_argument("--aider-repo", type=Path, default=None)
    ap.add_argument("--aider-python", default=None)
    ap.add_argument("--mount", action="append", default=[], metavar="PATH=DIR",
                    help="bind DIR at PATH on Aider's side (JavaScript: /npm-install=DIR, bench_aider_polyglot.py's)")
    ap.add_argument("--aider-go-cache-as-image", action="store_true",
                    help="Aider's side starts Go with the Go image's build cache, not an empty one")
    ap.add_argument("--steps", action="store_true", help="time the harness's own steps too")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--baseline-rev", default=None, help="a git revision to measure this tree's gold runs against")
    ap.add_argument("--rounds", type=int, default=3, help="with --baseline-rev: alternating runs of each tree")
    args = ap.parse_args()
    args.mounts = parse_mounts(args.mount)
    if args.baseline_rev:
        passed = [f"--{k.replace('_', '-')}={v}" for k, v in vars(args).items()
                  if k in ("upstream", "tasks", "trials", "workers", "sandbox") and v is not None]
        versus(args, passed)
        return
    steps = time_steps() if args.steps else None
    args.tasks = args.tasks.split(",") if args.tasks else None
    worker_counts = [int(x) for x in args.workers.split(",")]
    out = []
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        tmp = Path(tmp)
        os.environ["HARNESS_STATE_DIR"] = str(tmp / "state")  # the imported suite lives and dies here
        suites = [("fixed26", "fixed26")]  # fixed26 is C++
        upstream_tasks: list[Task] = []
        if args.upstream is None:
            print("no --upstream PATH: skipping the imported upstream suite and Aider's benchmark")
        else:
            from harness.suite import import_suite

            imported = import_suite(args.upstream, "upstream", notice=print)
            suites = (suites if imported.languages == ("cpp",) else []) + [("upstream", str(imported.path))]
            upstream_tasks = imported.select(args.tasks)
        for name, ref in suites:
            for w in worker_counts:
                b = bench(args, name, ref, w, tmp / "runs")
                out.append(b)
                if not args.json:
                    print_row(b)
                    if steps is not None:
                        print_steps(steps)
        if upstream_tasks and (args.aider_repo is None or args.aider_python is None):
            print("\nno --aider-repo/--aider-python: skipping Aider's benchmark")
        elif upstream_tasks:
            for w in worker_counts:
                b = aider_benchmark(args, upstream_tasks, w, tmp / f"aider-w{w}")
                out.append(b)
                if not args.json:
                    print_row(b)
                # Aider's side without some language: the harness on the same exercises, for the speed-up.
                alike = [t.slug for t in upstream_tasks if t.language in b["languages"]]
                if len(alike) < len(upstream_tasks):
                    b["suite"] = f"upstream: {', '.join(b['languages'])}"
                    ours = bench(argparse.Namespace(**{**vars(args), "tasks": alike}), b["suite"], str(imported.path),
                                 w, tmp / "runs")
                    out.append(ours)
                    if not args.json:
                        print_row(ours)
        if upstream_tasks and not args.json:
            for w in worker_counts:
                ours = next(b for b in out if b["harness"] == "harness run" and b["suite"] == "upstream" and b["workers"] == w)
                theirs = next((b for b in out if b["harness"] != "harness run" and b["workers"] == w), None)
                print(f"\nper language, {w} workers:")
                print("\n".join(per_language(args, ours, theirs)))
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print("\n| harness | suite | workers | wall | trials/min | passed round 1 | per trial: model / agent / test / overhead (mean) |")
    print("|---|---|---|---|---|---|---|")
    for b in out:
        parts = " / ".join(f"{b['per_trial'][p]['mean']:.2f} s" for p in PARTS[1:]) if "per_trial" in b else "-"
        print(f"| {b['harness']} | {b['suite']} | {b['workers']} | {b['total_s']:.1f} s | {b['trials_per_min']:.1f} | "
              f"{b['passed_round_1']}/{b['trials']} | {parts} |")
    aider = {b["workers"]: b for b in out if b["harness"] != "harness run"}
    for b in out:
        if b["harness"] != "harness run" or b["workers"] != 2:
            continue
        line = (f"goal, {b['suite']} at 2 workers: {b['total_s']:.1f} s "
                f"(<= {GOAL_WALL_S:.0f} s: {'met' if b['total_s'] <= GOAL_WALL_S else 'NOT met'})")
        if 2 in aider and b["suite"] == aider[2]["suite"]:
            speedup = aider[2]["total_s"] / b["total_s"]
            line += f"; {speedup:.1f}x faster than Aider's benchmark (>= {GOAL_SPEEDUP:.0f}x: " \
                    f"{'met' if speedup >= GOAL_SPEEDUP else 'NOT met'})"
        print(line)


if __name__ == "__main__":
    main()
