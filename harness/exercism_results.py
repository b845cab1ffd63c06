"""A TestReport as `results.json`, version 3 of Exercism's test-runner interface
(exercism/docs, building/tooling/test-runners/interface.md): what `harness test --format
exercism` writes.

- `status`: pass (every test passed), fail (some test did not), error (no test ran: the
  build failed, or the binary stopped before any test finished); `message` only for error:
  the build's diagnostics as the report holds them, cut to the interface's 65,535 bytes.
- `tests`, in the order of the test file: `name`, `status`, `message` where the test did not
  pass, `output` (what the test printed, trimmed, and over 500 characters cut with the
  interface's own message), `test_code` (the body of the test case as the file writes it,
  dedented) and `task_id` (the N of a `[task_N]` tag, the track's task marker, when a test
  has exactly one)."""

from __future__ import annotations

import re
import textwrap
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from .languages.cpp.probe.cases import task_cases
from .records import Status, TestCaseResult, TestReport
from .task import Task

VERSION: Final = 3
OUTPUT_LIMIT = 500            # characters of a test's output
OUTPUT_TRUNCATED = "Output was truncated. Please limit to 500 chars"
MESSAGE_LIMIT = 65_535        # bytes of the top-level message
MESSAGE_TRUNCATED = "\n... (message truncated to 65535 bytes)"
_TASK_TAG = re.compile(r"task_(\d+)")


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


def task_id(case: TestCaseResult) -> int | None:
    ids = {int(m.group(1)) for tag in case.tags if (m := _TASK_TAG.fullmatch(tag.strip()))}
    return ids.pop() if len(ids) == 1 else None


def _test_code(body: str) -> str:
    return textwrap.dedent(body.strip("\n")).strip()


def _top_message(report: TestReport) -> str:
    if report.message and report.message.strip():
        return report.message.strip()
    if report.timeout:
        return "The tests timed out."
    return "No test ran."


def exercism_results(task: Task, report: TestReport) -> ExercismResults:
    """The report as results.json v3; the test file supplies test_code and the order."""
    if not report.tests:
        return ExercismResults(status="error", message=capped_message(_top_message(report)))
    cases = task_cases(task)
    code = {case.name: _test_code(case.body) for case in cases}
    order = {case.name: i for i, case in enumerate(cases)}
    tests = [ExercismTest(
        name=case.name, status=case.status.value,
        message=(case.message or case.status.value) if case.status is not Status.passed else None,
        output=capped_output(case.output), test_code=code.get(case.name), task_id=task_id(case),
    ) for case in sorted(report.tests, key=lambda c: order.get(c.name, len(order)))]
    status = "pass" if report.passed and all(t.status == "pass" for t in tests) else "fail"
    return ExercismResults(status=status, tests=tests)
