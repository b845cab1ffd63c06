"""One task, one trial, all rounds (`run_trial`): it owns a workspace, a sandbox session and
an agent chat, writes its folder (store.py) and returns its TrialResult; result.json comes
last, written by `finish_trial`, the one place a TrialResult is made. After a failed round
the test output is fed back (or, with `--feedback simulated`, the failures the model
predicts its own code has on the public tests: predict/feedback.py; with `--feedback
self-rlef`, the model's own decision to submit or fix: predict/rlef.py); `next_message` is
where they part. A trial whose infrastructure error came after round k was tested
continues from round k's workspace and conversation (`resume_point`)."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..predict import rlef
from ..predict.feedback import simulated_message
from ..agents.base import AgentChat, AgentHost
from ..contract import PromptContract
from ..errors import BadInput, InfraError, InfraKind, ProviderFailure
from ..fs import regular_files, write_record
from ..kinds import TrialKind
from ..kinds.repair import RepairKind
from ..records import (
    ChatState,
    FeedbackMode,
    InfraFailure,
    RoundRecord,
    RoundTimings,
    RoundTrajectory,
    Sampling,
    TrialOutcome,
    TrialResult,
)
from ..result_facts import rounds_recorded
from ..sandbox.pool import SessionLease, SessionPool
from ..store import HARNESS_ERROR_LOG, RESULT, RunFolder, utc_now
from ..task import Task
from ..staging import created_files


@dataclass(frozen=True)
class TrialSpec:
    """Everything one trial depends on."""

    run_id: str
    config: str
    suite: str
    task: Task
    trial: int
    rounds: int
    model: str              # the model as the run names it (manifest, results)
    litellm_model: str      # what the agent is given
    api_base: str | None
    api_key: str | None
    contract: PromptContract
    sampling: Sampling
    feedback: FeedbackMode = "real"
    simulator: Callable | None = None  # simulated feedback: the model's own completions (predict/ask.py)
    kind: TrialKind = field(default_factory=RepairKind)
    run_tasks: tuple[str, ...] = ()  # the run's task slugs: a scripted model's share is of them (mutant_model.py)


def _copy_tree(files: dict[str, Path], dest: Path) -> None:
    for rel, src in files.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)


def _write_tree(files: dict[str, bytes], dest: Path) -> None:
    for rel, data in files.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


@dataclass(frozen=True)
class ResumePoint:
    """Where a trial whose infrastructure error came after a tested round continues: the
    tested rounds it keeps, and the last one's workspace and conversation."""

    rounds: list[RoundRecord]
    workspace: Path
    chat: ChatState
    started_at: str


def resume_point(result: TrialResult | None, trial_dir: Path) -> ResumePoint | None:
    """None when the trial must be run from the start: no result, nothing tested before
    the error, or round k's snapshot or conversation missing from its folder."""
    if result is None or result.done:
        return None
    k = rounds_recorded(result)
    if k == 0:
        return None
    round_dir = trial_dir / f"round-{k}"
    try:
        trajectory = RoundTrajectory.model_validate_json((round_dir / "trajectory.json").read_bytes())
    except (OSError, ValueError):
        return None
    if trajectory.chat_after is None or not (round_dir / "workspace").is_dir():
        return None
    return ResumePoint(rounds=result.rounds[:k], workspace=round_dir / "workspace", chat=trajectory.chat_after,
                       started_at=result.started_at)


