"""Python behind the language seam: pytest in the sandbox with the candidate's modules behind
the proxy (testrun.py), test cases read from the test files' syntax (cases.py), mutants on
the syntax tree (mutants.py), normal forms from its tokens (normal_form.py), placeholders
filled by execution (fill.py), the probe's calls run by the harness's driver behind the same
proxy, or the task's own test cases as the verifier's checks (probe/); output prediction's
calls from the tests and values as Python literals (prediction.py), and whole programs run
on standard inputs (stdio.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping, Sequence

from ...records import AssertionCount, SuiteShape, TestReport
from ...sandbox.base import SandboxSession
from ...task import Task
from ..language import (CallProbe, CallTrace, CaseText, Comparison, FilledSuite, ItemCalls, Language, PredictionTerms,
                        StdinRun, TestCall, TraceLimits)
from ..mutation import Mutant
from .layout import LAYOUT
from .cases import case_texts, count_declared
from .expected import comparisons
from .fill import fill_placeholders
from .mutants import generate_mutants
from .normal_form import names, normal_form
from .inprocess import runs_in_process
from .probe import PythonCallProbe, TestCaseProbe
from .probe.calls import default_prelude
from .probe import prediction
from .probe.stdio import run_on_stdin
from .testrun import drop_build, proxied_modules, run_tests
from . import written
from .separate import separate
from .trace import trace_calls, traced_suite


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

    def prediction_terms(self) -> PredictionTerms:
        return prediction.TERMS

    def item_calls(self, task: Task) -> ItemCalls:
        return prediction.item_calls(task)

    def test_calls(self, task: Task) -> list[TestCall]:
        return prediction.test_calls(task)

    def default_prelude(self, task: Task) -> str:
        return default_prelude(task)

    def run_on_stdin(self, program: bytes, inputs: Sequence[bytes], session: SandboxSession, *, timeout_s: float,
                     stdout_bytes: int) -> list[StdinRun]:
        return run_on_stdin(program, inputs, session, timeout_s=timeout_s, stdout_bytes=stdout_bytes)

    def test_skeleton(self, task: Task, test_file: str) -> bytes:
        return written.skeleton(task.read(test_file).decode("utf-8", "replace"))

    def code_words(self, text: str) -> list[str]:
        return written.code_words(text)

    def function_bodies(self, text: str) -> list[list[str]]:
        return written.function_bodies(text)

    def suite_refusals(self, task: Task, test_file: str, source: bytes) -> list[str]:
        return [str(r) for r in written.suite_refusals(source, test_file, proxied_modules(task))]

    def suite_shape(self, source: bytes) -> SuiteShape | None:
        return written.suite_shape(source)

    def evaluated_assertions(self, task: Task, test_file: str, source: bytes, session: SandboxSession,
                             report: TestReport, written_for: Callable[[bytes], Task]) -> AssertionCount | None:
        return written.evaluated_assertions(task, test_file, source, session)

    def separate(self, task: Task, survivors: Sequence[Mutant], session: SandboxSession) -> dict[int, str]:
        return separate(task, survivors, session)

    def traced_suite(self, task: Task, source: bytes, session: SandboxSession) -> bytes | None:
        return traced_suite(task, source, session)

    def trace_calls(self, files: Mapping[str, str], calls: Sequence[str], session: SandboxSession,
                    limits: TraceLimits, where: str) -> list[CallTrace | None]:
        return trace_calls(files, calls, session, limits, where)
