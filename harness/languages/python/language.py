"""Python behind the language seam: pytest in the sandbox with the candidate's modules behind
the proxy (testrun.py), test cases read from the test files' syntax (cases.py), mutants on
the syntax tree (mutants.py), normal forms from its tokens (normal_form.py), placeholders
filled by execution (fill.py), the probe's calls run by the harness's driver behind the same
proxy, or the task's own test cases as the verifier's checks (probe/); output prediction's
calls from the tests and values as Python literals (prediction.py), and whole programs run
on standard inputs (stdio.py)."""

from __future__ import annotations

from typing import Callable

from ...records import AssertionCount, TestReport
from ...sandbox.base import SandboxSession
from ...task import Task
from ..language import (CallProbe, Language, PredictionTerms)
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
    # Answers that are a module function of the language as it stands (signatures checked by mypy).
    run_tests = staticmethod(run_tests)
    drop_build = staticmethod(drop_build)
    declared_test_cases = staticmethod(count_declared)
    case_texts = staticmethod(case_texts)
    mutants = staticmethod(generate_mutants)
    names = staticmethod(names)
    normal_form = staticmethod(normal_form)
    fill_placeholders = staticmethod(fill_placeholders)
    comparisons = staticmethod(comparisons)
    call_probe = staticmethod(PythonCallProbe)
    item_calls = staticmethod(prediction.item_calls)
    test_calls = staticmethod(prediction.test_calls)
    default_prelude = staticmethod(default_prelude)
    run_on_stdin = staticmethod(run_on_stdin)
    code_words = staticmethod(written.code_words)
    function_bodies = staticmethod(written.function_bodies)
    suite_shape = staticmethod(written.suite_shape)
    separate = staticmethod(separate)
    traced_suite = staticmethod(traced_suite)
    trace_calls = staticmethod(trace_calls)

    def test_case_probe(self, task: Task) -> CallProbe | None:
        """The test cases, where the candidate runs behind the proxy: the test process never
        runs its code and it never reads the tests. None for a task judged in one process
        (inprocess.py), whose tests the candidate's code runs beside."""
        return None if runs_in_process(task) else TestCaseProbe(task)

    def prediction_terms(self) -> PredictionTerms:
        return prediction.TERMS

    def test_skeleton(self, task: Task, test_file: str) -> bytes:
        return written.skeleton(task.read(test_file).decode("utf-8", "replace"))

    def suite_refusals(self, task: Task, test_file: str, source: bytes) -> list[str]:
        return [str(r) for r in written.suite_refusals(source, test_file, proxied_modules(task))]

    def evaluated_assertions(self, task: Task, test_file: str, source: bytes, session: SandboxSession,
                             report: TestReport, written_for: Callable[[bytes], Task]) -> AssertionCount | None:
        return written.evaluated_assertions(task, test_file, source, session)

