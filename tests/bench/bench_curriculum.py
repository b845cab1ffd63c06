"""Repair exercises validated per minute, end to end, with the machine's load average before
and after (on a shared machine a busy neighbour is the usual reason a figure is off).
Validated means a candidate went through the sandbox checks, kept or dropped by them; the
wall time includes the reference runs, mutant screening and writing the curriculum, not
making the run. Prints one JSON object.

    .venv/bin/python tests/bench/bench_curriculum.py synth [--suite fixed26] [--tasks a,b] [--workers 2]
    .venv/bin/python tests/bench/bench_curriculum.py build --models 8 [--tasks a,b]   (makes a run first)
    .venv/bin/python tests/bench/bench_curriculum.py build --runs RUN_DIR ...

`synth` reuses each mutant's screening run as its validation run (the same files), so its
figure is about one sandbox run per exercise. `build --models N` first runs N scripted
models through Aider, each answering every task with a different mutant of its reference
(one round), so every failed round is new code the validation must build and test.
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

from harness.curriculum import BuildConfig, SynthConfig, build_from_runs, synthesize  # noqa: E402
from harness.curriculum.candidates import screening_order  # noqa: E402
from harness.curriculum.records import DropReason  # noqa: E402
from harness.agents.editformat import render_whole as whole_answer  # noqa: E402
from harness.gold import ChatServer  # noqa: E402
from harness.run import run  # noqa: E402
from harness.run.config import RunConfig  # noqa: E402
from harness.suite import find_suite  # noqa: E402
from tests.run_support import fast_profile  # noqa: E402
from tests.scripted_model import is_summary_request  # noqa: E402

# Dropped before the sandbox checks: these candidates were never validated.
_BEFORE_VALIDATION = {DropReason.held_out, DropReason.kind_not_selected, DropReason.task_changed,
                      DropReason.no_snapshot, DropReason.unedited, DropReason.mutant_not_compiled,
                      DropReason.mutant_survived, DropReason.duplicate}


def make_run(suite_name: str, tasks: list[str], models: int, where: Path) -> str:
    """A run of `models` scripted models, model i answering each task with its i-th mutant
    (in screening order) of the reference; one trial, one round."""
    suite = find_suite(suite_name)
    answers = {}
    for slug in tasks:
        task = suite.task(slug)
        reference = task.reference_files()
        mutants = screening_order(task, seed=12345)  # not the controls the build screens first (seed 0)
        for i in range(models):
            files = mutants[i % len(mutants)].apply(reference)
            answers[(f"m{i}", task.solution_files[0])] = whole_answer({k: v.decode() for k, v in files.items()})

    def respond(route: str, body: dict) -> str:
        if is_summary_request(body):
            return "We discussed the exercise."
        text = json.dumps(body["messages"])
        return next(a for (m, first), a in answers.items() if m == body["model"] and first in text)

    with ChatServer(respond) as server:
        run(RunConfig(suite=suite_name, tasks=tasks, models=[f"openai/m{i}" for i in range(models)],
                      api_base=server.base(""), trials=1, rounds=1, workers=2, agent=str(fast_profile(where)),
                      runs_dir=where / "runs", run_id="bench"))
    return str(where / "runs" / "bench")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=("synth", "build"))
    ap.add_argument("--suite", default="fixed26")
    ap.add_argument("--tasks", default="perfect-numbers,space-age,gigasecond,phone-number")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--mutants-per-task", type=int, default=12)
    ap.add_argument("--sandbox", default="docker")
    ap.add_argument("--models", type=int, default=8, help="build: scripted models in the run it makes")
    ap.add_argument("--runs", nargs="*", default=None, help="build: existing run folders instead")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-curriculum-") as root:
        common = dict(out="bench", root=Path(root), max_per_task=1000, sandbox=args.sandbox, workers=args.workers)
        if args.command == "build" and not args.runs:
            args.runs = [make_run(args.suite, args.tasks.split(","), args.models, Path(root))]
        load_before = os.getloadavg()[0]
        start = time.monotonic()
        if args.command == "build":
            built = build_from_runs(BuildConfig(runs=args.runs, **common))
        else:
            built = synthesize(SynthConfig(suite=args.suite, tasks=args.tasks.split(","),
                                           mutants_per_task=args.mutants_per_task, **common))
        seconds = time.monotonic() - start
    s = built.manifest.summary
    validated = s.candidates - sum(n for r, n in s.dropped.items() if r in _BEFORE_VALIDATION)
    print(json.dumps({
        "command": args.command,
        "suite": args.suite, "tasks": args.tasks.split(",") if args.command == "synth" or args.models else None,
        "backend": s.backend, "workers": s.workers, "cores": os.cpu_count(),
        "seconds": round(seconds, 1),
        "sandbox_runs": s.sandbox_runs,
        "candidates": s.candidates,
        "validated": validated,
        "kept": s.kept,
        "validated_per_minute": round(60 * validated / seconds, 1),
        "kept_per_minute": round(60 * s.kept / seconds, 1),
        "sandbox_runs_per_minute": round(60 * s.sandbox_runs / seconds, 1),
        "dropped": {r.value: n for r, n in s.dropped.items()},
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }, indent=2))


if __name__ == "__main__":
    main()
