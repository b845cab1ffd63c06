"""Rewards for GRPO, one judge per environment; every completion is judged by its prompt's.

- repair: the completion is read as whole files in the agent's edit format, laid over its
  repair task's starting files, and scored by a verifier (`sandbox`: on this machine's
  cores or a Ray cluster's nodes, runtime.executor). An answer that cannot be read, or that
  names a file the task does not let it write (file_names.py: outside the workspace, a
  link, a test or build file), scores -1 and counts as malformed; everything else is the verifier's reward in [-1, 1]
  with its status.
- predict: the completion is an output prediction, scored in this process by the exact-match
  rule (harness.predict.score): +1 right, -1 wrong or malformed.
- tests: the completion is a test file for a suite task, read as whole files like a repair
  answer and scored against the task's correct solution and its broken copies
  (harness.testwriting): validity x kill rate in [0, 1] (an invalid suite, one that
  cannot be read, or one that embeds the reference, testwriting/embedding.py, earns 0).

A verifier is anything with `verify_batch(candidates) -> judgements`, registered by name;
`sandbox` is the verifier of harness.verify, for a task of any language it has (C++: build
the candidate with the task's probe, run the checks' calls in the sandbox; Python: the same
calls through the proxy, or the task's own test cases; then compare the values with the
reference's in this process; `cpp`, its name before Python, names it too) and `exact` a
string-level one that rewards the task's reference files verbatim
(cheap, Docker-free; for smoke runs and tests of the training loop).

`GrpoReward` is the reward function TRL calls; it reads the dataset's `environment` and
`target` columns (the repair task's folder, or what a prediction is compared against).
Judging can start as soon as the completions exist (`submit`, called by the trainer right
after generation) and run in a background thread while the trainer computes reference
log-probabilities; the reward call then only waits for what is left."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

from ..agents.editformat import ParsedAnswer, choose_fence, parse_whole
from ..errors import BadInput
from ..executor import ExecutorSettings, make_executor
from ..executor.base import UnitFailure
from ..predict.score import score
from ..probe.compare import Comparison
from ..records import Record, TestWritingSettings
from ..sandbox import make_sandbox
from ..sandbox.base import Sandbox
from ..task import Task, load_task
from ..testwriting.score import SuiteToScore, score_suites
from ..testwriting.written import skeleton, with_written_tests
from ..verify import verify_batch
from .config import RuntimeSettings

MALFORMED = "malformed"
ERROR = "error"  # the harness could not judge it; the environment's lowest reward, reason recorded
EMBEDS_REFERENCE = "embeds_reference"  # a written suite holding a copy of the reference: no reward


@dataclass(frozen=True)
class Candidate:
    task_path: str
    files: dict[str, str]


class Judgement(Record):
    reward: float
    status: str
    reason: str | None = None
    turns: int | None = None  # the answers of a multi-turn exchange (multiturn.py)


class Verifier(Protocol):
    def verify_batch(self, candidates: Sequence[Candidate]) -> list[Judgement]: ...

    def close(self) -> None: ...


class TaskCache:
    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}
        self._lock = threading.Lock()

    def __call__(self, path: str) -> Task:
        with self._lock:
            if path not in self._tasks:
                self._tasks[path] = load_task(Path(path))
            return self._tasks[path]


class SandboxVerifier:
    """The verifier of harness.verify, any task's language: each batch, every task's candidates at once, goes
    to the executor's slots in units (candidates of a task with the same header share a
    compiled test unit), verdicts coming back as units end; the slots and their sessions,
    and the reference's values, are kept from one batch to the next."""

    def __init__(self, runtime: RuntimeSettings):
        self.runtime = runtime
        self.tasks = TaskCache()
        self._executor = None

    def _slots(self):
        if self._executor is None:
            settings = self.runtime.executor or ExecutorSettings.from_env()
            # Training processes share a cluster's slots (WORLD_SIZE of them in all).
            if settings.kind == "local":
                workers, share = sandbox_workers(self.runtime), 1
            else:
                workers, share = self.runtime.verify_workers, int(os.environ.get("WORLD_SIZE", "1"))
            self._executor = make_executor(settings, sandbox=self.runtime.sandbox, workers=workers, share=share)
        return self._executor

    def verify_batch(self, candidates: Sequence[Candidate]) -> list[Judgement]:
        items = [(self.tasks(c.task_path), {k: v.encode() for k, v in c.files.items()}) for c in candidates]
        return [Judgement(reward=v.reward, status=v.status.value, reason=v.reason)
                for v in verify_batch(items, sandbox=self._slots())]

    def close(self) -> None:
        if self._executor is not None:
            self._executor.close()
            self._executor = None


