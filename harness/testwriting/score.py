"""Scoring a written test suite for a task, in any language (the language's side:
Language.suite_runs, suite_refusals, suite_shape, evaluated_assertions).

- Against the correct solution (the task's reference): the suite is *valid* when it
  compiles and every assertion holds; its *assertion accuracy* is the share of its
  assertions that hold there.
- Against the task's targets (targets.py): its *kill rate* is the share of the broken
  solutions on which at least one assertion fails, counted only for a valid suite (an
  invalid one fails on everything, which shows nothing).
- The reference runs at a place among the targets drawn for each suite from a seed the
  harness draws (secrets; recorded as `order_seed`, `reference_position`): a suite cannot
  tell the reference from a broken copy by being the first program to run.
- A suite that holds a copy of one of the reference's function bodies (embedding.py) is
  scored, and marked `embeds_reference`.
- A suite the language refuses to run (Language.suite_refusals: what could read the
  solution's text or the runner's verdict instead of stating behaviour) runs nowhere and is
  invalid, the rule said; so is one in which no assertion ran on the correct solution: it
  states nothing.
- Where the language evaluates every assertion on its own (Python), assertion accuracy
  counts each, not only those up to a test's first failure; the suite's shape (tests,
  assertions and their mix, length) is read from its text.

Everything runs in one warm session per worker, with the task's test file swapped for the
written one (written.py), through the language's SuiteRuns: C++'s keeps the written test
unit compiled and each target's solution unit compiled once per session, then reused by
every later suite (languages/cpp/objects.py): so a target costs a link and a run."""

from __future__ import annotations

import random
import secrets
import threading
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Callable, Literal, Sequence

from ..errors import BadInput
from ..executor.base import UnitFailure
from ..records import AssertionCount, Record, Status, SuiteShape, TestReport
from ..sandbox.base import Sandbox, SandboxSession
from ..suite_validation import (CandidateResult, RunKind, candidate_result, control_fails, why_not,
                                work_on_tasks)
from ..suite import find_suite
from ..task import Task, load_task
from ..languages.language import SuiteRuns
from ..languages.registry import language_for
from .fill import FillReport, fill_placeholders
from .embedding import embeds_reference, reference_similarity
from .targets import Target, TargetKind, TargetSet, find_targets
from .written import suite_hash, test_file, with_written_tests

# A written suite runs known programs (the reference and its broken copies) whose tests
# should end within seconds: a hang must not cost the sandbox's minute per target.
RUN_TIMEOUT_S = 20.0


class TargetOutcome(str, Enum):
    killed = "killed"              # an assertion failed (or the binary crashed) on it
    survived = "survived"          # every assertion held
    timed_out = "timed out"        # the run hung: no assertion said anything
    not_compiled = "not compiled"  # with this suite (a header mutant can break its unit)


class TargetResult(Record):
    kind: TargetKind
    name: str
    outcome: TargetOutcome
    failed: list[str] = []  # the first failing test cases
    reused: bool = False    # its solution objects came from an earlier suite: only linked
    build_seconds: float = 0.0
    run_seconds: float = 0.0


class ScoredSuite(Record):
    schema_version: Literal[1] = 1
    slug: str
    task_hash: str
    suite_hash: str              # sha256 of the written test file
    valid: bool
    why_invalid: str | None = None
    reference: CandidateResult   # the run against the correct solution
    assertions: AssertionCount | None = None  # on the correct solution; None: no full report
    assertion_accuracy: float | None = None
    kill_rate: float | None = None  # None for an invalid suite or one with nothing to kill
    killed: int = 0
    scored: int = 0              # targets that compiled with this suite: the kill rate's denominator
    targets: list[TargetResult] = []
    build_seconds: float = 0.0   # sandbox time in configure and build, every run together
    run_seconds: float = 0.0     # sandbox time in the test binary's runs
    seconds: float = 0.0         # wall clock of the whole scoring
    fill: FillReport | None = None  # fill mode: what filling the placeholders did first
    # The largest share of a reference function body the suite holds (embedding.py), and
    # whether that makes it a copy of the reference: scored, but counted apart and never
    # rewarded in training.
    reference_similarity: float = 0.0
    embeds_reference: bool = False
    # Where the reference ran among the targets (0: first), drawn from order_seed.
    order_seed: int | None = None
    reference_position: int | None = None
    refused: list[str] = []         # why the language would not run it (then it ran nowhere)
    shape: SuiteShape | None = None  # its diagnostics, from its text


