"""A trial as an executor hands it to a slot (TrialJob), how a slot runs it (`run_job`: in
the driver, or on another machine whose trial folder comes back), and the result of a trial
whose unit ended outside the trial itself (`ended_trial`, `lost_trial`)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from ..predict.ask import asker
from ..mutant_model import MutantModel
from ..gold import GoldModel
from ..agents.base import AgentProfile
from ..agents.registry import agent_host, prepare
from ..errors import InfraError, InfraKind
from ..executor import Host, Slot
from ..fs import read_files
from ..models import ModelSpec
from ..records import InfraFailure, TrialResult
from ..store import RunFolder, utc_now
from ..task import Task
from .plan import PlannedConfig, RunPlan
from .trial import ResumePoint, TrialSpec, finish_trial, run_trial


@dataclass(frozen=True)
class TrialJob:
    """One trial as an executor hands it to a slot: its spec, its folder on the driver's
    disk, where it continues from, with the folder's kept files for a slot on another
    machine, and how its agent is made there."""

    spec: TrialSpec
    trial_dir: Path
    resume: ResumePoint | None
    kept: dict[str, bytes]
    profile: AgentProfile
    builtin: ModelSpec | None         # gold or mutant: the slot's own host serves it
    drivers_log: Path                 # the agent's own processes' log (Aider's drivers), for a host in the driver
    limiter: Any = None               # the provider's rate limit, shared by every slot
    limiter_name: str | None = None


@dataclass(frozen=True)
class ShippedTrial:
    """A trial run on another machine: its folder's files (result.json among them) and result."""

    files: dict[str, bytes]
    result: TrialResult


def agent_ready(host: Host, profile: AgentProfile) -> None:
    prepare(profile)


def _builtin_base(host: Host, job: TrialJob, model: ModelSpec) -> str:
    """The endpoint of a trial of a built-in model (`model`, the job's), served by the slot's own host."""
    spec = job.spec
    names_from = job.profile.names_from(spec.kind.chat_files(spec.task))
    if model.kind == "gold":
        gold = host.keep("gold", lambda: GoldModel().start(), close=GoldModel.stop)
        key = gold.add(spec.suite, spec.task, spec.kind.gold_answer(spec.task), names_from)
        return gold.api_base(job.profile.edit_format, key)
    if model.share is None:
        raise InfraError(InfraKind.harness, f"the mutant model {model.name} has no share of wrong answers")
    mutant = host.keep("mutant", lambda: MutantModel().start(), close=MutantModel.stop)
    return mutant.add(spec.suite, spec.task, model.share, model.seed, spec.trial, spec.run_tasks, job.profile.edit_format,
                      names_from)


def run_job(job: TrialJob, slot: Slot) -> TrialResult | ShippedTrial:
    """A trial in a slot, with its host's sessions, agents (Aider's warm drivers) and gold
    server. A host in the driver writes the trial's folder; one elsewhere writes a folder of
    its own and sends its files back."""
    host = slot.host
    agents = host.keep(("agent", job.profile.content_hash, job.limiter_name),
                       lambda: agent_host(job.profile, job.drivers_log if host.in_driver else None, job.limiter),
                       stop=lambda agents: agents.kill_all())  # the agent's own (AgentHost.kill_all is the base's)
    spec = job.spec
    if job.builtin is not None:
        spec = replace(spec, api_base=_builtin_base(host, job, job.builtin))
    if host.in_driver:
        return run_trial(spec, job.trial_dir, host.sessions, agents, host.cancel, job.resume)
    with tempfile.TemporaryDirectory(prefix="harness-trial-") as tmp:
        trial_dir, resume = Path(tmp) / "trial", job.resume
        if resume is not None:
            RunFolder.write_files(trial_dir, job.kept)
            resume = replace(resume, workspace=trial_dir / resume.workspace.relative_to(job.trial_dir))
        result = run_trial(spec, trial_dir, host.sessions, agents, host.cancel, resume)
        return ShippedTrial(read_files(trial_dir), result)



def lost_trial(job: TrialJob, why: str, kind: InfraKind = InfraKind.node) -> TrialResult:
    """The result of a trial no slot could finish (its node died each time it was tried):
    an infrastructure error, rerun by --resume, keeping the rounds it was resumed with; or
    of one that never started, its task unreadable (kind suite)."""
    return ended_trial(job, InfraFailure(kind=kind.value, message=why))


def ended_trial(job: TrialJob, failure: InfraFailure) -> TrialResult:
    """The result of a trial whose unit ended in `failure` outside the trial itself."""
    spec, resume = job.spec, job.resume
    rounds = list(resume.rounds) if resume is not None else []
    if resume is not None:
        RunFolder.keep_rounds(job.trial_dir, len(rounds))
    else:
        RunFolder.fresh_trial_dir(job.trial_dir)
    started_at = resume.started_at if resume is not None else utc_now()
    return finish_trial(spec, job.trial_dir, rounds, started_at, failure)


def simulator(model: ModelSpec, plan: RunPlan) -> Callable:
    """The configuration's model asked directly (no agent) with the run's sampling and the
    profile's limits: a request's timeout, and backoff within the provider retry budget
    (three waits, doubling: 7 times the first)."""
    timeouts = plan.profile.timeouts
    return asker(model, temperature=plan.sampling.temperature, timeout_s=timeouts.request_s,
                 backoff_s=min(2.0, timeouts.provider_retry_s / 7))


def make_job(plan: RunPlan, folder: RunFolder, c: PlannedConfig, task: Task, k: int, resume: ResumePoint | None,
             limiters: dict, simulators: dict) -> TrialJob:
    trial_dir = folder.trial_dir(c.manifest.name, task.slug, k)
    spec = TrialSpec(run_id=plan.run_id, config=c.manifest.name, suite=plan.suite_name, task=task, trial=k,
                     rounds=plan.rounds, model=c.manifest.model, litellm_model=c.model.litellm_model,
                     api_base=c.model.api_base, api_key=c.model.api_key(), contract=c.contract,
                     sampling=plan.sampling, feedback=plan.feedback, simulator=simulators.get(c.manifest.name),
                     kind=plan.kind, run_tasks=tuple(t.slug for t in plan.tasks))
    name = paced_as(c.model) if paced_as(c.model) in limiters else None
    return TrialJob(spec=spec, trial_dir=trial_dir, resume=resume,
                    kept=RunFolder.kept_files(trial_dir, len(resume.rounds)) if resume is not None else {},
                    profile=plan.profile, builtin=c.model if c.model.builtin else None, drivers_log=folder.root / "drivers.log",
                    limiter=limiters.get(name), limiter_name=name)


def paced_as(model: ModelSpec) -> str | None:
    """Whose rate limit a model's requests count against: its server's, else its hosted
    provider's; gold and mutant, served by the harness itself, have none."""
    if model.builtin:
        return None
    return model.api_base or model.provider or model.litellm_model
