"""`harness select`: best@k, choosing one of k answers without the hidden tests.

For each configuration and task of a run, the candidates are the first-round answers of
its first K trials (the round-1 workspace). A strategy picks one:

- exec: the public tests (predict/public.py) run for real in the sandbox; most passed wins
  (the oracle a selector with an executor would have);
- simulate: a judge model predicts what each public case observes on each candidate (the
  output-prediction prompt, predict/prompt.py; the case itself is the call, languages/cpp/probe/cases.py);
  a candidate is predicted to pass a case when the prediction matches what the reference did
  on it (judge.simulate), and most predicted passes wins;
- shortest: fewest characters of solution code (short1@k);
- random: any one.

Ties are broken at random, seeded per (config, task, strategy). The chosen answer scores its
trial's recorded round-1 result on all tests; nothing is rerun to score it. The numbers
(pass@1 and pass@k over the same K trials, each strategy's best@k, the simulation gap) are
fractions of tasks with task-bootstrap intervals (stats.py)."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

import numpy as np
from pydantic import Field

from ..curriculum.candidates import open_run, starting_code
from ..errors import BadInput
from ..fs import write_record
from ..models import parse_model
from ..records import Record, Status
from ..sandbox import Sandbox, SandboxSession, make_sandbox
from ..executor.local import work_in_sessions
from ..stats import interval, total_interval
from ..store import RunFolder, utc_now
from ..suite import find_suite
from ..task import Task
from ..languages.registry import language_for
from .ask import asker
from .config import STRATEGIES, SelectConfig
from .judge import Judge, simulate
from .public import public_cases, public_truths



class Candidate(Record):
    trial: int
    chars: int = Field(description="characters of solution code")
    passed: bool = Field(description="the trial's recorded round-1 result on all tests")


class Choice(Record):
    trial: int
    passed: bool
    scores: dict[int, float] = Field(default_factory=dict, description="per trial: public cases passed (exec) "
                                     "or predicted to pass (simulate)")


class TaskSelection(Record):
    config: str
    task: str
    public: list[str]
    simulated: list[str] = Field(default_factory=list, description="public cases the judge was asked about")
    unreadable: dict[int, int] = Field(default_factory=dict, description="per trial: judge answers not in the format")
    candidates: list[Candidate]
    choices: dict[str, Choice] = Field(default_factory=dict)


class Figure(Record):
    value: float
    low: float
    high: float


class ConfigSummary(Record):
    config: str
    tasks: int
    figures: dict[str, Figure] = Field(description="pass@1, pass@k, best@k <strategy>, gap: fractions of tasks")


class SelectionRecord(Record):
    schema_version: Literal[1] = 1
    run_id: str
    k: int
    seed: int
    strategies: list[str]
    judge_model: str | None = None
    created: str
    selections: list[TaskSelection]
    summary: list[ConfigSummary]


def selection_file(k: int) -> str:
    return f"selection-k{k}.json"


@dataclass
class _Unit:
    task: Task
    selection: TaskSelection
    files: dict[int, dict[str, bytes]]  # per trial: the round-1 solution files


def _units(folder: RunFolder, k: int, run_tests_again: bool) -> list[_Unit]:
    manifest = folder.read_manifest()
    if k > manifest.trials:
        raise BadInput(f"--k {k}: run {manifest.run_id} has {manifest.trials} trials per task")
    suite = find_suite(manifest.suite_path or manifest.suite)
    for slug in manifest.tasks:
        # Public tests of a task that has changed are not the ones the answers were written for.
        if run_tests_again and manifest.task_hashes.get(slug) != suite.task(slug).content_hash:
            raise BadInput(f"{slug}: the task has changed since run {manifest.run_id}; exec and simulate need the task it ran")
    units = []
    for cfg in manifest.configs:
        for slug in manifest.tasks:
            task = suite.task(slug)
            files, candidates = {}, []
            for trial in range(1, k + 1):
                result = folder.read_result(cfg.name, slug, trial)
                workspace = folder.trial_dir(cfg.name, slug, trial) / "round-1" / "workspace"
                if result is None or not result.done or not result.rounds or not workspace.is_dir():
                    continue  # an answer never tested is no candidate
                files[trial] = starting_code(task, workspace)
                chars = sum(len(data.decode(errors="replace")) for data in files[trial].values())
                candidates.append(Candidate(trial=trial, chars=chars, passed=result.passes_after(1)))
            if candidates:
                units.append(_Unit(task, TaskSelection(config=cfg.name, task=slug, candidates=candidates,
                                                       public=[c.name for c in public_cases(task)]), files))
    if not units:
        raise BadInput(f"run {manifest.run_id}: no trial among the first {k} has a tested first round")
    return units


def _pick(unit: _Unit, strategy: str, scores: dict[int, float], seed: int) -> Choice:
    """The candidate with the highest score, ties at random (seeded)."""
    best = max(scores.values())
    tied = [c for c in unit.selection.candidates if scores[c.trial] == best]
    rng = random.Random(f"{seed}:{unit.selection.config}:{unit.selection.task}:{strategy}")
    chosen = rng.choice(tied)
    return Choice(trial=chosen.trial, passed=chosen.passed, scores=scores)


def _exec_scores(unit: _Unit, session: SandboxSession) -> dict[int, float]:
    public = set(unit.selection.public)
    out = {}
    for trial, files in unit.files.items():
        report = language_for(unit.task).run_tests(unit.task, files, session)
        out[trial] = float(sum(1 for t in report.tests if t.name in public and t.status is Status.passed))
    return out


def _simulate_scores(unit: _Unit, session: SandboxSession, judge: Judge) -> dict[int, float]:
    """Cases predicted to pass per candidate. A case's truth is what the reference did on
    it; a case the reference does not do the same way twice is not asked about."""
    public = public_truths(unit.task, session)
    unit.selection.simulated = [c.name for c in public]
    out = {}
    for trial, files in unit.files.items():
        shown = {f: data.decode(errors="replace") for f, data in files.items()}
        simulation = simulate(judge, shown, public)
        unit.selection.unreadable[trial] = simulation.unreadable
        out[trial] = float(sum(c.passed for c in simulation.cases))
    return out


def _judge_for(config: SelectConfig, cfg_model: str, cfg_base: str | None) -> tuple[str, Judge]:
    base = config.api_base or cfg_base
    if base is None:
        raise BadInput("--by simulate: the configuration has no api_base; give the judge's with --api-base")
    model = config.judge_model or cfg_model
    return model, Judge(asker(parse_model(model, base), temperature=0.0))


def _figure(n: np.ndarray, c: np.ndarray, seed: int) -> Figure:
    tasks = len(n)
    low, high = total_interval(n, c, seed=seed)
    return Figure(value=float(np.sum(c / n)) / tasks, low=low / tasks, high=high / tasks)


def summarize(selections: list[TaskSelection], strategies: list[str], seed: int) -> list[ConfigSummary]:
    out = []
    for config in dict.fromkeys(s.config for s in selections):
        rows = [s for s in selections if s.config == config]
        ones = np.ones(len(rows))
        n = np.array([len(s.candidates) for s in rows])
        c = np.array([sum(x.passed for x in s.candidates) for s in rows])
        figures = {"pass@1": _figure(n, c, seed), "pass@k": _figure(ones, (c > 0).astype(float), seed)}
        chosen = {}
        for strategy in strategies:
            chosen[strategy] = np.array([float(s.choices[strategy].passed) for s in rows])
            figures[f"best@k {strategy}"] = _figure(ones, chosen[strategy], seed)
        if "exec" in chosen and "simulate" in chosen:
            # Paired over the same tasks: the resamples draw the same tasks for both.
            low, high = interval([(ones, chosen["simulate"], -1.0), (ones, chosen["exec"], 1.0)], seed=seed)
            gap = float(np.mean(chosen["exec"] - chosen["simulate"]))
            figures["gap exec-simulate"] = Figure(value=gap, low=low / len(rows), high=high / len(rows))
        out.append(ConfigSummary(config=config, tasks=len(rows), figures=figures))
    return out


def select(config: SelectConfig, *, sandbox: Sandbox | None = None,
           notice: Callable[[str], None] | None = None) -> tuple[Path, SelectionRecord]:
    folder = open_run(config.run, config.runs_dir)
    manifest = folder.read_manifest()
    strategies = [s for s in STRATEGIES if s in config.by]
    units = _units(folder, config.k, "exec" in strategies or "simulate" in strategies)
    judges = {c.name: _judge_for(config, c.model, c.api_base) for c in manifest.configs} if "simulate" in strategies else {}
    for unit in units:
        for strategy in ("shortest", "random"):
            if strategy in strategies:
                scores = {c.trial: (-c.chars if strategy == "shortest" else 0.0) for c in unit.selection.candidates}
                unit.selection.choices[strategy] = _pick(unit, strategy, scores, config.seed)
    if "exec" in strategies or "simulate" in strategies:
        box = sandbox or make_sandbox(config.sandbox, notice=notice)

        def work(unit: _Unit, session: SandboxSession) -> None:
            if "exec" in strategies:
                unit.selection.choices["exec"] = _pick(unit, "exec", _exec_scores(unit, session), config.seed)
            if "simulate" in strategies:
                scores = _simulate_scores(unit, session, judges[unit.selection.config][1])
                unit.selection.choices["simulate"] = _pick(unit, "simulate", scores, config.seed)

        work_in_sessions(box, units, work, workers=max(1, min(config.workers or os.cpu_count() or 1, len(units))), label="select")
    selections = [u.selection for u in units]
    judge = sorted({model for model, _ in judges.values()})
    record = SelectionRecord(run_id=manifest.run_id, k=config.k, seed=config.seed, strategies=list(strategies),
                             judge_model=", ".join(judge) or None, created=utc_now(), selections=selections,
                             summary=summarize(selections, list(strategies), config.seed))
    path = folder.root / selection_file(config.k)
    write_record(path, record)
    return path, record
