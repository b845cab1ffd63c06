"""C++ behind the language seam: CMake and Catch2 in the sandbox (testrun.py), test cases
counted by the preprocessor conditions the build sets, mutants on the lexer's tokens; in
results.json a case's `test_code` is its body dedented and its `task_id` the N of its one
`[task_N]` tag (the track's task marker), read from the test file's TEST_CASE."""

from __future__ import annotations

import re
import textwrap
from typing import Callable, Iterable, Mapping, Sequence

from ...records import AssertionCount, TestReport
from ...sandbox.base import SandboxSession
from ...task import Task
from .probe.call_probe import CppCallProbe
from .probe.cases import TaskCase, task_cases
from .catch2 import tag_names
from .cmake import relocated_build_files
from .files import headers
from .expected import comparisons, value_key
from .fill import fill_placeholders
from .testrun import declared_test_cases, drop_build, run_tests
from ..language import (CallProbe, CaseText, ItemCalls, Language, PredictionTerms,
                        ShownCalls, SuiteRuns, TestCall)
from ...probe.result import Observation
from .probe import observe
from .probe.cases import case_context
from .probe.prediction import TERMS
from .probe.shown import shown_cases
from .layout import LAYOUT
from .mutants import generate_mutants
from .normal_form import names, normal_form
from .screen import screen
from .written import CppSuiteRuns, every_assertion_goes_on, function_bodies, skeleton, words
from .lexer import code_tokens


_TASK_TAG = re.compile(r"task_(\d+)")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_INPUT_STRING = re.compile(r'"((?:[^"\\]|\\.)+)"')
# A one-digit number is in any text; it says nothing about which examples a reader saw.
_NUMBER = re.compile(r"(?<![\w.])-?\d\d+(?:\.\d+)?(?![\w.])")


def task_id(tags: Iterable[str]) -> int | None:
    """The task a test case is linked to: the N of its `[task_N]` tag when it has exactly one."""
    ids = {int(m.group(1)) for tag in tags if (m := _TASK_TAG.fullmatch(tag.strip()))}
    return ids.pop() if len(ids) == 1 else None


def _tags(case: TaskCase) -> list[str]:
    """The tags of `TEST_CASE("name", "[tags]")`: its second string."""
    header = case.source[:len(case.source) - len(case.body) - 1]
    strings = _STRING.findall(header)
    return tag_names(strings[1]) if len(strings) > 1 else []


def inputs(case: TaskCase) -> tuple[str, ...]:
    """The literals the case feeds the code: strings and numbers (two digits or more), as written."""
    return (*_INPUT_STRING.findall(case.body), *_NUMBER.findall(_INPUT_STRING.sub('""', case.body)))


def case_texts(task: Task) -> list[CaseText]:
    return [CaseText(name=case.name, title=case.name, test_code=textwrap.dedent(case.body.strip("\n")).strip(),
                     task_id=task_id(_tags(case))) for case in task_cases(task)]


class Cpp(Language):
    layout = LAYOUT
    # Answers that are a module function of the language as it stands (signatures checked by mypy).
    run_tests = staticmethod(run_tests)
    drop_build = staticmethod(drop_build)
    declared_test_cases = staticmethod(declared_test_cases)
    case_texts = staticmethod(case_texts)
    mutants = staticmethod(generate_mutants)
    names = staticmethod(names)
    normal_form = staticmethod(normal_form)
    relocated_build_files = staticmethod(relocated_build_files)
    fill_placeholders = staticmethod(fill_placeholders)
    comparisons = staticmethod(comparisons)
    value_key = staticmethod(value_key)
    call_probe = staticmethod(CppCallProbe)
    flags = staticmethod(screen)

    def compiled_with_tests(self, files: Mapping[str, bytes]) -> dict[str, bytes]:
        return {name: files[name] for name in headers(files)}

    def prediction_terms(self) -> PredictionTerms:
        return TERMS

    def item_calls(self, task: Task) -> ItemCalls:
        """The task's test cases, each shown with the test file around it."""
        return ItemCalls([(c.name, c.call) for c in task_cases(task)], prelude=case_context(task), from_cases=True)

    def observe_calls(self, task: Task, files: Mapping[str, bytes], calls: Sequence[str], session: SandboxSession, *,
                      includes: Sequence[str] = (), prelude: str = "", runs: int = 1,
                      alone: bool = False) -> Observation:
        """Driver calls, or test cases run as the task's own test file (probe.observe), or
        with `alone` in a file of these cases only."""
        return observe(task, files, calls, session=session, includes=includes, prelude=prelude, runs=runs, alone=alone)

    def test_calls(self, task: Task) -> list[TestCall]:
        """Every test case, the call being the case itself (probe/cases.py): a case of any
        shape can be observed."""
        return [TestCall(name=c.name, call=c.call, source=c.source, inputs=inputs(c)) for c in task_cases(task)]

    def shown_calls(self, task: Task, calls: Sequence[TestCall]) -> ShownCalls:
        """The cases and the test file around them without their expected values (probe/shown.py)."""
        shown = shown_cases(case_context(task), [c.source for c in calls])
        return ShownCalls(shown.prelude, shown.cases)

    def test_case_probe(self, task: Task) -> CallProbe | None:
        """None: a test file's expected values are literals compiled into the candidate's
        program, where it could copy them into what it reports."""
        return None

    def test_skeleton(self, task: Task, test_file: str) -> bytes:
        return skeleton(task.read(test_file).decode(errors="replace"))

    def code_words(self, text: str) -> list[str]:
        return words(code_tokens(text))

    def function_bodies(self, text: str) -> list[list[str]]:
        return [words(body) for body in function_bodies(text)]

    def suite_runs(self, task: Task, written: Task, session: SandboxSession) -> SuiteRuns:
        return CppSuiteRuns(self, task, written, session)

    def evaluated_assertions(self, task: Task, test_file: str, source: bytes, session: SandboxSession,
                             report: TestReport, written_for: Callable[[bytes], Task]) -> AssertionCount | None:
        """Where an assertion failed on the correct solution, the suite run again with every
        REQUIRE a CHECK: Catch2 then counts them all (a passing suite's count is whole)."""
        if report.passed or not report.built:
            return None
        goes_on = every_assertion_goes_on(source.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
        again = run_tests(written_for(goes_on), task.reference_files(), session)
        return again.assertions if again.built else None