class ExactVerifier:
    """+1 when every solution file equals the task's reference (trailing whitespace aside),
    else -1; a file the answer leaves out keeps its starting content."""

    def __init__(self, runtime: RuntimeSettings | None = None):
        self.tasks = TaskCache()

    def verify_batch(self, candidates: Sequence[Candidate]) -> list[Judgement]:
        out = []
        for c in candidates:
            task = self.tasks(c.task_path)
            start = {k: v.decode() for k, v in task.stub_files().items()}
            wrong = [f for f, ref in task.reference_files().items()
                     if c.files.get(f, start.get(f, "")).rstrip() != ref.decode().rstrip()]
            out.append(Judgement(reward=-1.0 if wrong else 1.0, status="ok",
                                 reason=f"differs from the reference in {wrong[0]}" if wrong else None))
        return out

    def close(self) -> None:
        pass


VerifierFactory = Callable[[RuntimeSettings], Verifier]
# "cpp" is the sandbox verifier's name from before it judged Python: configs that say it keep working.
_VERIFIERS: dict[str, VerifierFactory] = {"sandbox": SandboxVerifier, "cpp": SandboxVerifier, "exact": ExactVerifier}


def register_verifier(name: str, factory: VerifierFactory) -> None:
    """Make `runtime.verifier = name` build a verifier with `factory(runtime)`."""
    _VERIFIERS[name] = factory


def make_verifier(runtime: RuntimeSettings) -> Verifier:
    factory = _VERIFIERS.get(runtime.verifier)
    if factory is None:
        raise BadInput(f"unknown verifier {runtime.verifier!r} (known: {', '.join(sorted(_VERIFIERS))})")
    return factory(runtime)


# --- judging each environment's completions ------------------------------------------------


class Judge(Protocol):
    """Scores completions of one environment; `targets` are the rows' `target` column.
    `lowest` is the least reward it gives (what a completion it could not judge gets)."""

    lowest: float

    def judge(self, texts: list[str], targets: list[str]) -> list[Judgement]: ...

    def close(self) -> None: ...


def read_answer(task: Task, text: str) -> ParsedAnswer:
    """A repair answer read as Aider's whole-file coder reads it, file names checked."""
    # Aider picks its fence from what the chat files hold when the answer is asked for.
    fence = choose_fence(data.decode(errors="replace") for data in task.stub_files().values())
    return parse_whole(text, task.solution_files, fence, allowed=task.may_write)


class RepairJudge:
    """Whole files laid over the repair task (the target is its folder), then the verifier."""

    lowest = -1.0

    def __init__(self, verifier: Verifier):
        self.verifier = verifier
        self.tasks = TaskCache()

    def read(self, path: str, text: str) -> tuple[dict[str, str] | None, str | None]:
        """The files an answer gives the repair task at `path`, or why it gives none."""
        parsed = read_answer(self.tasks(path), text)
        return (parsed.files, None) if parsed.ok else (None, parsed.malformed)

    def facts(self, text: str) -> dict[str, Any]:
        """What a judgement of `text` records besides the verdict."""
        return {}

    def judge(self, texts: list[str], targets: list[str]) -> list[Judgement]:
        judgements: list[Judgement | None] = [None] * len(texts)
        todo: list[tuple[int, Candidate]] = []
        for i, (text, path) in enumerate(zip(texts, targets, strict=True)):
            files, malformed = self.read(path, text)
            if files is not None:
                todo.append((i, Candidate(path, files)))
            else:
                judgements[i] = Judgement(reward=-1.0, status=MALFORMED, reason=malformed, **self.facts(text))
        if todo:
            for (i, _), j in zip(todo, self.verifier.verify_batch([c for _, c in todo]), strict=True):
                facts = self.facts(texts[i])
                judgements[i] = j.model_copy(update=facts) if facts else j
        return judgements  # type: ignore[return-value]  # every index is judged above

    def close(self) -> None:
        self.verifier.close()


class PredictTarget(Record):
    """What an output prediction is compared against: the row's `target`, as JSON."""

    call: str
    expected: dict[str, Any]
    compare: Comparison