def target_outcome(report: TestReport) -> TargetOutcome:
    if not report.built:
        return TargetOutcome.not_compiled
    if report.timeout:
        return TargetOutcome.timed_out
    # The faulty-control rule: built, ran to the end in time, and something failed.
    return TargetOutcome.killed if control_fails(report) else TargetOutcome.survived


def _accuracy(count: AssertionCount | None) -> float | None:
    return count.passed / count.total if count is not None and count.total else None


def score_suite(task: Task, source: bytes, session: SandboxSession,
                targets: TargetSet | Callable[[], TargetSet]) -> ScoredSuite:
    """Score one written test file for `task` in `session` (its run limit lowered to
    RUN_TIMEOUT_S), against `targets` found for the same task, or given by a function
    (finding them costs a run per mutant, once per task)."""
    return score_with_report(task, source, session, targets)[0]


def score_with_report(task: Task, source: bytes, session: SandboxSession, targets: TargetSet | Callable[[], TargetSet],
                      fill: bool = False) -> tuple[ScoredSuite, TestReport]:
    """score_suite, and the suite's test report on the correct solution (what a model is
    shown of its failing assertions). With `fill`, the suite's placeholders are filled in
    by execution first (fill.py) and the filled suite is scored."""
    start = time.monotonic()
    language = language_for(task)
    session.limits = session.limits.model_copy(update={"timeout_s": min(session.limits.timeout_s, RUN_TIMEOUT_S)})
    refused = language.suite_refusals(task, test_file(task), source)
    if refused:
        return _refused(task, source, refused, language.suite_shape(source), start)
    filled = fill_placeholders(task, source, session) if fill else None
    source = filled.source if filled else source
    written = with_written_tests(task, source)
    runs = language.suite_runs(task, written, session)
    found = targets() if callable(targets) else targets
    order_seed = secrets.randbits(63)
    drawn = random.Random(order_seed).randrange(len(found.targets) + 1)
    if drawn:
        runs.prepare()
    before: list[TargetResult] = []
    for target in found.targets[:drawn]:
        before.append(_run_target(task, runs, target))
        if before[-1].outcome is TargetOutcome.not_compiled:
            break  # most likely the suite itself: no run of it told the program anything; the rest after
    position = len(before)
    report = runs.run(task.reference_files(), reference=True)[0]
    evaluated = language.evaluated_assertions(task, test_file(task), source, session, report,
                                              lambda text: with_written_tests(task, text)) if report.built else None
    assertions = evaluated or report.assertions
    reference = candidate_result(RunKind.reference, "reference", report)
    silent = report.passed and assertions is not None and assertions.total == 0
    valid = report.passed and not silent
    similarity = reference_similarity(task, source)
    scored = ScoredSuite(
        slug=task.slug, task_hash=task.content_hash, suite_hash=suite_hash(source), valid=valid,
        why_invalid=None if valid else (_SILENT if silent else why_not(reference)), reference=reference,
        assertions=assertions, assertion_accuracy=_accuracy(assertions),
        fill=filled.report if filled else None, reference_similarity=similarity,
        embeds_reference=embeds_reference(similarity), order_seed=order_seed, reference_position=position,
        shape=language.suite_shape(source),
    )
    ran = before + ([_run_target(task, runs, target) for target in found.targets[position:]] if valid else [])
    build_s = report.build_seconds + sum(r.build_seconds for r in ran)
    run_s = report.run_seconds + sum(r.run_seconds for r in ran)
    if valid:
        scored.targets = ran
        counted = [t for t in scored.targets if t.outcome is not TargetOutcome.not_compiled]
        scored.scored = len(counted)
        scored.killed = sum(t.outcome is TargetOutcome.killed for t in counted)
        scored.kill_rate = scored.killed / scored.scored if counted else None
    scored.build_seconds = round(build_s, 3)
    scored.run_seconds = round(run_s, 3)
    scored.seconds = round(time.monotonic() - start, 3)
    if silent:
        report = report.model_copy(update={"status": Status.failed, "message": _SILENT, "transcript": _SILENT})
    return scored, report


_SILENT = "no assertion ran on the correct solution: a suite must state the behaviour it expects"


