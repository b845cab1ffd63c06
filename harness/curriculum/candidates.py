"""Where candidate repair exercises come from: the failed rounds of runs, read from their
run folders, or mutants of a suite's references. A candidate is the starting code (every
solution file), the failure it showed, and its origin; its fate is recorded on it."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from ..file_names import refusal
from ..hashing import sha256_json
from ..hold_out import HoldOut
from ..languages.mutation import Mutant
from ..languages.registry import language_for
from ..records import TestReport
from ..store import RunFolder
from ..suite import Suite, suite_of_run
from ..task import Task
from .normalize import interface_names, normalized_hash
from .records import CandidateRecord, DropReason, MutantOrigin, RunOrigin, RunSource
from .taxonomy import Failure, FailureKind, classify


@dataclass
class Candidate:
    suite: str
    slug: str
    task: Task | None                # the suite task (None when the suite no longer has it)
    origin: RunOrigin | MutantOrigin
    files: dict[str, bytes] = field(default_factory=dict)  # the starting code
    expected: TestReport | None = None  # the failure as recorded
    failure: Failure | None = None
    normalized_hash: str | None = None
    mutant: Mutant | None = None     # for synth: the mutant that made the starting code
    controls: list[Mutant] = field(default_factory=list)  # mutants of the reference that must fail
    dropped: DropReason | None = None
    why: str | None = None
    kept_as: str | None = None

    @property
    def source_task(self) -> str:
        return f"{self.suite}/{self.slug}"

    @property
    def key(self) -> tuple:
        """A stable order for candidates, independent of how they were found."""
        o = self.origin
        if isinstance(o, RunOrigin):
            return (self.source_task, 0, o.run_id, o.config, o.trial, o.round, "", 0)
        return (self.source_task, 1, "", "", 0, 0, o.file, o.start, o.operator, o.replacement)

    @property
    def live_task(self) -> Task:
        """The suite task; asked only of a live candidate: one whose task is gone was dropped."""
        assert self.task is not None, f"{self.source_task}: a candidate without its task"
        return self.task

    @property
    def live_expected(self) -> TestReport:
        """The recorded failure; asked only of a live candidate, which was found with it."""
        assert self.expected is not None, f"{self.source_task}: a candidate without its report"
        return self.expected

    @property
    def kind(self) -> FailureKind:
        """The failure's kind; asked only of a live candidate, which describe_failure classified."""
        assert self.failure is not None, f"{self.source_task}: a candidate not described"
        return self.failure.kind

    def drop(self, reason: DropReason, why: str | None = None) -> None:
        self.dropped, self.why = reason, why

    def record(self) -> CandidateRecord:
        return CandidateRecord(
            source_task=self.source_task, kind=self.failure.kind if self.failure else None, origin=self.origin,
            normalized_hash=self.normalized_hash, kept_as=self.kept_as, dropped=self.dropped, why=self.why,
        )


def report_hash(report: TestReport) -> str:
    return sha256_json(report.model_dump(mode="json"))


def interface(task: Task) -> set[str]:
    """The names the task's own files use (stub and tests): kept by the normal form."""
    return interface_names(language_for(task), [*task.stub_files().values(), *(task.read(f) for f in task.test_files)])


def describe_failure(c: Candidate) -> None:
    """Classify the recorded failure and hash the starting code's normal form."""
    assert c.expected is not None  # a candidate is described once found with its report
    c.failure = classify(c.expected)
    c.normalized_hash = normalized_hash(language_for(c.live_task), c.files, interface(c.live_task))


# --- from runs -----------------------------------------------------------------------------


def open_run(ref: str, runs_dir: Path) -> RunFolder:
    """A run by the path of its folder or by its id under runs_dir."""
    path = Path(ref)
    if (path / "manifest.json").is_file():
        return RunFolder(path)
    return RunFolder.open(runs_dir, ref)


def starting_code(task: Task, workspace: Path) -> dict[str, bytes]:
    """The solution files as the sandbox built them: the workspace's, or the stub's where
    the workspace has none (staging.stage_files does the same: a link, or a file behind
    one, is not the workspace's and is never read)."""
    stubs = task.stub_files()
    out = {}
    for rel in task.solution_files:
        path = workspace / rel
        if refusal(rel, root=workspace) is None and path.is_file():
            out[rel] = path.read_bytes()
        elif rel in stubs:
            out[rel] = stubs[rel]
    return out


def from_run(folder: RunFolder, hold_out: HoldOut) -> tuple[RunSource, Suite, list[Candidate]]:
    """Every round of every finished trial whose tests failed, in run order, with the run
    and the suite it ran."""
    manifest = folder.read_manifest()
    suite = suite_of_run(manifest)
    source = RunSource(run_id=manifest.run_id, run_dir=str(folder.root), suite=manifest.suite,
                       suite_hash=manifest.suite_hash)
    known = {t.slug: t for t in suite.tasks}
    out: list[Candidate] = []
    for cfg in manifest.configs:
        for slug in manifest.tasks:
            for trial in range(1, manifest.trials + 1):
                result = folder.read_result(cfg.name, slug, trial)
                if result is None:
                    continue
                for rnd in result.rounds:
                    report = rnd.test_report
                    if report is None or report.passed:
                        continue
                    origin = RunOrigin(run_id=manifest.run_id, config=cfg.name, model=result.model, task=slug,
                                       trial=trial, round=rnd.round, test_report_hash=report_hash(report))
                    task = known.get(slug)
                    c = Candidate(suite=manifest.suite, slug=slug, task=task, origin=origin, expected=report)
                    out.append(c)
                    if f"{manifest.suite}/{slug}" in hold_out:
                        c.drop(DropReason.held_out)
                    elif task is None or task.content_hash != result.task_hash:
                        c.drop(DropReason.task_changed, f"{suite.path}: task {slug} is not the one run {manifest.run_id} used")
                    else:
                        workspace = folder.trial_dir(cfg.name, slug, trial) / f"round-{rnd.round}" / "workspace"
                        if not workspace.is_dir():
                            c.drop(DropReason.no_snapshot, str(workspace))
                            continue
                        c.files = starting_code(task, workspace)
                        if c.files == task.stub_files():
                            c.drop(DropReason.unedited)
                        else:
                            describe_failure(c)
    return source, suite, out


# --- from mutants --------------------------------------------------------------------------


def screening_order(task: Task, seed: int) -> list[Mutant]:
    """Every mutant of the task's reference, in an order drawn with the seed (so screening a
    prefix samples them), the same for the same task and seed."""
    mutants = language_for(task).mutants(task.reference_files())
    random.Random(f"{seed}:{task.slug}").shuffle(mutants)
    return mutants


def mutant_origin(m: Mutant) -> MutantOrigin:
    return MutantOrigin(**m.model_dump(mode="json"))


def from_mutant(suite: str, task: Task, m: Mutant, report: TestReport) -> Candidate:
    c = Candidate(suite=suite, slug=task.slug, task=task, origin=mutant_origin(m), files=m.apply(task.reference_files()),
                  expected=report, mutant=m)
    if report.passed:
        c.drop(DropReason.mutant_survived)
    elif not report.built:
        c.drop(DropReason.mutant_not_compiled, classify(report).detail)
    else:
        describe_failure(c)
    return c


def select_kinds(candidates: list[Candidate], kinds: list[FailureKind] | None) -> None:
    if kinds is None:
        return
    wanted = set(kinds)
    for c in candidates:
        if c.dropped is None and c.kind not in wanted:
            c.drop(DropReason.kind_not_selected, c.kind.value)
