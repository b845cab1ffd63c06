"""Suite validation: does each task mean what it claims? In the sandbox, for every task, the
stub must not pass (unless the exercise says it is meant to: `stub_may_pass`), the reference
must pass every test, and every faulty control (a
hand-written bug in `.meta/faulty/<bug>/`) must compile and fail. With mutants, the tests'
power to discriminate is measured too: the share of compiling mutants of the reference that
some test kills.

Tasks run in parallel, one sandbox session per worker, reused for every run the worker
does, so a task's build tree is configured once and a candidate that changes only the
solution file does not recompile the test unit."""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from functools import partial
from typing import Callable, Literal, Mapping, Protocol, Sequence, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import BadInput, invalid
from .executor import Executor, Slot, using
from .executor.base import Failed
from .fs import read_files, read_toml, subfolders
from .languages.mutation import Mutant
from .languages.registry import language_for
from .records import Record, Status, TestReport
from .sandbox.base import Sandbox, SandboxSession
from .suite import Suite
from .task import Task

FAULTY_DIR = ".meta/faulty"
EQUIVALENT_NOTES = ".meta/equivalent-mutants.toml"
KILL_RATE_GOAL = 0.85
_MUTANT_CHUNK = 12  # mutants per work unit: small enough to spread one task over workers

# (runs done, runs in all, what just finished)
ProgressFn = Callable[[int, int, str], None]
U = TypeVar("U", bound="TaskUnit")
R = TypeVar("R")


class RunKind(str, Enum):
    reference = "reference"
    stub = "stub"
    faulty = "faulty"


class CandidateResult(Record):
    kind: RunKind
    name: str
    status: Status
    built: bool
    tests: int = 0
    failed: list[str] = []  # the first few tests that did not pass
    timeout: bool = False
    seconds: float = 0.0
    message: str | None = None  # the first lines of the build log or the run's complaint

    @property
    def passed(self) -> bool:
        return self.status is Status.passed


class MutantOutcome(str, Enum):
    killed = "killed"
    survived = "survived"
    not_compiled = "not compiled"


class MutantResult(Record):
    mutant: Mutant
    outcome: MutantOutcome
    timeout: bool = False
    failed: list[str] = []
    seconds: float = 0.0
    equivalent: str | None = None  # the task's note on why this survivor is equivalent


class MutantSummary(Record):
    generated: int
    compiled: int
    killed: int
    survived: int
    equivalent: int  # survivors the task's notes explain as equivalent
    timed_out: int   # killed by the run timeout
    seconds: float   # build and run time of them all
    survivors: list[MutantResult]

    @property
    def kill_rate(self) -> float | None:
        """Killed over compiling mutants, equivalent survivors left out of the count."""
        denominator = self.compiled - self.equivalent
        return self.killed / denominator if denominator else None


class TaskValidation(Record):
    slug: str
    content_hash: str
    test_cases: int  # TEST_CASEs declared in the test files
    problems: list[str] = []
    stub_may_pass: str | None = None  # why the exercise's stub is meant to pass (stub_may_pass)
    runs: list[CandidateResult] = []
    mutants: MutantSummary | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


class SuiteValidation(Record):
    schema_version: Literal[1] = 1
    suite: str
    suite_version: str
    suite_hash: str
    backend: str
    workers: int
    with_mutants: bool
    seconds: float
    tasks: list[TaskValidation]

    @property
    def broken(self) -> list[TaskValidation]:
        return [t for t in self.tasks if not t.ok]


# --- what gets run -----------------------------------------------------------------------


def faulty_controls(task: Task) -> dict[str, dict[str, bytes]]:
    """Each faulty control by name: the reference with the control's files laid over it, so
    a control may hold every solution file or only the one it breaks."""
    root = task.path / FAULTY_DIR
    if not root.is_dir():
        return {}
    return {folder.name: task.reference_files() | read_files(folder) for folder in subfolders(root)}