def _refused(task: Task, source: bytes, refused: list[str], shape: SuiteShape | None,
             start: float) -> tuple[ScoredSuite, TestReport]:
    """A suite the language will not run: invalid, scored on nothing, the rules said."""
    why = "the test file was not run: " + "; ".join(refused[:10]) + ("" if len(refused) <= 10 else f"; and {len(refused) - 10} more")
    report = TestReport(status=Status.failed, message=why, transcript=why).overruled(refused)
    similarity = reference_similarity(task, source)
    scored = ScoredSuite(
        slug=task.slug, task_hash=task.content_hash, suite_hash=suite_hash(source), valid=False, why_invalid=why,
        reference=candidate_result(RunKind.reference, "reference", report), reference_similarity=similarity,
        embeds_reference=embeds_reference(similarity), refused=refused, shape=shape,
        seconds=round(time.monotonic() - start, 3))
    return scored, report


def _run_target(task: Task, runs: SuiteRuns, target: Target) -> TargetResult:
    """The written suite on one broken copy."""
    run, reused = runs.run(target.files(task), reference=False)
    return TargetResult(kind=target.kind, name=target.name, outcome=target_outcome(run),
                        failed=[t.name for t in run.failing()[:3]], build_seconds=run.build_seconds,
                        run_seconds=run.run_seconds, reused=reused)


class TargetPool:
    """Each task's targets, found once (or read from the cache) by the first piece of work
    that needs them; work on the same task at the same time waits for them rather than
    sorting them again."""

    def __init__(self, mutant_cap: int | None = None, mutant_seed: int = 0, use_cache: bool = True):
        self.mutant_cap, self.mutant_seed, self.use_cache = mutant_cap, mutant_seed, use_cache
        self._found: dict[str, TargetSet] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, task: Task, session: SandboxSession) -> TargetSet:
        key = f"{task.slug}@{task.content_hash}"
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._found:
                self._found[key] = find_targets(task, session, mutant_cap=self.mutant_cap,
                                                mutant_seed=self.mutant_seed, use_cache=self.use_cache)
            return self._found[key]


@dataclass
class SuiteToScore:
    task: Task
    source: bytes
    fill: bool = False  # fill its placeholders by execution first (fill.py)


def score_suites(sandbox: Sandbox, suites: Sequence[SuiteToScore], *, workers: int = 1,
                 mutant_cap: int | None = None, mutant_seed: int = 0, use_cache: bool = True,
                 progress: Callable[[ScoredSuite], None] | None = None,
                 on_failure: Callable[[int, UnitFailure], None] | None = None) -> list[ScoredSuite | None]:
    """Score each written suite, in order of the answer, in warm sessions (one per
    worker), each task's targets found once (TargetPool). A suite whose scoring raised is
    None in the answer and goes to `on_failure` (its index, the failure typed); without
    it the first such failure is raised once every other suite is scored."""
    pool = TargetPool(mutant_cap, mutant_seed, use_cache)
    results: dict[int, ScoredSuite | None] = {}
    units = [_Unit(i, s.task, s.source, s.fill) for i, s in enumerate(suites)]

    def handle(unit: _Unit, session: SandboxSession) -> None:
        scored = score_with_report(unit.task, unit.source, session, lambda: pool.get(unit.task, session),
                                   fill=unit.fill)[0]
        results[unit.index] = scored
        if progress is not None:
            progress(scored)

    def failed(unit: _Unit, failure: UnitFailure) -> None:
        results[unit.index] = None
        on_failure(unit.index, failure)  # type: ignore[misc]  # only passed on when given

    work_on_tasks(sandbox, units, handle, workers=max(1, min(workers, len(units))), run_timeout_s=RUN_TIMEOUT_S,
                  on_failure=failed if on_failure is not None else None)
    return [results[i] for i in range(len(units))]


@dataclass
class _Unit:
    index: int
    task: Task
    source: bytes
    fill: bool


def read_test_file(path: Path) -> bytes:
    """A written test file's bytes; a missing or unreadable one is bad input, said in one line."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise BadInput(f"{path}: cannot read the test file ({exc.strerror or exc})") from None


def task_for_scoring(ref: str, suite: str) -> Task:
    """A task named by slug in `suite`, or by the path of its folder."""
    if "/" in ref or Path(ref).is_dir():
        return load_task(ref)
    return find_suite(suite).task(ref)