def next_message(spec: TrialSpec, record: RoundRecord, passed: bool, workspace: Path,
                 sandboxing: SessionLease, round_dir: Path) -> str | None:
    """The feedback seam: the message that starts the round after `record` (its code in
    `workspace`, its folder `round_dir`; `passed`: the round's judgement), or None when the
    trial stops there. Real feedback: the test output of a round that failed. Simulated: the
    failures the model predicts its code has on the public tests (predict/feedback.py),
    whatever the real tests said. Self-RLEF: the decision's message, whose answer submits
    or fixes the code (predict/rlef.py)."""
    if spec.feedback in rlef.SELF_RLEF:
        question = spec.contract.first_message(spec.task, spec.kind.chat_files(spec.task))
        return rlef.decide_message(spec.task, spec.feedback, question, spec.simulator, record, round_dir, sandboxing,
                                   workspace)
    if spec.feedback == "real":
        # A round that was judged has a report; only an interrupted one has none.
        if passed or record.test_report is None:
            return None
        return spec.contract.feedback_message(spec.task, record.test_report, spec.kind.chat_files(spec.task))
    if spec.simulator is None:
        raise InfraError(InfraKind.harness, "simulated feedback without the model that simulates it")
    return simulated_message(spec.task, spec.contract, spec.simulator, record, workspace, sandboxing)



def run_trial(spec: TrialSpec, trial_dir: Path, sessions: SessionPool, agents: AgentHost,
              cancel: threading.Event | None = None, resume: ResumePoint | None = None) -> TrialResult:
    """One task, one trial, all rounds, or with `resume` the rounds after those it keeps.
    Writes `trial_dir` (emptied first, but for the kept rounds) and returns the result it
    wrote last to result.json."""
    task, kind = spec.task, spec.kind
    if resume is None:
        started_at = utc_now()
        RunFolder.fresh_trial_dir(trial_dir)
        rounds: list[RoundRecord] = []
    else:
        started_at = resume.started_at
        RunFolder.keep_rounds(trial_dir, len(resume.rounds))
        rounds = list(resume.rounds)
    passed_round = next((r.round for r in rounds if r.test_report is not None and r.test_report.passed), None)
    passed = False  # the last round's judgement: the submitted answer's
    failure: InfraFailure | None = None
    workspace = Path(tempfile.mkdtemp(prefix=f"harness-ws-{task.slug}-"))
    sandboxing: SessionLease | None = None
    agent = agents.agent()
    label = f"{spec.run_id} {spec.config} {task.slug} trial-{spec.trial}"

    def stopping() -> None:
        if cancel is not None and cancel.is_set():
            raise InfraError(InfraKind.interrupted, "the run was stopped")

    try:
        _write_tree(kind.workspace(task), workspace)
        if resume is not None:
            _copy_tree(regular_files(resume.workspace), workspace)
        stopping()
        sandboxing = sessions.lease(label, task.language)
        edits = kind.chat_files(task)
        shown = edits + kind.read_only_files(task)
        agent.start(AgentChat(
            workspace=workspace, files=edits, read_only=kind.read_only_files(task),
            ignore=[f for f in task.shipped_files if f not in shown],
            model=spec.litellm_model, api_base=spec.api_base, api_key=spec.api_key, sampling=spec.sampling,
            system_text=spec.contract.system_text(task, edits),
            log_file=trial_dir / "agent.log", chat_file=trial_dir / "aider.chat.md",
            history=resume.chat if resume is not None else None,
            submit_marker=rlef.SUBMIT if spec.feedback in rlef.SELF_RLEF else None,
        ))
        message: str | None
        if resume is None:
            message = spec.contract.first_message(task, edits)
        else:
            last = rounds[-1].test_report  # the resume point is a tested round
            passed = last is not None and last.passed
            message = next_message(spec, rounds[-1], passed, workspace, sandboxing, trial_dir / f"round-{len(rounds)}")
        for n in range(len(rounds) + 1, spec.rounds + 1):
            if message is None:
                break
            stopping()
            t0 = time.monotonic()
            got = agent.send(message)
            if spec.feedback in rlef.SELF_RLEF and n > 1 and got.provider_error is None:
                rlef.decided(rounds[-1], got.submitted, got.calls[-1] if got.calls else None, trial_dir / f"round-{n - 1}")
                if got.submitted:  # the model stands by round n - 1's code
                    break
            round_dir = trial_dir / f"round-{n}"
            _copy_tree(regular_files(workspace), round_dir / "workspace")
            write_record(round_dir / "trajectory.json", RoundTrajectory(
                round=n, message=message, sent_at=got.sent_at, response=got.response, calls=got.calls,
                edited_files=got.edited_files, notes=got.notes, counters=got.counters,
                provider_error=got.provider_error, chat_after=got.chat,
            ))
            timings = RoundTimings(model_seconds=got.model_seconds, agent_seconds=got.agent_seconds,
                                   total_seconds=round(time.monotonic() - t0, 4))
            created = created_files(task, regular_files(workspace))
            if got.provider_error is not None:
                # The agent retried with backoff and gave up: the provider failed, not the model.
                rounds.append(RoundRecord(round=n, counters=got.counters, edited_files=got.edited_files,
                                          created_files=created, timings=timings))
                raise ProviderFailure(str(got.provider_error), got.provider_error.failed_calls)
            stopping()
            t1 = time.monotonic()
            judged = sandboxing.use(lambda session: kind.judge(
                task, workspace, session, transcript=spec.contract.wants_transcript,
                time_limit_s=agent.profile.tests.time_limit_s))
            report = judged.report
            timings.test_seconds = round(time.monotonic() - t1, 4)
            timings.total_seconds = round(time.monotonic() - t0, 4)
            write_record(round_dir / "test_report.json", report)
            for name, record in judged.records.items():
                write_record(round_dir / name, record)
            rounds.append(judged.facts.record(round=n, counters=got.counters, edited_files=got.edited_files,
                                              created_files=created, test_report=report, timings=timings))
            passed = judged.passed
            if passed and passed_round is None:
                passed_round = n
            if spec.feedback in rlef.SELF_RLEF:
                rlef.check_public(task, spec.feedback, rounds[-1], workspace, sandboxing)
            if n < spec.rounds:
                message = next_message(spec, rounds[-1], passed, workspace, sandboxing, round_dir)
    except InfraError as exc:
        infra = InfraKind.interrupted if cancel is not None and cancel.is_set() else exc.kind
        failure = InfraFailure(kind=infra.value, message=str(exc), attempts=exc.attempts)
    except Exception as exc:  # a harness bug must not pass for a model failure, nor stop the run
        (trial_dir / HARNESS_ERROR_LOG).write_text(traceback.format_exc())
        failure = InfraFailure(kind=InfraKind.harness.value, message=f"unexpected {type(exc).__name__}: {exc}")
    finally:
        agent.close()
        if sandboxing is not None:
            sandboxing.close()
        shutil.rmtree(workspace, ignore_errors=True)

    return finish_trial(spec, trial_dir, rounds, started_at, failure, passed, passed_round)


