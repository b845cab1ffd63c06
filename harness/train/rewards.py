"""Rewards for GRPO: each sampled completion is read as whole files in the agent's edit
format, laid over its repair task's starting files, and scored by a verifier. An answer
that cannot be read scores -1 and counts as malformed; everything else is the verifier's
reward in [-1, 1] with its status.

A verifier is anything with `verify_batch(candidates) -> judgements`, registered by name;
`cpp` is the sandbox verifier (harness.verify: build the candidate with the task's probe,
run the checks' calls in the sandbox, compare the values with the reference's in this
process) and `exact` a string-level one that rewards the task's reference files verbatim
(cheap, Docker-free; for smoke runs and tests of the training loop).

`VerifierReward` is the reward function TRL calls. Verification can start as soon as the
completions exist (`submit`, called by the trainer right after generation) and run in a
background thread while the trainer computes reference log-probabilities; the reward call
then only waits for what is left."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from ..editformat import choose_fence, parse_whole
from ..errors import BadInput
from ..records import Record
from ..task import Task, load_task
from .config import RuntimeSettings

MALFORMED = "malformed"


@dataclass(frozen=True)
class Candidate:
    task_path: str
    files: dict[str, str]


class Judgement(Record):
    reward: float
    status: str
    reason: str | None = None


class Verifier(Protocol):
    def verify_batch(self, candidates: Sequence[Candidate]) -> list[Judgement]: ...

    def close(self) -> None: ...


class _TaskCache:
    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}
        self._lock = threading.Lock()

    def __call__(self, path: str) -> Task:
        with self._lock:
            if path not in self._tasks:
                self._tasks[path] = load_task(Path(path))
            return self._tasks[path]


class SandboxVerifier:
    """The C++ verifier of harness.verify, one `verify_many` per task in the batch, each
    spread over the workers (candidates with the same header share a compiled test unit;
    the reference's values are observed once per task and cached)."""

    def __init__(self, runtime: RuntimeSettings):
        self.sandbox_kind = runtime.sandbox
        # Training processes on one machine share its cores (`accelerate launch` sets
        # LOCAL_WORLD_SIZE).
        self.workers = runtime.verify_workers or max(1, (os.cpu_count() or 1) // int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
        self.tasks = _TaskCache()
        self._box = None

    def _sandbox(self):
        if self._box is None:
            from ..sandbox import make_sandbox

            self._box = make_sandbox(self.sandbox_kind)
        return self._box

    def verify_batch(self, candidates: Sequence[Candidate]) -> list[Judgement]:
        from ..verify import verify_many

        out: list[Judgement | None] = [None] * len(candidates)
        by_task: dict[str, list[int]] = {}
        for i, c in enumerate(candidates):
            by_task.setdefault(c.task_path, []).append(i)
        for path, idx in by_task.items():
            files = [{k: v.encode() for k, v in candidates[i].files.items()} for i in idx]
            verdicts = verify_many(self.tasks(path), files, sandbox=self._sandbox(), workers=self.workers)
            for i, v in zip(idx, verdicts):
                out[i] = Judgement(reward=v.reward, status=v.status.value, reason=v.reason)
        return out  # type: ignore[return-value]  # every index belongs to one task group

    def close(self) -> None:
        self._box = None


class ExactVerifier:
    """+1 when every solution file equals the task's reference (trailing whitespace aside),
    else -1; a file the answer leaves out keeps its starting content."""

    def __init__(self, runtime: RuntimeSettings | None = None):
        self.tasks = _TaskCache()

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
_VERIFIERS: dict[str, VerifierFactory] = {"cpp": SandboxVerifier, "exact": ExactVerifier}


def register_verifier(name: str, factory: VerifierFactory) -> None:
    """Make `runtime.verifier = name` build a verifier with `factory(runtime)`."""
    _VERIFIERS[name] = factory


def make_verifier(runtime: RuntimeSettings) -> Verifier:
    factory = _VERIFIERS.get(runtime.verifier)
    if factory is None:
        raise BadInput(f"unknown verifier {runtime.verifier!r} (known: {', '.join(sorted(_VERIFIERS))})")
    return factory(runtime)


# --- the reward function ----------------------------------------------------------------


@dataclass
class BatchStats:
    """What one or more scored batches came to; merged per logged step."""

    rewards: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    malformed: int = 0
    verify_seconds: float = 0.0  # wall time of the verification itself
    wait_seconds: float = 0.0    # the part of it the trainer spent waiting

    def add(self, other: "BatchStats") -> None:
        self.rewards += other.rewards
        self.statuses.update(other.statuses)
        self.malformed += other.malformed
        self.verify_seconds += other.verify_seconds
        self.wait_seconds += other.wait_seconds

    @property
    def passed(self) -> int:
        return sum(r >= 1.0 for r in self.rewards)


def completion_text(completion: Any) -> str:
    """TRL hands conversational completions as a list of messages, plain ones as text."""
    if isinstance(completion, list):
        return "".join(str(m.get("content") or "") for m in completion if m.get("role") == "assistant")
    return str(completion)


@dataclass
class _Pending:
    texts: list[str]
    task_paths: list[str]
    future: Future
    submitted: float


class VerifierReward:
    """The reward function for GRPOTrainer (it reads the dataset's `task_path` column)."""

    __name__ = "verifier"

    def __init__(self, verifier: Verifier):
        self.verifier = verifier
        self.tasks = _TaskCache()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="verify")
        self._pending: _Pending | None = None
        self._stats = BatchStats()
        self._lock = threading.Lock()

    def _judge(self, texts: list[str], task_paths: list[str]) -> tuple[list[Judgement], float]:
        started = time.perf_counter()
        judgements: list[Judgement | None] = [None] * len(texts)
        todo: list[tuple[int, Candidate]] = []
        for i, (text, path) in enumerate(zip(texts, task_paths, strict=True)):
            task = self.tasks(path)
            # Aider picks its fence from what the chat files hold when the answer is asked for.
            fence = choose_fence(data.decode(errors="replace") for data in task.stub_files().values())
            parsed = parse_whole(text, task.solution_files, fence)
            if parsed.ok:
                todo.append((i, Candidate(path, parsed.files)))
            else:
                judgements[i] = Judgement(reward=-1.0, status=MALFORMED, reason=parsed.malformed)
        if todo:
            for (i, _), j in zip(todo, self.verifier.verify_batch([c for _, c in todo]), strict=True):
                judgements[i] = j
        return judgements, time.perf_counter() - started  # type: ignore[return-value]

    def submit(self, completions: Sequence[Any], task_paths: Sequence[str]) -> None:
        """Start verifying these completions in the background."""
        texts = [completion_text(c) for c in completions]
        paths = list(task_paths)
        self._pending = _Pending(texts, paths, self._pool.submit(self._judge, texts, paths), time.perf_counter())

    def __call__(self, prompts, completions, task_path, log_metric=None, **_: Any) -> list[float]:
        texts = [completion_text(c) for c in completions]
        pending, self._pending = self._pending, None
        waited = time.perf_counter()
        if pending is not None and pending.texts == texts and pending.task_paths == list(task_path):
            judgements, seconds = pending.future.result()
        else:  # nobody submitted these (a plain GRPOTrainer): verify now
            judgements, seconds = self._judge(texts, list(task_path))
        batch = BatchStats(
            rewards=[j.reward for j in judgements],
            statuses=Counter(j.status for j in judgements),
            malformed=sum(j.status == MALFORMED for j in judgements),
            verify_seconds=seconds,
            wait_seconds=time.perf_counter() - waited,
        )
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
        self.verifier.close()
