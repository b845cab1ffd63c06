"""`harness select`: best@k, ranking n answers without the hidden tests and scoring the one
a ranker submits from k of them.

For each configuration and task of a run, the candidates are the first-round answers of
its first N trials (the round-1 workspace; N defaults to k). A strategy scores each:

- exec: the public tests (predict/public.py) run for real in the sandbox, the number
  passed (the oracle a selector with an executor would have);
- simulate: a judge model predicts what each public case observes on each candidate, shown
  the code and the case's inputs, never its expected values (judge.simulate); the harness
  compares each prediction with the reference's record, and the score is the number of
  cases predicted to pass (with --attempts M, each case's M verdicts aggregated);
- shortest: minus the characters of the model's response in round 1 (short1@k);
- random: the same for every candidate.

Each strategy's figure is stats.rank_score_at_k: the expected recorded round-1 result (all
tests) of the answer with the best score among k drawn from the n, over every k-subset,
ties at random inside the subset (rank_score@k for simulate, best@k exec, short1@k,
random@k). Beside them pass@1 and the unbiased pass@k over the same n. Nothing is rerun to
score an answer. The figures are means over tasks with task-bootstrap intervals (stats.py);
a task with fewer than k tested answers is left out of them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

import numpy as np
from pydantic import Field

from ..curriculum.candidates import open_run, starting_code
from ..errors import BadInput
from ..fs import write_record
from ..models import parse_model
from ..records import Record, RoundTrajectory, Status
from ..sandbox import Sandbox, SandboxSession, make_sandbox
from ..executor.local import work_in_sessions
from ..stats import pass_at_k, rank_score_at_k, share_interval
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
    response_chars: int | None = Field(description="characters of the model's responses in round 1 (its trajectory)")
    passed: bool = Field(description="the trial's recorded round-1 result on all tests")


class TaskSelection(Record):
    config: str
    task: str
    public: list[str]
    simulated: list[str] = Field(default_factory=list, description="public cases the judge was asked about")
    unreadable: dict[int, int] = Field(default_factory=dict, description="per trial: judge answers not in the format")
    candidates: list[Candidate]
    scores: dict[str, dict[int, float]] = Field(default_factory=dict, description="per strategy and trial: public "
                                                "cases passed (exec), predicted to pass (simulate), minus response "
                                                "characters (shortest), 0 (random)")
    figures: dict[str, float] = Field(default_factory=dict, description="this task's pass@1, pass@k and each "
                                      "strategy's rank score at k; empty when it has fewer than k answers")


class Figure(Record):
    value: float
    low: float
    high: float


class ConfigSummary(Record):
    config: str
    tasks: int = Field(description="tasks with at least k tested answers: those the figures average over")
    figures: dict[str, Figure] = Field(description="pass@1, pass@k, each strategy's rank score at k, gap: means over tasks")


class SelectionRecord(Record):
    schema_version: Literal[2] = 2  # 1: one draw of k answers, each strategy's choice
    run_id: str
    k: int
    n: int
    seed: int
    strategies: list[str]
    judge_model: str | None = None
    attempts: int = 1
    aggregate: str = "majority"
    created: str
    selections: list[TaskSelection]
    summary: list[ConfigSummary]


# Each strategy's figure, under the name the paper gives its estimator.
FIGURES = {"exec": "best@k exec", "simulate": "rank_score@k simulate", "shortest": "short1@k", "random": "random@k"}
GAP = "gap exec-simulate"


def selection_file(k: int, n: int | None = None) -> str:
    return f"selection-k{k}.json" if n in (None, k) else f"selection-k{k}-n{n}.json"


@dataclass
class _Unit:
    task: Task
    selection: TaskSelection
    files: dict[int, dict[str, bytes]]  # per trial: the round-1 solution files


def _response_chars(trial_dir: Path) -> int | None:
    """What the model answered in round 1: every response of its edit calls (a reflection
    is one more), else the round's final answer."""
    path = trial_dir / "round-1" / "trajectory.json"
    if not path.is_file():
        return None
    trajectory = RoundTrajectory.model_validate_json(path.read_bytes())
    said = [c.response for c in trajectory.calls if c.purpose == "edit" and c.response is not None]
    if said:
        return sum(len(r) for r in said)
    return len(trajectory.response) if trajectory.response is not None else None


def _units(folder: RunFolder, n: int, flag: str, run_tests_again: bool) -> list[_Unit]:
    manifest = folder.read_manifest()
    if n > manifest.trials:
        raise BadInput(f"{flag} {n}: run {manifest.run_id} has {manifest.trials} trials per task")
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
            for trial in range(1, n + 1):
                result = folder.read_result(cfg.name, slug, trial)
                trial_dir = folder.trial_dir(cfg.name, slug, trial)
                workspace = trial_dir / "round-1" / "workspace"
                if result is None or not result.done or not result.rounds or not workspace.is_dir():
                    continue  # an answer never tested is no candidate
                files[trial] = starting_code(task, workspace)
                chars = sum(len(data.decode(errors="replace")) for data in files[trial].values())
                candidates.append(Candidate(trial=trial, chars=chars, response_chars=_response_chars(trial_dir),
                                            passed=result.passes_after(1)))
            if candidates:
                units.append(_Unit(task, TaskSelection(config=cfg.name, task=slug, candidates=candidates,
                                                       public=[c.name for c in public_cases(task)]), files))
    if not units:
        raise BadInput(f"run {manifest.run_id}: no trial among the first {n} has a tested first round")
    return units