class PredictJudge:
    """The exact-match rule; statuses say right, wrong or malformed."""

    lowest = -1.0

    def judge(self, texts: list[str], targets: list[str]) -> list[Judgement]:
        out = []
        for text, raw in zip(texts, targets, strict=True):
            target = PredictTarget.model_validate_json(raw)
            s = score(text, target.call, target.expected, target.compare)
            status = MALFORMED if s.malformed else "right" if s.correct else "wrong"
            out.append(Judgement(reward=s.reward, status=status,
                                 reason="not in the answer format" if s.malformed else None))
        return out

    def close(self) -> None:
        pass


class TestsTarget(Record):
    """What a written suite is scored for: the row's `target`, as JSON."""

    task_path: str
    tests: TestWritingSettings


def sandbox_workers(runtime: RuntimeSettings) -> int:
    # Training processes on one machine share its cores (`accelerate launch` sets LOCAL_WORLD_SIZE).
    return runtime.verify_workers or max(1, (os.cpu_count() or 1) // int(os.environ.get("LOCAL_WORLD_SIZE", "1")))


class TestsJudge:
    """Whole files read for the task's test file, scored by harness.testwriting in the
    sandbox (warm sessions, each task's targets found once and cached); the reward is
    validity x kill rate, with the status valid, invalid, embeds_reference (reward 0) or malformed."""

    __test__ = False
    lowest = 0.0

    def __init__(self, runtime: RuntimeSettings):
        self.runtime = runtime
        self.workers = sandbox_workers(runtime)
        self.tasks = TaskCache()
        self._box: Sandbox | None = None

    def _sandbox(self) -> Sandbox:
        """Made for the first suite to score, then kept."""
        if self._box is None:
            self._box = make_sandbox(self.runtime.sandbox)
        return self._box

    def judge(self, texts: list[str], targets: list[str]) -> list[Judgement]:
        judgements: list[Judgement | None] = [None] * len(texts)
        todo: dict[str, list[tuple[int, SuiteToScore]]] = {}
        for i, (text, raw) in enumerate(zip(texts, targets, strict=True)):
            target = TestsTarget.model_validate_json(raw)
            task = self.tasks(target.task_path)
            test_file = with_written_tests(task, b"").test_file
            # The chat's files as a test-writing trial starts: what Aider picks its fence by.
            shown = [skeleton(task), *task.reference_files().values()]
            parsed = parse_whole(text, (test_file,), choose_fence(data.decode(errors="replace") for data in shown),
                                 allowed=(test_file,))
            if not parsed.ok or test_file not in parsed.files:
                judgements[i] = Judgement(reward=0.0, status=MALFORMED, reason=parsed.malformed or "no test file")
                continue
            unit = SuiteToScore(task, parsed.files[test_file].encode(), fill=target.tests.fill)
            todo.setdefault(target.tests.model_dump_json(), []).append((i, unit))
        for settings, group in todo.items():
            tests = TestWritingSettings.model_validate_json(settings)
            failures: dict[int, str] = {}
            scored = score_suites(self._sandbox(), [u for _, u in group], workers=self.workers,
                                  mutant_cap=tests.mutant_cap, mutant_seed=tests.mutant_seed,
                                  on_failure=lambda n, failure: failures.__setitem__(n, failure.record.message))
            for n, ((i, _), s) in enumerate(zip(group, scored, strict=True)):
                if s is None:  # the harness could not score it: the least the environment gives
                    judgements[i] = Judgement(reward=self.lowest, status=ERROR, reason=failures[n])
                elif s.embeds_reference:  # scored, but a copy of the reference is never rewarded
                    judgements[i] = Judgement(reward=self.lowest, status=EMBEDS_REFERENCE,
                                              reason=f"holds {s.reference_similarity:.0%} of a reference function body")
                else:
                    judgements[i] = Judgement(reward=float(s.valid) * (s.kill_rate or 0.0),
                                              status="valid" if s.valid else "invalid", reason=s.why_invalid)
        return judgements  # type: ignore[return-value]  # every index is judged above

    def close(self) -> None:
        self._box = None


# --- the reward function ----------------------------------------------------------------


@dataclass(frozen=True)
class Scoring:
    environment: str
    reward: float        # the judge's
    status: str
    scale: float = 1.0   # the environment's reward scale: GRPO is given reward x scale
    turns: int | None = None


@dataclass
class BatchStats:
    """What one or more scored batches came to; merged per logged step."""

    scored: list[Scoring] = field(default_factory=list)
    verify_seconds: float = 0.0  # wall time of the judging itself
    wait_seconds: float = 0.0    # the part of it the trainer spent waiting

    def add(self, other: "BatchStats") -> None:
        self.scored += other.scored
        self.verify_seconds += other.verify_seconds
        self.wait_seconds += other.wait_seconds

    @property
    def rewards(self) -> list[float]:
        """What GRPO was given: each judge's reward times its environment's scale."""
        return [s.reward * s.scale for s in self.scored]

    @property
    def statuses(self) -> Counter:
        return Counter(s.status for s in self.scored)

    @property
    def malformed(self) -> int:
        return sum(s.status == MALFORMED for s in self.scored)

    @property
    def second_turns(self) -> int | None:
        """Exchanges that went on to a second answer; None where no completion is an exchange."""
        turns = [s.turns for s in self.scored if s.turns is not None]
        return sum(t > 1 for t in turns) if turns else None

    @property
    def passed(self) -> int:
        return sum(s.reward >= 1.0 for s in self.scored)

    def environments(self) -> list[str]:
        return sorted({s.environment for s in self.scored})

    def only(self, environment: str) -> "BatchStats":
        """One environment's completions (the seconds are the batch's, shared)."""
        return BatchStats([s for s in self.scored if s.environment == environment])


def completion_text(completion: Any) -> str:
    """TRL hands conversational completions as a list of messages, plain ones as text."""
    if isinstance(completion, list):
        return "".join(str(m.get("content") or "") for m in completion if m.get("role") == "assistant")
    return str(completion)


@dataclass
class _Pending:
    texts: list[str]
    environments: list[str]
    targets: list[str]
    future: Future


class GrpoReward:
    """The reward function for GRPOTrainer: each completion judged by its environment's
    judge, its reward multiplied by the environment's scale (statuses and pass counts are
    the judge's own)."""

    __name__ = "reward"

    def __init__(self, judges: Mapping[str, Judge], scales: Mapping[str, float] | None = None):
        self.judges = dict(judges)
        self.scales = dict(scales or {})  # by environment; 1 where none is given
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge")
        self._pending: _Pending | None = None
        self._stats = BatchStats()
        self._lock = threading.Lock()

    def _judge(self, texts: list[str], environments: list[str], targets: list[str]) -> tuple[list[Judgement], float]:
        started = time.perf_counter()
        judgements: list[Judgement | None] = [None] * len(texts)
        by_env: dict[str, list[int]] = {}
        for i, env in enumerate(environments):
            by_env.setdefault(env, []).append(i)
        for env, idx in by_env.items():
            judge = self.judges[env]
            try:
                judged = judge.judge([texts[i] for i in idx], [targets[i] for i in idx])
            except Exception as exc:  # noqa: BLE001  a judge's failure is its completions' result, not the step's end
                why = UnitFailure.of(exc).record.message
                judged = [Judgement(reward=judge.lowest, status=ERROR, reason=why) for _ in idx]
            for i, j in zip(idx, judged, strict=True):
                judgements[i] = j
        return judgements, time.perf_counter() - started  # type: ignore[return-value]

    def submit(self, completions: Sequence[Any], environments: Sequence[str], targets: Sequence[str]) -> None:
        """Start judging these completions in the background."""
        texts, envs, tgts = [completion_text(c) for c in completions], list(environments), list(targets)
        self._pending = _Pending(texts, envs, tgts, self._pool.submit(self._judge, texts, envs, tgts))

    def __call__(self, prompts, completions, environment, target, log_metric=None, **_: Any) -> list[float]:
        texts, envs, tgts = [completion_text(c) for c in completions], list(environment), list(target)
        pending, self._pending = self._pending, None
        waited = time.perf_counter()
        if pending is not None and (pending.texts, pending.environments, pending.targets) == (texts, envs, tgts):
            judgements, seconds = pending.future.result()
        else:  # nobody submitted these (a plain GRPOTrainer): judge now
            judgements, seconds = self._judge(texts, envs, tgts)
        batch = BatchStats([Scoring(e, j.reward, j.status, self.scales.get(e, 1.0), j.turns)
                            for e, j in zip(envs, judgements, strict=True)],
                           verify_seconds=seconds, wait_seconds=time.perf_counter() - waited)
        with self._lock:
            self._stats.add(batch)
        if log_metric is not None:
            n = len(judgements)
            log_metric("pass_rate", batch.passed / n)
            log_metric("malformed_rate", batch.malformed / n)
        return batch.rewards

    def take_stats(self) -> BatchStats:
        """Everything scored since the last call."""
        with self._lock:
            stats, self._stats = self._stats, BatchStats()
        return stats

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        for judge in self.judges.values():
            judge.close()
