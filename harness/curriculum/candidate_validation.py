"""Validation of candidate repair exercises in the sandbox, in parallel, before any is kept:
the reference passes, the starting code fails the way it failed when it was recorded (the
same failing tests, a compile error of the same kind, a timeout again), and every faulty
control fails (by suite validation's rule, `control_fails`).

Two phases over suite validation's workers (harness.suite_validation: one session per
worker, a task's build tree kept warm between the runs that share it):
1. per suite task: the reference, then mutants of it in a seeded order (screening): the
   mutants that build and fail become faulty controls, and for `synth` starting points;
2. per candidate: its starting code, and the verdict.

A candidate is tested in its suite task's own build tree, not in the repair task's folder:
the files the sandbox builds are the same bytes (a repair task keeps the suite task's
tests and build files; only its CMake target takes the folder's name), and candidates of
one task then share one compiled test unit. Runs are cached by the exact files staged, so
the reference and each control run once per task however many candidates share them."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping

from ..cpp_files import headers
from ..hashing import hash_files
from ..mutants import Mutant
from ..records import TestReport
from ..sandbox.base import Sandbox, SandboxSession
from ..task import Task
from ..testrun import run_tests, stage_files
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


@dataclass
class _Unit:
    task: Task  # the pool keeps this task's build tree warm for the unit
    runs: int
    source_task: str = ""
    candidates: list[Candidate] = field(default_factory=list)


class Validator:
    """Runs builds-and-tests through a pool of sandbox sessions, each exact set of staged
    files once."""

    def __init__(self, sandbox: Sandbox, workers: int, run_timeout_s: float, progress: ProgressFn | None = None):
        self.sandbox = sandbox
        self.workers = max(1, workers)
        self.run_timeout_s = run_timeout_s
        self.progress = progress
        self.runs = 0  # sandbox runs, cache hits not counted
        self.seconds = 0.0
        self._cache: dict[str, TestReport] = {}
        self._lock = threading.Lock()

    def test(self, task: Task, files: Mapping[str, bytes], session: SandboxSession) -> TestReport:
        staged, _ = stage_files(task, files)
        key = f"{task.slug}:{hash_files(staged)}"
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        report = run_tests(task, files, session)
        with self._lock:
            self._cache[key] = report
            self.runs += 1
        return report

    def _work(self, units: list[_Unit], handle: Callable[[_Unit, SandboxSession, Steps], None], label: str) -> None:
        if not units:
            return
        start = time.monotonic()
        total = sum(u.runs for u in units)
        progress = None if self.progress is None else (lambda done, _, note: self.progress(done, total, f"{label}: {note}"))
        step = Steps(total, progress)
        work_on_tasks(self.sandbox, units, lambda unit, session: handle(unit, session, step),
                      workers=min(self.workers, len(units)), run_timeout_s=self.run_timeout_s)
        self.seconds += time.monotonic() - start

    # --- phase 1 --------------------------------------------------------------------------

    def prepare(self, tasks: Mapping[str, Task], seed: int, screen: int, enough: int | None) -> dict[str, TaskBasis]:
        """For each suite task (by <suite>/<slug>): the reference's run and up to `screen`
        mutants in screening order, stopping once `enough` of them are usable controls."""
        bases: dict[str, TaskBasis] = {}
        lock = threading.Lock()

        def handle(unit: _Unit, session: SandboxSession, step: Steps) -> None:
            task = unit.task
            reference = task.reference_files()
            basis = TaskBasis(unit.source_task, task, self.test(task, reference, session))
            if basis.reference.passed:
                for m in screening_order(task, seed)[:screen]:
                    if enough is not None and len(basis.controls) >= enough:
                        break
                    basis.screened.append((m, self.test(task, m.apply(reference), session)))
            with lock:
                bases[unit.source_task] = basis
            step(task.slug)

        units = [_Unit(task=t, runs=1, source_task=tid) for tid, t in tasks.items()]
        self._work(units, handle, "reference and mutants")
        return bases

    # --- phase 2 --------------------------------------------------------------------------

    def check(self, candidates: list[Candidate], bases: Mapping[str, TaskBasis]) -> None:
        """Test each candidate's starting code and its controls; drop those that break a
        rule, with the reason."""
        by_task: dict[str, list[Candidate]] = {}
        for c in candidates:
            by_task.setdefault(c.source_task, []).append(c)
        units = []
        for tid, group in by_task.items():
            # Candidates with the same header in a row: the test unit includes it, so it is
            # recompiled only when the header changes.
            group = sorted(group, key=lambda c: (hash_files({k: c.files[k] for k in headers(c.files)}), c.key))
            for i in range(0, len(group), _CHUNK):
                chunk = group[i:i + _CHUNK]
                units.append(_Unit(task=chunk[0].task, runs=len(chunk), source_task=tid, candidates=chunk))

        def handle(unit: _Unit, session: SandboxSession, step: Steps) -> None:
            basis = bases[unit.source_task]
            for c in unit.candidates:
                self._verdict(c, basis, session)
                step(f"{c.slug} {'kept' if c.dropped is None else c.dropped.value}")

        self._work(units, handle, "candidates")

    def _verdict(self, c: Candidate, basis: TaskBasis, session: SandboxSession) -> None:
        if not basis.reference.passed:
            c.drop(DropReason.reference_fails, describe(basis.reference))
            return
        got = self.test(c.task, c.files, session)
        if got.passed:
            c.drop(DropReason.broken_passes)
            return
        differs = same_failure(c.expected, got)
        if differs is not None:
            c.drop(DropReason.not_reproduced, differs)
            return
        reference = c.task.reference_files()
        for m in c.controls:
            report = self.test(c.task, m.apply(reference), session)
            if not control_fails(report):
                c.drop(DropReason.control_passes, f"{m.describe()}: {describe(report)}")
                return