def _plain_scores(unit: _Unit, strategy: str) -> dict[int, float]:
    """shortest and random: no sandbox, no judge."""
    if strategy == "random":
        return {c.trial: 0.0 for c in unit.selection.candidates}
    missing = next((c.trial for c in unit.selection.candidates if c.response_chars is None), None)
    if missing is not None:
        raise BadInput(f"{unit.selection.config}/{unit.selection.task} trial {missing}: no round-1 trajectory "
                       "with the model's response, which shortest measures")
    return {c.trial: -float(c.response_chars or 0) for c in unit.selection.candidates}


def _exec_scores(unit: _Unit, session: SandboxSession) -> dict[int, float]:
    public = set(unit.selection.public)
    out = {}
    for trial, files in unit.files.items():
        report = language_for(unit.task).run_tests(unit.task, files, session)
        out[trial] = float(sum(1 for t in report.tests if t.name in public and t.status is Status.passed))
    return out


def _simulate_scores(unit: _Unit, session: SandboxSession, judge: Judge, config: SelectConfig) -> dict[int, float]:
    """Cases predicted to pass per candidate. A case's truth is what the reference did on
    it; a case the reference does not do the same way twice is not asked about."""
    public = public_truths(unit.task, session)
    unit.selection.simulated = [c.name for c in public]
    out = {}
    for trial, files in unit.files.items():
        shown = {f: data.decode(errors="replace") for f, data in files.items()}
        simulation = simulate(judge, shown, public, attempts=config.attempts, rule=config.aggregate)
        unit.selection.unreadable[trial] = sum(
            sum(p is None for p in (c.attempts if c.attempts is not None else [c.predicted])) for c in simulation.cases)
        out[trial] = float(sum(c.passed for c in simulation.cases))
    return out


def _judge_for(config: SelectConfig, cfg_model: str, cfg_base: str | None) -> tuple[str, Judge]:
    base = config.api_base or cfg_base
    if base is None:
        raise BadInput("--by simulate: the configuration has no api_base; give the judge's with --api-base")
    model = config.judge_model or cfg_model
    return model, Judge(asker(parse_model(model, base), temperature=0.0 if config.attempts == 1 else None))


def task_figures(selection: TaskSelection, k: int) -> dict[str, float]:
    """The task's pass@1, pass@k and each scored strategy's rank score at k (none below k answers)."""
    passed = [c.passed for c in selection.candidates]
    if len(passed) < k:
        return {}
    out = {"pass@1": sum(passed) / len(passed), "pass@k": pass_at_k(len(passed), sum(passed), k)}
    for strategy, scores in selection.scores.items():
        out[FIGURES[strategy]] = rank_score_at_k([scores[c.trial] for c in selection.candidates], passed, k)
    return out


def _figure(values: list[float], seed: int) -> Figure:
    low, high = share_interval([np.array([v]) for v in values], seed=seed)
    return Figure(value=float(np.mean(values)), low=low, high=high)


def summarize(selections: list[TaskSelection], strategies: list[str], seed: int) -> list[ConfigSummary]:
    out = []
    for config in dict.fromkeys(s.config for s in selections):
        rows = [s.figures for s in selections if s.config == config and s.figures]
        if not rows:
            continue
        names = ["pass@1", "pass@k", *(FIGURES[s] for s in strategies)]
        figures = {name: _figure([r[name] for r in rows], seed) for name in names}
        if "exec" in strategies and "simulate" in strategies:
            # Paired over the same tasks: the resamples draw the same tasks for both.
            figures[GAP] = _figure([r[FIGURES["exec"]] - r[FIGURES["simulate"]] for r in rows], seed)
        out.append(ConfigSummary(config=config, tasks=len(rows), figures=figures))
    return out


def select(config: SelectConfig, *, sandbox: Sandbox | None = None,
           notice: Callable[[str], None] | None = None) -> tuple[Path, SelectionRecord]:
    folder = open_run(config.run, config.runs_dir)
    manifest = folder.read_manifest()
    strategies = [s for s in STRATEGIES if s in config.by]
    units = _units(folder, config.candidates, "--k" if config.n is None else "--n", "exec" in strategies or "simulate" in strategies)
    judges = {c.name: _judge_for(config, c.model, c.api_base) for c in manifest.configs} if "simulate" in strategies else {}
    for unit in units:
        for strategy in ("shortest", "random"):
            if strategy in strategies:
                unit.selection.scores[strategy] = _plain_scores(unit, strategy)
    if "exec" in strategies or "simulate" in strategies:
        box = sandbox or make_sandbox(config.sandbox, notice=notice)

        def work(unit: _Unit, session: SandboxSession) -> None:
            if "exec" in strategies:
                unit.selection.scores["exec"] = _exec_scores(unit, session)
            if "simulate" in strategies:
                unit.selection.scores["simulate"] = _simulate_scores(unit, session, judges[unit.selection.config][1], config)

        work_in_sessions(box, units, work, workers=max(1, min(config.workers or os.cpu_count() or 1, len(units))), label="select")
    for unit in units:
        unit.selection.scores = {s: unit.selection.scores[s] for s in strategies}
        unit.selection.figures = task_figures(unit.selection, config.k)
    selections = [u.selection for u in units]
    if not any(s.figures for s in selections):
        raise BadInput(f"--k {config.k}: no task of run {manifest.run_id} has {config.k} tested answers "
                       f"among its first {config.candidates} trials")
    judge = sorted({model for model, _ in judges.values()})
    record = SelectionRecord(run_id=manifest.run_id, k=config.k, n=config.candidates, seed=config.seed,
                             strategies=list(strategies), judge_model=", ".join(judge) or None, attempts=config.attempts,
                             aggregate=config.aggregate, created=utc_now(), selections=selections,
                             summary=summarize(selections, list(strategies), config.seed))
    path = folder.root / selection_file(config.k, config.candidates)
    write_record(path, record)
    return path, record
