"""Validation of candidate repair exercises in the sandbox, in parallel, before any is kept:
the reference passes, the starting code fails the way it failed when it was recorded (the
same failing tests, a compile error of the same kind, a timeout again), and every faulty
control fails (by suite validation's rule, `control_fails`).

Two phases over suite validation's slots (harness.suite_validation.work_on_tasks: one
session per slot, a task's build tree kept warm between the runs that share it, on this
machine or a cluster's nodes):
1. per suite task: the reference, then mutants of it in a seeded order (screening): the
   mutants that build and fail become faulty controls, and for `synth` starting points;
2. per candidate: its starting code, and the verdict.

A candidate is tested in its suite task's own build tree, not in the repair task's folder:
the files the sandbox builds are the same bytes (a repair task keeps the suite task's
tests and build files; only a C++ task's CMake target takes the folder's name), and
candidates of one task then share one compiled test unit where the language compiles one.
Runs are cached by the exact files staged, so the reference and each control run once per
task however many candidates share them: the driver keeps the cache, sends each unit the
runs of its task it knows, and takes back the runs the unit made."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Mapping

from ..executor import Executor, using
from ..hashing import hash_files
from ..languages.mutation import Mutant
from ..languages.registry import language_for
from ..records import TestReport
from ..sandbox.base import Sandbox, SandboxSession
from ..task import Task
from ..staging import stage_files
from ..suite_validation import ProgressFn, Steps, control_fails, work_on_tasks
from .candidates import Candidate, screening_order
from .records import DropReason
from .taxonomy import describe, same_failure

_CHUNK = 6  # candidates per work unit: small enough to spread one task over the workers


@dataclass
class TaskBasis:
    """A suite task's reference run and the mutants screened against its tests."""

    source_task: str
    task: Task
    reference: TestReport
    screened: list[tuple[Mutant, TestReport]] = field(default_factory=list)

    @property
    def controls(self) -> list[Mutant]:
        return [m for m, r in self.screened if control_fails(r)]


class _Runs:
    """Builds-and-tests by the exact files staged, each set once: those the driver knew
    when it sent the unit, and the ones the unit ran (`new`, sent back)."""

    def __init__(self, known: Mapping[str, TestReport]):
        self.known = dict(known)
        self.new: dict[str, TestReport] = {}

    def test(self, task: Task, files: Mapping[str, bytes], session: SandboxSession) -> TestReport:
        staged, _ = stage_files(task, files)
        key = f"{task.slug}:{hash_files(staged)}"
        if key not in self.known:
            self.known[key] = self.new[key] = language_for(task).run_tests(task, files, session)
        return self.known[key]


@dataclass
class _Check:
    """What phase 2 tests of one candidate."""

    files: dict[str, bytes]
    expected: TestReport
    controls: list[Mutant]


@dataclass
class _Unit:
    task: Task  # the slot keeps this task's build tree warm for the unit
    runs: int
    source_task: str
    known: dict[str, TestReport]
    seed: int = 0                      # phase 1: the screening order, how many, when enough
    screen: int = 0
    enough: int | None = None
    reference: TestReport | None = None  # phase 2: the reference's run, and the candidates
    checks: list[_Check] = field(default_factory=list)


@dataclass
class _Done:
    new: dict[str, TestReport]  # the sandbox runs the unit made
    reference: TestReport | None = None
    screened: list[tuple[Mutant, TestReport]] = field(default_factory=list)
    verdicts: list[tuple[DropReason, str | None] | None] = field(default_factory=list)  # None: kept


def _prepare(unit: _Unit, session: SandboxSession) -> _Done:
    runs, task = _Runs(unit.known), unit.task
    reference = task.reference_files()
    reference_run = runs.test(task, reference, session)
    done = _Done(new=runs.new, reference=reference_run)
    if reference_run.passed:
        controls = 0
        for m in screening_order(task, unit.seed)[:unit.screen]:
            if unit.enough is not None and controls >= unit.enough:
                break
            report = runs.test(task, m.apply(reference), session)
            done.screened.append((m, report))
            controls += control_fails(report)
    return done


def _check(unit: _Unit, session: SandboxSession) -> _Done:
    runs, reference = _Runs(unit.known), unit.reference
    assert reference is not None  # a unit of phase 2 carries the reference's run from phase 1
    return _Done(new=runs.new, verdicts=[_verdict(unit.task, reference, c, runs, session) for c in unit.checks])