class TestedRun(Protocol):
    """What a build-and-test says that the faulty-control rule reads (a TestReport, a
    CandidateResult)."""

    built: bool
    timeout: bool

    @property
    def passed(self) -> bool: ...


def control_fails(run: TestedRun) -> bool:
    """The faulty-control rule: a control counts as failing only when it builds, runs its
    tests to the end in time, and a test fails. One that does not compile or that hangs
    shows nothing about whether the tests catch its bug."""
    return run.built and not run.timeout and not run.passed


_REFACTORING = re.compile(r"\A#[^\n]*\n\s*Refactor\b")


def stub_may_pass(task: Task) -> str | None:
    """Why the exercise says its stub is meant to pass every test, or None (the stub must
    fail). The rule, the same for every language, reads two marks an Exercism exercise
    carries itself: instructions whose first line after the heading asks to refactor (a
    refactoring exercise hands over a working program to improve: ledger, markdown), and
    `.meta/.skip_tests`, Exercism's mark of an exercise whose tests are not run (Go's
    counter, where the solution is the tests and the test file declares none)."""
    docs = task.path / ".docs" / "instructions.md"
    if docs.is_file() and _REFACTORING.match(task.read_text(".docs/instructions.md")):
        return "a refactoring exercise: its instructions ask to refactor the working program the stub is"
    if (task.path / ".meta" / ".skip_tests").is_file():
        return "its .meta/.skip_tests says the exercise's tests are not run"
    return None


def declared_test_cases(task: Task) -> int:
    return language_for(task).declared_test_cases(task)


def _planned_runs(task: Task) -> int:
    try:
        controls = len(faulty_controls(task))
    except BadInput:
        return 0  # check_task reports it without running anything
    return bool(task.example_files) + controls + 1


@dataclass
class _Unit:
    """One worker's piece of work: a task's rule checks, or a batch of its mutants."""

    task: Task
    runs: int
    mutants: list[Mutant] = field(default_factory=list)


def _first_lines(text: str | None, n: int = 6) -> str | None:
    if not text:
        return None
    lines = text.strip().splitlines()
    return "\n".join(lines[:n]) + ("\n..." if len(lines) > n else "")


def _not_passed(report: TestReport, limit: int = 5) -> list[str]:
    return [t.name for t in report.failing()[:limit]]


def candidate_result(kind: RunKind, name: str, report: TestReport) -> CandidateResult:
    return CandidateResult(
        kind=kind, name=name, status=report.status, built=report.built, tests=len(report.tests),
        failed=_not_passed(report), timeout=report.timeout,
        seconds=round(report.build_seconds + report.run_seconds, 3),
        message=_first_lines(report.message),
    )


def why_not(run: CandidateResult) -> str:
    if run.timeout:
        return "timed out"
    if not run.built:
        lines = (run.message or "").splitlines()
        first_error = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
        return f"does not compile: {first_error.strip()}"
    if run.failed:
        return f"{run.status.value}: " + ", ".join(run.failed)
    return f"{run.status.value}: {run.message or 'no test passed'}"


