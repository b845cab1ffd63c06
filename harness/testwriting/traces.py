"""Execution-trace scratchpads as training data (`harness tests export --traces`, export.py):
each valid suite of the SFT rows with the correct solution's own run of each assertion's call
written above the assertion (Language.traced_suite), answering the prompt of the trace
contract (`tests-trace` in the task's language: the request to write such traces). A
language that traces nothing gives no row, and says so."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..languages.registry import language_for
from ..sandbox.base import Sandbox, SandboxSession
from ..suite_validation import work_on_tasks
from ..task import Task
from .score import RUN_TIMEOUT_S

TRACE_CONTRACT = "tests-trace"


def traces_for(task: Task) -> str | None:
    """The trace contract of the task's language; None where its suites are not traced."""
    named = task.layout.contract(TRACE_CONTRACT)
    return None if named == TRACE_CONTRACT else named


@dataclass
class _Unit:
    index: int
    task: Task
    source: bytes


def traced_all(sandbox: Sandbox, suites: Sequence[tuple[Task, bytes]], *, workers: int = 1) -> list[bytes | None]:
    """Each (task, suite) with its traces, in warm sessions, in order of the answer; None
    where nothing came back (or the language traces nothing)."""
    found: dict[int, bytes | None] = {}
    units = [_Unit(i, task, source) for i, (task, source) in enumerate(suites) if traces_for(task) is not None]

    def handle(unit: _Unit, session: SandboxSession) -> None:
        found[unit.index] = language_for(unit.task).traced_suite(unit.task, unit.source, session)

    if units:
        work_on_tasks(sandbox, units, handle, workers=max(1, min(workers, len(units))), run_timeout_s=RUN_TIMEOUT_S)
    return [found.get(i) for i in range(len(suites))]
