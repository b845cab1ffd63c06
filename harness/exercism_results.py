"""A TestReport as `results.json`, version 3 of Exercism's test-runner interface
(exercism/docs, building/tooling/test-runners/interface.md): what `harness test --format
exercism` writes.

- `status`: pass (every test passed), fail (some test did not), error (no test ran: the
  build failed, the binary stopped before any test finished, or a Python test file did not
  collect, which pytest reports as an errored entry of its own, never a test: the report is
  an error and everything it holds errored); `message` only for error:
  the build's diagnostics as the report holds them, cut to the interface's 65,535 bytes.
- `tests`, in the order of the test file: `name` (as the track's own runner names the test),
  `status`, `message` where the test did not pass, `output` (what the test printed, trimmed,
  and over 500 characters cut with the interface's own message), and `test_code` and
  `task_id`, which the task's language reads from its test files (`Language.case_texts`:
  C++'s TEST_CASE body and `[task_N]` tag, Python's test function and
  `@pytest.mark.task(taskno=N)`; a Go subtest's own code by Exercism's Go runner's
  convention), never from what the run reports; a part of a case (a Go subtest) is listed
  where its case is."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from .languages.language import CaseText
from .languages.registry import language_for
from .records import Status, TestReport
from .task import Task

VERSION: Final = 3
OUTPUT_LIMIT = 500            # characters of a test's output
OUTPUT_TRUNCATED = "Output was truncated. Please limit to 500 chars"
MESSAGE_LIMIT = 65_535        # bytes of the top-level message
MESSAGE_TRUNCATED = "\n... (message truncated to 65535 bytes)"


class ExercismTest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    status: Literal["pass", "fail", "error"]
    message: str | None = None
    output: str | None = None
    test_code: str | None = None
    task_id: int | None = None


class ExercismResults(BaseModel):
    """results.json, version 3. Fields that are None are left out when written."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[3] = VERSION
    status: Literal["pass", "fail", "error"]
    message: str | None = None
    tests: list[ExercismTest] | None = None

    def to_json(self) -> str:
        return self.model_dump_json(indent=2, exclude_none=True) + "\n"


def capped_output(text: str | None) -> str | None:
    """A test's output trimmed; over OUTPUT_LIMIT characters, cut and ended with the
    interface's message so that the whole stays within the limit."""
    text = (text or "").strip()
    if not text:
        return None
    if len(text) <= OUTPUT_LIMIT:
        return text
    return text[:OUTPUT_LIMIT - len(OUTPUT_TRUNCATED) - 1].rstrip() + "\n" + OUTPUT_TRUNCATED


def capped_message(text: str) -> str:
    data = text.encode("utf-8")
    if len(data) <= MESSAGE_LIMIT:
        return text
    room = MESSAGE_LIMIT - len(MESSAGE_TRUNCATED.encode("utf-8"))
    return data[:room].decode("utf-8", errors="ignore") + MESSAGE_TRUNCATED


def _top_message(report: TestReport) -> str:
    if report.message and report.message.strip():
        return report.message.strip()
    if report.timeout:
        return "The tests timed out."
    return "No test ran."


def _declared(cases: dict[str, CaseText], name: str) -> str:
    case = cases.get(name)
    return case.part_of or name if case else name


def exercism_results(task: Task, report: TestReport) -> ExercismResults:
    """The report as results.json v3; the test file supplies test_code and the order."""
    if not report.tests or (report.status is Status.error and all(t.status is Status.error for t in report.tests)):
        return ExercismResults(status="error", message=capped_message(_top_message(report)))
    language = language_for(task)
    order = {case.name: i for i, case in enumerate(language.case_texts(task))}
    cases = language.cases_for(task, [t.name for t in report.tests])
    tests = []
    for result in sorted(report.tests, key=lambda c: order.get(_declared(cases, c.name), len(order))):
        case = cases.get(result.name)
        tests.append(ExercismTest(
            name=case.title if case else result.name, status=result.status.value,
            message=(result.message or result.status.value) if result.status is not Status.passed else None,
            output=capped_output(result.output), test_code=case.test_code if case else None,
            task_id=case.task_id if case else None,
        ))
    status = "pass" if report.passed and all(t.status == "pass" for t in tests) else "fail"
    return ExercismResults(status=status, tests=tests)