def check_task(task: Task, session: SandboxSession) -> TaskValidation:
    """The three rules for one task, run in the given session. The reference goes first
    so the controls after it find the test unit compiled."""
    start = time.monotonic()
    result = TaskValidation(slug=task.slug, content_hash=task.content_hash, test_cases=declared_test_cases(task))
    problems = result.problems
    unreadable = task.text_problem()
    if unreadable is not None:
        problems.append(unreadable)  # a trial could not show it to a model: nothing to build
        return result
    try:
        reference = task.reference_files()
        controls = faulty_controls(task)
    except BadInput as exc:
        problems.append(str(exc))
        return result
    if not reference:
        problems.append("no reference solution (.meta/config.json lists no example files)")
    else:
        run = candidate_result(RunKind.reference, "reference", language_for(task).run_tests(task, reference, session))
        result.runs.append(run)
        if run.status is not Status.passed:
            problems.append(f"the reference does not pass: {why_not(run)}")
        elif run.tests < result.test_cases:
            problems.append(
                f"the reference ran {run.tests} tests but the test files declare {result.test_cases} TEST_CASEs"
            )
    solution = set(task.solution_files)
    for name, files in controls.items():
        stray = sorted(set(files) - solution)
        if stray:
            problems.append(f"faulty control {name!r} holds files that are not solution files: {', '.join(stray)}")
        run = candidate_result(RunKind.faulty, name, language_for(task).run_tests(task, files, session))
        result.runs.append(run)
        if not control_fails(run):
            why = (why_not(run) if not run.built else "timed out instead of failing a test" if run.timeout
                   else "passes every test")
            problems.append(f"faulty control {name!r} {why}")
    run = candidate_result(RunKind.stub, "stub", language_for(task).run_tests(task, task.stub_files(), session))
    result.runs.append(run)
    result.stub_may_pass = stub_may_pass(task)
    if run.status is Status.passed and result.stub_may_pass is None:
        problems.append("the stub passes every test")
    result.seconds = round(time.monotonic() - start, 3)
    return result


def run_mutants(task: Task, mutants: list[Mutant], session: SandboxSession) -> list[MutantResult]:
    reference = task.reference_files()
    out = []
    for m in mutants:
        report = language_for(task).run_tests(task, m.apply(reference), session)
        if not report.built:
            outcome = MutantOutcome.not_compiled
        elif report.passed:
            outcome = MutantOutcome.survived
        else:
            outcome = MutantOutcome.killed
        out.append(MutantResult(mutant=m, outcome=outcome, timeout=report.timeout, failed=_not_passed(report, 3),
                                seconds=round(report.build_seconds + report.run_seconds, 3)))
    return out


# --- notes on equivalent mutants -----------------------------------------------------------


class EquivalentNote(BaseModel):
    file: str
    line: int
    original: str
    replacement: str = ""
    why: str

    def matches(self, m: Mutant) -> bool:
        squash = lambda s: " ".join(s.split())  # noqa: E731
        return (self.file, self.line, squash(self.original), squash(self.replacement)) == (
            m.file, m.line, squash(m.original), squash(m.replacement))


def equivalent_notes(task: Task) -> list[EquivalentNote]:
    """The task's own explanations of surviving mutants that no test could kill."""
    path = task.path / EQUIVALENT_NOTES
    if not path.is_file():
        return []
    data = read_toml(path, "list of [[equivalent]] notes")
    try:
        return [EquivalentNote.model_validate(e) for e in data.get("equivalent", [])]
    except ValidationError as exc:
        raise invalid(exc, f"{path}: not a valid list of [[equivalent]] notes") from None


def summarize_mutants(results: list[MutantResult], notes: list[EquivalentNote]) -> MutantSummary:
    survivors = []
    for r in results:
        if r.outcome is MutantOutcome.survived:
            note = next((n for n in notes if n.matches(r.mutant)), None)
            survivors.append(r.model_copy(update={"equivalent": note.why if note else None}))
    compiled = [r for r in results if r.outcome is not MutantOutcome.not_compiled]
    return MutantSummary(
        generated=len(results),
        compiled=len(compiled),
        killed=sum(r.outcome is MutantOutcome.killed for r in results),
        survived=len(survivors),
        equivalent=sum(s.equivalent is not None for s in survivors),
        timed_out=sum(r.timeout for r in compiled),
        seconds=round(sum(r.seconds for r in results), 1),
        survivors=survivors,
    )