def finish_trial(spec: TrialSpec, trial_dir: Path, rounds: list[RoundRecord], started_at: str,
                 failure: InfraFailure | None, passed: bool = False, passed_round: int | None = None) -> TrialResult:
    """The trial's result, written last to its folder's result.json: an infrastructure error
    when it ended in `failure`, else the last round's judgement (`passed`), the answer
    submitted."""
    if failure is not None:
        outcome = TrialOutcome.infra_error
    else:  # the last round's answer is the one submitted
        outcome = TrialOutcome.passed if passed else TrialOutcome.failed
    tampered = sorted({f for r in rounds if r.test_report for f in r.test_report.tampered})
    result = TrialResult(
        run_id=spec.run_id, config=spec.config, task=spec.task.slug, trial=spec.trial, suite=spec.suite,
        task_hash=spec.task.content_hash, model=spec.model, outcome=outcome, passed_round=passed_round,
        rounds=rounds, infra_error=failure, tampered=tampered,
        submitted_round=len(rounds) if spec.feedback != "real" and failure is None else None,
        prompt_hash=_prompt_hash(spec),
        started_at=started_at, finished_at=utc_now(),
    )
    write_record(trial_dir / RESULT, result)
    return result


def _prompt_hash(spec: TrialSpec) -> str | None:
    """The contract's texts for the task; None when the task's documents cannot be read (an
    error being recorded must not raise another)."""
    try:
        return spec.contract.prompt_hash(spec.task, simulated=spec.feedback == "simulated",
                                         edits=spec.kind.chat_files(spec.task))
    except BadInput:
        return None