def _verdict(task: Task, reference: TestReport, c: _Check, runs: _Runs,
             session: SandboxSession) -> tuple[DropReason, str | None] | None:
    if not reference.passed:
        return DropReason.reference_fails, describe(reference)
    got = runs.test(task, c.files, session)
    if got.passed:
        return DropReason.broken_passes, None
    differs = same_failure(c.expected, got)
    if differs is not None:
        return DropReason.not_reproduced, differs
    files = task.reference_files()
    for m in c.controls:
        report = runs.test(task, m.apply(files), session)
        if not control_fails(report):
            return DropReason.control_passes, f"{m.describe()}: {describe(report)}"
    return None


class Validator:
    """Runs builds-and-tests on an executor's slots (or threads over a sandbox), each exact
    set of staged files once."""

    def __init__(self, where: Sandbox | Executor, workers: int, run_timeout_s: float,
                 progress: ProgressFn | None = None):
        self.where = where
        self.workers = max(1, workers)
        self.run_timeout_s = run_timeout_s
        self.progress = progress
        self.runs = 0  # sandbox runs, cache hits not counted
        self.seconds = 0.0
        self.backend = where.facts.backend if isinstance(where, Executor) else where.backend
        self._cache: dict[str, TestReport] = {}

    def known(self, task: Task) -> dict[str, TestReport]:
        return {k: v for k, v in self._cache.items() if k.startswith(f"{task.slug}:")}

    def _work(self, units: list[_Unit], work: Callable[[_Unit, SandboxSession], _Done],
              done: Callable[[_Unit, _Done], None], label: str) -> None:
        if not units:
            return
        start = time.monotonic()
        total = sum(u.runs for u in units)
        report = self.progress
        progress = None if report is None else (lambda n, _, note: report(n, total, f"{label}: {note}"))
        step = Steps(total, progress)

        def delivered(unit: _Unit, got: _Done) -> None:
            self._cache.update(got.new)
            self.runs += len(got.new)
            done(unit, got)
            step(unit.task.slug, unit.runs)

        with using(self.where, min(self.workers, len(units))) as executor:
            work_on_tasks(executor, units, work, workers=self.workers, run_timeout_s=self.run_timeout_s,
                          on_result=delivered)
        self.seconds += time.monotonic() - start

    # --- phase 1 --------------------------------------------------------------------------

    def prepare(self, tasks: Mapping[str, Task], seed: int, screen: int, enough: int | None) -> dict[str, TaskBasis]:
        """For each suite task (by <suite>/<slug>): the reference's run and up to `screen`
        mutants in screening order, stopping once `enough` of them are usable controls."""
        bases: dict[str, TaskBasis] = {}

        def done(unit: _Unit, got: _Done) -> None:
            assert got.reference is not None  # phase 1 runs the reference first
            bases[unit.source_task] = TaskBasis(unit.source_task, tasks[unit.source_task], got.reference, got.screened)

        units = [_Unit(task=t, runs=1, source_task=tid, known=self.known(t), seed=seed, screen=screen, enough=enough)
                 for tid, t in tasks.items()]
        self._work(units, _prepare, done, "reference and mutants")
        return bases

    # --- phase 2 --------------------------------------------------------------------------

    def check(self, candidates: list[Candidate], bases: Mapping[str, TaskBasis]) -> None:
        """Test each candidate's starting code and its controls; drop those that break a
        rule, with the reason."""
        by_task: dict[str, list[Candidate]] = {}
        for c in candidates:
            by_task.setdefault(c.source_task, []).append(c)
        units, chunks = [], {}
        for tid, group in by_task.items():
            # Candidates in a row that the compiled test unit sees alike (the same C++ header):
            # it is recompiled only when that changes.
            basis = bases[tid]
            compiled = language_for(basis.task).compiled_with_tests
            group = sorted(group, key=lambda c: (hash_files(compiled(c.files)), c.key))
            for i in range(0, len(group), _CHUNK):
                chunk = group[i:i + _CHUNK]
                unit = _Unit(task=basis.task, runs=len(chunk), source_task=tid, known=self.known(basis.task),
                             reference=basis.reference, checks=[_Check(c.files, c.live_expected, c.controls) for c in chunk])
                units.append(unit)
                chunks[id(unit)] = chunk

        def done(unit: _Unit, got: _Done) -> None:
            for c, verdict in zip(chunks[id(unit)], got.verdicts, strict=True):
                if verdict is not None:
                    c.drop(*verdict)

        self._work(units, _check, done, "candidates")