def save_survivors(out: Path, task: Task, summary: MutantSummary) -> None:
    """Each surviving mutant as a folder: the mutated file, a diff against the reference,
    and the mutant's record."""
    root = out / task.slug / "survivors"
    shutil.rmtree(root, ignore_errors=True)
    reference = task.reference_files()
    for i, r in enumerate(summary.survivors, 1):
        m = r.mutant
        folder = root / f"{i:03d}-{m.label}"
        folder.mkdir(parents=True)
        mutated = m.apply(reference)[m.file]
        (folder / Path(m.file).name).write_bytes(mutated)
        before = reference[m.file].decode(errors="replace").splitlines(keepends=True)
        after = mutated.decode(errors="replace").splitlines(keepends=True)
        (folder / "mutant.diff").write_text("".join(difflib.unified_diff(before, after, f"a/{m.file}", f"b/{m.file}")))
        (folder / "mutant.json").write_text(r.model_dump_json(indent=2) + "\n")


# --- the workers -------------------------------------------------------------------------


class Steps:
    """Runs done out of all planned, told to `progress` as work ends, from any thread."""

    def __init__(self, total: int, progress: ProgressFn | None):
        self.total = total
        self.progress = progress
        self.done = 0
        self._lock = threading.Lock()

    def __call__(self, note: str, runs: int = 1) -> None:
        with self._lock:
            self.done += runs
            if self.progress is not None:
                self.progress(self.done, self.total, note)


class TaskUnit(Protocol):
    task: Task


def _in_task_tree(work: Callable[[U, SandboxSession], R], run_timeout_s: float, unit: U, slot: Slot) -> R:
    session = slot.warm_session(("tests", unit.task.path), partial(language_for(unit.task).drop_build, unit.task),
                                unit.task.language)
    # Validation's candidates are known programs whose tests finish in well under a
    # second; a hung mutant should not cost a model's minute.
    session.limits = slot.host.box.limits.model_copy(
        update={"timeout_s": min(slot.host.box.limits.timeout_s, run_timeout_s)})
    return work(unit, session)


def work_on_tasks(where: Sandbox | Executor, units: Sequence[U], work: Callable[[U, SandboxSession], R], *,
                  workers: int, run_timeout_s: float, on_result: Callable[[U, R], None] | None = None,
                  on_failure: Failed | None = None) -> None:
    """Validation's work in the sandbox, one session per slot (harness/executor), a task's
    units next to each other and a slot's next unit one of its own task where there is one,
    so that the slots sharing a task share it while its build tree is warm. A slot moving
    on to another task drops the last one's build tree: build space is a fixed-size tmpfs.
    `where` is an executor, or a sandbox to run `workers` threads over; on a cluster `work`
    is a module-level function and `on_result` gets what it returns; a unit whose work
    raised goes to `on_failure` (executor.base.UnitFailure), or ends the call once every
    other unit has run."""
    with using(where, workers) as executor:
        executor.run(units, partial(_in_task_tree, work, run_timeout_s), label="validate worker", on_result=on_result,
                     on_failure=on_failure, affinity=lambda u: u.task.path)


def default_workers() -> int:
    """One more worker than cores: each sandbox gets one CPU, and a worker waiting on the
    engine between builds would otherwise leave a core idle. fixed26 on 2 cores, about 140
    CPU-seconds in the sandboxes: 85 s with 2 workers, 82 s with 3, 88 s with 4 on an idle
    machine; with busy neighbours 3 workers took 151 s where 2 took 253 s."""
    return (os.cpu_count() or 1) + 1


def _validate_unit(unit: _Unit, session: SandboxSession) -> TaskValidation | list[MutantResult]:
    if unit.mutants:
        return run_mutants(unit.task, unit.mutants, session)
    return check_task(unit.task, session)


