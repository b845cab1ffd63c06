"""`harness plan-trials`: how many trials per task detect a change of a given size, by
simulation from a baseline's per-task success rates."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from .. import stats
from ..errors import BadInput
from ..outcomes import Outcomes, pick_one
from .data import PlanResult, PowerPoint
from .document import Document, Table
from .sections import config_counts
from .writing import resolve_format, write


class PlanRequest(BaseModel):
    baseline: str
    effect: float
    round: Literal[1, 2] = 2
    alpha: float = Field(stats.ALPHA, gt=0, lt=1)
    power: float = Field(stats.POWER, gt=0, lt=1)
    simulations: int = Field(1000, ge=100)
    seed: int = stats.SEED
    max_trials: int = Field(256, ge=1)
    runs_dir: Path = Path("runs")
    format: str | None = None
    out: Path | None = None


def compute_plan(outcomes: Outcomes, config: str, request: PlanRequest) -> PlanResult:
    """How many trials per task detect a change of `effect` tasks with the asked power."""
    counts = stats.round_counts(config_counts(stats.task_counts(outcomes.frame), config), request.round)
    if counts.empty:
        raise BadInput(f"{config} has no counted outcome in round {request.round} to plan from")
    if request.effect == 0:
        raise BadInput("--effect 0: a change of zero tasks cannot be detected; give the change to detect")
    rates = (counts["c"] / counts["n"]).to_numpy()
    needed, points = stats.plan_trials(rates, request.effect, request.alpha, request.power, request.simulations,
                                       request.seed, request.max_trials)
    return PlanResult(baseline=config, tasks=len(rates), effect=request.effect, round=request.round,
                      alpha=request.alpha, power=request.power, trials_needed=needed,
                      points=[PowerPoint(**asdict(p)) for p in points])


def build_plan(outcomes: Outcomes, config: str, request: PlanRequest) -> Document:
    return render_plan(compute_plan(outcomes, config, request), request)


def render_plan(r: PlanResult, request: PlanRequest) -> Document:
    what = "in round 1" if r.round == 1 else "within two rounds"
    change = f"{'a gain' if r.effect > 0 else 'a loss'} of {abs(r.effect):g} tasks {what}"
    doc = Document("plan", f"Trials needed to detect {change}")
    if r.trials_needed is None:
        doc.lead.append(f"Even {request.max_trials} trials per task do not detect {change} over these "
                        f"{r.tasks} tasks with {r.power:.0%} power.")
    else:
        doc.lead.append(f"{r.trials_needed} trials per task (both configurations) detect {change} over these "
                        f"{r.tasks} tasks with {r.power:.0%} power at alpha {r.alpha:g}.")
    doc.warnings = [w for w in [stats.small_suite_warning(r.tasks)] if w]
    doc.notes.append(
        f"By simulation from {r.baseline}'s per-task success rates {what} ({request.simulations:,} simulated "
        f"comparisons per trial count, seed {request.seed}): both configurations run again with T trials per task, "
        "NEW's rates moved by the effect (a gain shared in proportion to each task's failure rate, a loss to its "
        "success rate); detected when the suite-level stratified exact test finds the change in its direction at "
        "alpha.")
    doc.tables.append(Table("Power by trials per task", ["trials per task", "power"],
                            [[str(p.trials), f"{100 * p.power:.1f}%"] for p in r.points]))
    doc.records = [p.model_dump(mode="json") for p in r.points]
    doc.data = r.model_dump(mode="json")
    return doc


def plan(request: PlanRequest, console) -> tuple[Document, Path | None]:
    fmt = resolve_format(request.format, request.out)
    part = pick_one(request.baseline, None, request.runs_dir)
    doc = build_plan(part, next(iter(part.configs)), request)
    return doc, write(doc, fmt, request.out, console)
