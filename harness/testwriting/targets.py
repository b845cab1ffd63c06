"""The broken copies of a task's solution that a written suite is scored against: the
task's faulty controls, and the mutants of its reference that compile and are not
equivalent to it by the rule EQUIVALENCE states: the task's own tests kill them, or, where
they do not, an input search tells them from the reference (Language.separate: Python's
calls the task's tests and docstring examples make, varied). A mutant neither finds is
taken as equivalent (no suite could kill it) and one that only hangs shows nothing an
assertion could catch, so both are left out: a suite's kill rate is then out of bugs that
are there to be found, and a suite that catches what the task's own tests miss earns it.

Finding the mutants means running the task's own tests against each (suite_validation's
run_mutants); that is done once per task content and mutant sample, and cached."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from ..fs import write_record
from ..languages.mutation import Mutant
from ..languages.registry import language_for
from ..paths import cache_dir
from ..records import Record
from ..sandbox.base import SandboxSession
from ..suite_validation import MutantOutcome, faulty_controls, run_mutants
from ..task import Task


class TargetKind(str, Enum):
    faulty = "faulty"
    mutant = "mutant"


EQUIVALENCE = ("a mutant is taken as equivalent to the reference unless the task's own tests kill it or an input "
               "search (the language's: for Python, the literal calls of the task's tests and docstring examples, "
               "each varied one argument at a time) makes it behave differently")


class Target(Record):
    """One broken solution: a faulty control by name, or a mutant of the reference, with
    what showed it is not equivalent (the task's tests, or the call that separates it)."""

    kind: TargetKind
    name: str
    mutant: Mutant | None = None
    found_by: Literal["task tests", "input search"] | None = None
    witness: str | None = None

    def files(self, task: Task) -> dict[str, bytes]:
        if self.mutant is not None:
            return self.mutant.apply(task.reference_files())
        return faulty_controls(task)[self.name]


class TargetSet(Record):
    schema_version: Literal[2] = 2
    slug: str
    content_hash: str  # the task's, as found
    mutant_cap: int | None
    mutant_seed: int
    generated: int           # mutants generated (or sampled)
    not_compiled: int        # left out: they do not compile
    survived: int            # the task's own tests let them through
    separated: int = 0       # ... of which the input search told from the reference: kept
    equivalence: str = EQUIVALENCE
    timed_out: int           # left out: killed only by the run timeout
    seconds: float           # sandbox time it took to sort them
    targets: list[Target]

    @property
    def mutants(self) -> int:
        return sum(t.kind is TargetKind.mutant for t in self.targets)


def _cache_path(task: Task, cap: int | None, seed: int) -> Path:
    return cache_dir() / "testwriting" / f"{task.slug}-{task.content_hash[:16]}-cap{cap or 'all'}-seed{seed}-v4.json"


def find_targets(task: Task, session: SandboxSession, *, mutant_cap: int | None = None, mutant_seed: int = 0,
                 use_cache: bool = True) -> TargetSet:
    """The task's targets, from the cache when this task content and sample were sorted
    before; otherwise its mutants are run against its own tests in `session`."""
    path = _cache_path(task, mutant_cap, mutant_seed)
    if use_cache and path.is_file():
        try:
            return TargetSet.model_validate(json.loads(path.read_text()))
        except (ValueError, ValidationError):
            pass  # a cache entry from another version: sorted again below
    language = language_for(task)
    mutants = language.mutants(task.reference_files(), cap=mutant_cap, seed=mutant_seed)
    results = run_mutants(task, mutants, session)
    survivors = [i for i, r in enumerate(results) if r.outcome is MutantOutcome.survived]
    # By the mutant's place, not its label: two mutants at one place (1 -> 0, 1 -> 2) share one.
    told = language.separate(task, [results[i].mutant for i in survivors], session)
    separated = {survivors[n]: witness for n, witness in told.items()}
    # Mutants first, in file order: a header mutant forces the test unit to recompile, and
    # C++'s mutants put the .cpp's before the .h's, so those come last together.
    targets = [Target(kind=TargetKind.mutant, name=r.mutant.label, mutant=r.mutant, found_by="task tests")
               if r.outcome is MutantOutcome.killed else
               Target(kind=TargetKind.mutant, name=r.mutant.label, mutant=r.mutant, found_by="input search",
                      witness=separated[i])
               for i, r in enumerate(results) if r.outcome is MutantOutcome.killed and not r.timeout or i in separated]
    targets += [Target(kind=TargetKind.faulty, name=name) for name in faulty_controls(task)]
    found = TargetSet(
        slug=task.slug, content_hash=task.content_hash, mutant_cap=mutant_cap, mutant_seed=mutant_seed,
        generated=len(results),
        not_compiled=sum(r.outcome is MutantOutcome.not_compiled for r in results),
        survived=sum(r.outcome is MutantOutcome.survived for r in results), separated=len(separated),
        timed_out=sum(r.outcome is MutantOutcome.killed and r.timeout for r in results),
        seconds=round(sum(r.seconds for r in results), 3), targets=targets,
    )
    if use_cache:
        write_record(path, found)
    return found
