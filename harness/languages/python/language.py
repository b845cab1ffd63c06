"""Python behind the language seam: pytest in the sandbox with the candidate's modules behind
the proxy (testrun.py), test cases read from the test files' syntax (cases.py), mutants on
the syntax tree (mutants.py), normal forms from its tokens (normal_form.py), placeholders
filled by execution (fill.py), the probe's calls run by the harness's driver behind the same
proxy, or the task's own test cases as the verifier's checks (probe/)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from ...records import TestReport
from ...sandbox.base import SandboxSession
from ...task import Task
from ..language import CallProbe, CaseText, Comparison, FilledSuite, Language
from ..mutation import Mutant
from .layout import LAYOUT
from .cases import case_texts, count_declared
from .expected import comparisons
from .fill import fill_placeholders
from .mutants import generate_mutants
from .normal_form import names, normal_form
from .inprocess import runs_in_process
from .probe import PythonCallProbe, TestCaseProbe
from .testrun import drop_build, run_tests


class Python(Language):
    layout = LAYOUT

    def run_tests(self, task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession, *,
                  transcript: bool = False, time_limit_s: float | None = None) -> TestReport:
        return run_tests(task, workspace, session, transcript=transcript, time_limit_s=time_limit_s)

    def drop_build(self, task: Task, session: SandboxSession) -> None:
        drop_build(task, session)

    def declared_test_cases(self, task: Task) -> int:
        return count_declared(task)

    def case_texts(self, task: Task) -> list[CaseText]:
        return case_texts(task)

    def mutants(self, files: Mapping[str, bytes], *, cap: int | None = None, seed: int = 0) -> list[Mutant]:
        return generate_mutants(files, cap=cap, seed=seed)

    def names(self, text: str) -> set[str]:
        return names(text)

    def normal_form(self, text: str, keep: set[str]) -> str:
        return normal_form(text, keep)

    def fill_placeholders(self, task: Task, test_file: str, source: bytes, session: SandboxSession) -> FilledSuite:
        return fill_placeholders(task, test_file, source, session)

    def comparisons(self, text: str) -> list[Comparison]:
        return comparisons(text)

    def call_probe(self, task: Task, calls: Sequence[str], *, includes: Sequence[str] = (),
                   prelude: str | None = None) -> CallProbe:
        return PythonCallProbe(task, calls, includes=includes, prelude=prelude)

    def test_case_probe(self, task: Task) -> CallProbe | None:
        """The test cases, where the candidate runs behind the proxy: the test process never
        runs its code and it never reads the tests. None for a task judged in one process
        (inprocess.py), whose tests the candidate's code runs beside."""
        return None if runs_in_process(task) else TestCaseProbe(task)
