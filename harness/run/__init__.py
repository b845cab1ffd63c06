"""`harness run`: every configuration (a model, with the run's agent profile and prompt
contract) on every task, once per trial, each trial through up to `rounds` rounds of
agent then tests, the test output fed back after a failed round (or, with `--feedback
simulated`, the failures the model predicts its own code has on the public tests).

`run` plans (plan.py: everything checkable is checked before any work), writes the
manifest, hands the trials that are not done to an executor (harness/executor: worker
threads here, or slots on a Ray cluster's nodes, whose trial folders come back to be
written here; jobs.py), shows progress and returns the summary (summary.py). One trial,
all its rounds: trial.py. A trial that ends in an infrastructure error is not done:
`--resume` reruns it, and only it (one a bug of the harness ended only with
--retry-harness-errors); when the error came after round k was tested, only rounds k + 1
on, from round k's workspace and conversation, so no recorded outcome is lost."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from .. import __version__
from ..errors import InfraKind
from ..executor import SandboxFacts, make_executor
from ..executor.base import BAD_INPUT, UnitFailure
from ..fs import check_writable, write_record
from ..predict.rlef import simulates
from ..records import RunManifest, TrialResult
from ..store import CONTRACT_FILE, PROFILE_FILE, RunFolder, config_contract_file, utc_now
from .config import RunConfig
from .jobs import ShippedTrial, TrialJob, agent_ready, ended_trial, lost_trial, make_job, paced_as, run_job, simulator
from .plan import RunPlan, make_plan
from .summary import RunSummary, import_summary_stack, summarize_run
from .trial import resume_point

Log = Callable[[str], None]


def _manifest(plan: RunPlan, config: RunConfig, facts: SandboxFacts) -> RunManifest:
    created = utc_now()
    # The registration goes into the manifest's first write, which comes before any trial starts.
    registration = plan.registration and plan.registration.model_copy(update={"recorded_at": created})
    return RunManifest(
        run_id=plan.run_id, created_at=created, command_line=config.command_line, harness_version=__version__,
        suite=plan.suite_name, suite_version=plan.suite_version, suite_hash=plan.suite_hash,
        suite_path=str(plan.suite_path), task_hashes={t.slug: t.content_hash for t in plan.tasks}, tasks=[t.slug for t in plan.tasks],
        trials=plan.trials, rounds=plan.rounds, image=facts.image, image_digest=facts.image_digest,
        sandbox=f"{facts.backend}: {facts.isolation}", configs=[c.manifest for c in plan.configs],
        kind=plan.kind.name, tests=plan.kind.settings, unseen_tasks=plan.unseen_tasks, written=plan.written,
        preregistered=registration,
    )


def _runs_again(result: TrialResult | None, config: RunConfig) -> bool:
    return result is None or result.rerun_on_resume(config.retry_harness_errors)


def _step(progress, text: str, checking: bool = False) -> None:
    """Tell `progress` what is being prepared; `checking`: a step that may still find bad input."""
    if progress is not None and hasattr(progress, "step"):
        progress.step(text, checking)


def run(config: RunConfig, log: Log | None = None, progress=None) -> RunSummary:
    """Plan, then run every trial that is not done, on the configured executor. `progress`
    (see cli/run.py) is told what is being prepared, then the plan and each finished trial;
    `log` gets one-line notices. A dry run makes every check a run makes (the models, the
    run folder and its lock, the sandbox and executor) and runs nothing; a resume with
    nothing to run writes nothing."""
    try:
        return _run(config, log or (lambda m: None), progress)
    finally:
        if progress is not None:
            progress.end()


def _run(config: RunConfig, log: Log, progress) -> RunSummary:
    _step(progress, "checking the suite and the models", checking=True)
    plan = make_plan(config)
    check_writable(Path(config.runs_dir), "--runs-dir")
    keys = plan.trial_keys()
    lock = None
    if plan.resume:
        folder = RunFolder.open(config.runs_dir, plan.run_id)
        lock = folder.lock()
    else:
        RunFolder.check_new(config.runs_dir, plan.run_id)
        folder = RunFolder(Path(config.runs_dir) / plan.run_id)
    try:
        todo, kept, unreadable = [], [], []
        for c, t, k in keys:
            result = folder.read_result(c.manifest.name, t.slug, k) if plan.resume else None
            if not _runs_again(result, config):
                kept.append(result)
            elif t.slug in plan.unreadable:
                unreadable.append((c, t, k))
            else:
                todo.append((c, t, k, resume_point(result, folder.trial_dir(c.manifest.name, t.slug, k))))
        if plan.resume and not todo and not unreadable and not config.dry_run:
            summary = RunSummary(run_id=plan.run_id, run_dir=folder.root, planned=len(keys), skipped=len(kept))
            summary.configs = summarize_run(folder.root)
            return summary
        _step(progress, "starting the sandbox", checking=True)
        executor = make_executor(config.executor, sandbox=config.sandbox, workers=config.workers,
                                 most=max(1, len(todo)), notice=log)
        try:
            if config.dry_run:
                return RunSummary(
                    run_id=plan.run_id, run_dir=folder.root, planned=len(keys), skipped=len(kept), dry_run=True,
                    plan=[f"{c.manifest.name} {t.slug} trial-{k}" for c, t, k, _ in todo]
                    + [f"{c.manifest.name} {t.slug} trial-{k} (a suite error: {plan.unreadable[t.slug]})"
                       for c, t, k in unreadable],
                )
            summary = _run_trials(config, plan, folder, keys, todo, kept, unreadable, executor, log, progress)
        finally:
            executor.close()
    finally:
        if lock is not None:
            lock.release()
    return summary


def _run_trials(config: RunConfig, plan: RunPlan, folder: RunFolder, keys: list, todo: list, kept: list,
                unreadable: list, executor, log: Log, progress) -> RunSummary:
    lock = None
    try:
        if todo:
            # The agent's environment on every host now (Aider's, once per version), before any folder exists.
            _step(progress, f"getting the {plan.profile.agent} agent ready")
            executor.each_host(agent_ready, plan.profile)
        if plan.resume:
            manifest = folder.read_manifest()
        else:
            folder = RunFolder.create(config.runs_dir, plan.run_id)
            lock = folder.lock()
            # The images of the suite's languages, built here on their first use.
            languages = [t.language for t in plan.tasks if t.language is not None]
            manifest = _manifest(plan, config, executor.facts_for(languages))
            write_record(folder.root / PROFILE_FILE, plan.profile)
            write_record(folder.root / CONTRACT_FILE, plan.contract)
            for c in plan.configs:
                if c.contract is not plan.contract:
                    write_record(folder.root / config_contract_file(c.manifest.name), c.contract)
        manifest.executor, manifest.workers = executor.name, executor.slots
        folder.write_manifest(manifest)

        summary = RunSummary(run_id=plan.run_id, run_dir=folder.root, planned=len(keys), skipped=len(kept))
        if progress is not None:
            progress.begin(plan, total=len(keys), done=kept)
        limiters = {}
        if config.requests_per_minute is not None:
            for name in {paced_as(c.model) for c in plan.configs} - {None}:
                limiters[name] = executor.limiter(name, config.requests_per_minute)
        simulators = {c.manifest.name: simulator(c.model, plan) for c in plan.configs if simulates(plan.feedback)}
        jobs = [make_job(plan, folder, c, task, k, resume, limiters, simulators) for c, task, k, resume in todo]
        warming: list[threading.Thread] = []

        def finished(job: TrialJob, got: TrialResult | ShippedTrial) -> None:
            if isinstance(got, ShippedTrial):
                RunFolder.write_trial(job.trial_dir, got.files, len(job.resume.rounds) if job.resume else 0)
                got = got.result
            summary.ran += 1
            if progress is not None:
                progress.advance(got)
            if not warming and len(jobs) - summary.ran < executor.slots:
                # A slot is idle until the run ends: the summary's imports (about a second
                # of pandas) take its core now instead of the end of the run. Not a daemon:
                # a daemon thread stopped at exit while it holds an import lock deadlocks
                # the interpreter's last imports (seen after an interrupt under Ray).
                warming.append(threading.Thread(target=import_summary_stack, name="summary-imports"))
                warming[0].start()

        def lost(job: TrialJob, why: str) -> None:
            spec = job.spec
            log(f"{spec.config} {spec.task.slug} trial-{spec.trial}: {why}; recorded as an infrastructure error")
            finished(job, lost_trial(job, why))

        for slug in dict.fromkeys(t.slug for _, t, _ in unreadable):
            log(f"task {slug} is recorded as a suite error in every trial, the run goes on: {plan.unreadable[slug]}")
        for c, task, k in unreadable:
            job = make_job(plan, folder, c, task, k, None, limiters, simulators)
            summary.ran += 1
            got = lost_trial(job, plan.unreadable[task.slug], InfraKind.suite)
            if progress is not None:
                progress.advance(got)

        bad: list[BaseException] = []

        def failed(job: TrialJob, failure: UnitFailure) -> None:
            if failure.record.kind == BAD_INPUT:
                bad.append(failure.error)  # about the run, not the trial: said once every trial has ended
                return
            spec = job.spec
            log(f"{spec.config} {spec.task.slug} trial-{spec.trial}: {failure.record.message}; recorded as an "
                "infrastructure error")
            finished(job, ended_trial(job, failure.record))

        try:
            executor.run(jobs, run_job, label=plan.run_id, on_result=finished, on_lost=lost, on_failure=failed)
            if bad:
                raise bad[0]
        except KeyboardInterrupt:
            # The executor stopped handing out trials and ended the agents' waits; trials in
            # flight finished their step and closed their sandboxes.
            log(f"stopping: finished trials are kept; continue with `harness run --resume {plan.run_id}"
                + (f" --runs-dir {config.runs_dir}`" if Path(config.runs_dir) != Path("runs") else "`"))
            raise
        manifest.finished_at = utc_now()
        folder.write_manifest(manifest)
        summary.configs = summarize_run(folder.root)
    finally:
        if lock is not None:
            lock.release()
    return summary
