"""Records written to disk or handed between stages. Every one carries a schema version so
a reader can refuse what it does not understand instead of misreading it."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Status(str, Enum):
    """The Exercism test-runner vocabulary: pass (all tests pass), fail (it built, some
    test failed), error (it did not build, or the run broke down as a whole)."""

    passed = "pass"
    failed = "fail"
    error = "error"


class TestCaseResult(Record):
    __test__ = False  # not a pytest class

    name: str
    status: Status
    tags: list[str] = Field(default_factory=list)
    message: str | None = None  # why it failed: the failed expression, the exception text
    output: str | None = None   # what the test printed, capped


class TestReport(Record):
    """One build-and-test of one workspace against one task, in one sandbox."""

    __test__ = False

    schema_version: Literal[1] = 1
    status: Status
    message: str | None = None  # compiler diagnostics (cleaned of sandbox paths) for error
    tests: list[TestCaseResult] = Field(default_factory=list)
    build_seconds: float = 0.0
    run_seconds: float = 0.0
    timeout: bool = False
    tampered: list[str] = Field(default_factory=list)  # protected files the workspace changed
    exit_code: int | None = None
    output: str | None = None  # the test binary's own stdout/stderr outside Catch2's capture
    output_truncated: bool = False
    backend: str = ""

    @property
    def passed(self) -> bool:
        return self.status is Status.passed

    def failing(self) -> list[TestCaseResult]:
        return [t for t in self.tests if t.status is not Status.passed]