def validate_suite(
    suite: Suite,
    sandbox: Sandbox | Executor,
    tasks: list[str] | None = None,
    mutants: bool = False,
    workers: int | None = None,
    progress: ProgressFn | None = None,
    out: Path | None = None,
    mutant_cap: int | None = None,
    mutant_seed: int = 0,
    run_timeout_s: float = 20.0,
) -> SuiteValidation:
    """Check the rules for each selected task (and measure mutant kill rates), in parallel,
    in `sandbox` (`workers` threads) or on an executor's slots. With `out`, the report is
    written there as validation.json and surviving mutants under <out>/<task>/survivors/."""
    selected = suite.select(tasks)
    other = next((t for t in selected if t.kind != "repair"), None)
    if other is not None:
        raise BadInput(f"task {other.slug} is an {other.kind} task: its value was observed when it was built "
                       "(`harness predict build`); there is nothing to validate")
    workers = max(1, workers or default_workers())
    start = time.monotonic()

    # A task's mutant batches follow its rule checks, so the workers that share a task
    # share it while its build tree is warm.
    units: list[_Unit] = []
    planned: dict[str, list[Mutant]] = {}
    notes: dict[str, list[EquivalentNote]] = {}
    for task in selected:
        units.append(_Unit(task, runs=_planned_runs(task)))
        if not mutants:
            continue
        notes[task.slug] = equivalent_notes(task)
        try:
            found = language_for(task).mutants(task.reference_files(), cap=mutant_cap, seed=mutant_seed)
        except BadInput:
            found = []  # reported by the rule checks
        planned[task.slug] = found
        for i in range(0, len(found), _MUTANT_CHUNK):
            chunk = found[i:i + _MUTANT_CHUNK]
            units.append(_Unit(task, runs=len(chunk), mutants=chunk))

    step = Steps(sum(u.runs for u in units), progress)
    checked: dict[str, TaskValidation] = {}
    mutant_results: dict[str, list[MutantResult]] = {t.slug: [] for t in selected}

    def done(unit: _Unit, got: TaskValidation | list[MutantResult]) -> None:
        if isinstance(got, list):  # a unit of mutants
            mutant_results[unit.task.slug].extend(got)
            step(f"{unit.task.slug}: {len(got)} mutants", len(got))
        else:
            checked[unit.task.slug] = got
            step(f"{unit.task.slug}: {'ok' if got.ok else 'broken'}", unit.runs)

    with using(sandbox, min(workers, len(units))) as executor:
        languages = sorted({t.language for t in selected if t.language is not None})
        facts = executor.facts_for(languages)
        wanted = {image for lang, image in zip(suite.languages, suite.images) if lang in languages}
        repos = {tag.split(":")[0] for tag in (facts.image or "").split(",") if tag}
        if facts.backend == "docker" and repos and repos != wanted:
            raise BadInput(f"{suite.manifest_path}: the suite needs {', '.join(sorted(wanted))}, "
                           f"the sandbox has {', '.join(sorted(repos))}")
        work_on_tasks(executor, units, _validate_unit, workers=workers, run_timeout_s=run_timeout_s, on_result=done)

    reports = []
    for task in selected:
        result = checked[task.slug]
        if mutants:
            order = {m: i for i, m in enumerate(planned[task.slug])}
            results = sorted(mutant_results[task.slug], key=lambda r: order[r.mutant])
            result.mutants = summarize_mutants(results, notes[task.slug])
            if any(r.kind is RunKind.reference and r.status is not Status.passed for r in result.runs):
                result.problems.append("mutant results are meaningless: the reference itself does not pass")
        reports.append(result)
    validation = SuiteValidation(
        suite=suite.name, suite_version=suite.version, suite_hash=suite.content_hash, backend=facts.backend,
        workers=executor.slots, with_mutants=mutants, seconds=round(time.monotonic() - start, 1), tasks=reports,
    )
    if out is not None:
        write_validation(out, validation, {t.slug: t for t in selected})
    return validation


def write_validation(out: Path, validation: SuiteValidation, tasks: Mapping[str, Task]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for result in validation.tasks:
        if result.mutants is not None:
            save_survivors(out, tasks[result.slug], result.mutants)
    tmp = out / "validation.json.tmp"
    tmp.write_text(json.dumps(validation.model_dump(mode="json"), indent=2) + "\n")
    tmp.replace(out / "validation.json")
