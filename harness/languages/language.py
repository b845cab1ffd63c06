"""The interface a language implements to be judged: one subclass per language folder
(`cpp/language.py`), found by `registry.language_for`. Above the layouts: it runs builds
in the sandbox."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Mapping

from pydantic import BaseModel, ConfigDict

from ..records import Record, TestReport
from ..sandbox.base import SandboxSession
from ..task import Task
from .base import Layout
from .mutation import Mutant


class CaseText(BaseModel):
    """One test case of a task's own test files as results.json shows it, read from the
    task (never from a run): results.json's `test_code` and `task_id` come from here."""

    model_config = ConfigDict(frozen=True)

    name: str                  # as the language's TestReport names the case
    title: str                 # as results.json names it (the track's own runner's form)
    test_code: str
    task_id: int | None = None


class Unfilled(Record):
    line: int
    why: str


class FillReport(Record):
    """What filling expected values by execution did to one written suite."""

    placeholders: int
    filled: int = 0
    unfilled: list[Unfilled] = []
    probe: str | None = None   # how the run on the correct solution ended, when it ran
    seconds: float = 0.0


@dataclass
class FilledSuite:
    source: bytes
    report: FillReport


class Language(ABC):
    """How the harness judges a language's code: a task's tests built and run in a sandbox
    session, its test cases counted from the task's own files, mutants of a solution."""

    layout: ClassVar[Layout]

    @abstractmethod
    def run_tests(self, task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession, *,
                  transcript: bool = False, time_limit_s: float | None = None) -> TestReport:
        """Build and test a workspace (see cpp/testrun.run_tests for the options' meaning)."""

    @abstractmethod
    def drop_build(self, task: Task, session: SandboxSession) -> None:
        """Free what a task's builds keep in the session (a session that goes through a
        whole suite would otherwise keep every task's)."""

    @abstractmethod
    def declared_test_cases(self, task: Task) -> int:
        """How many test cases the task's test files declare: read by the harness from the
        task, never from what the candidate's process reports."""

    @abstractmethod
    def case_texts(self, task: Task) -> list[CaseText]:
        """The test cases the task's test files declare, in the files' order, as results.json
        shows them."""

    @abstractmethod
    def mutants(self, files: Mapping[str, bytes], *, cap: int | None = None, seed: int = 0) -> list[Mutant]:
        """Mutants of the language's files among `files`, in a stable order; with `cap` a
        seeded sample of at most that many."""

    @abstractmethod
    def names(self, text: str) -> set[str]:
        """Every name in a text of the language (what a task's own files use)."""

    @abstractmethod
    def normal_form(self, text: str, keep: set[str]) -> str:
        """One file's code without what does not change what it does: comments and layout
        gone, and each name the code declares itself, but those in `keep`, replaced by its
        order of first appearance. Near-duplicate attempts share one."""

    def compiled_with_tests(self, files: Mapping[str, bytes]) -> dict[str, bytes]:
        """The files among a candidate's that the task's compiled test unit takes in (C++'s
        headers): candidates that agree on them are tested one after another, so that the
        unit is compiled once for them. Nothing where nothing is compiled."""
        return {}

    @abstractmethod
    def fill_placeholders(self, task: Task, test_file: str, source: bytes, session: SandboxSession) -> FilledSuite:
        """`source`, a written suite in place of the task's `test_file`, with each `FILL`
        placeholder that the correct solution's run fills replaced by its value, and the
        others left with the reason (testwriting/fill.py)."""
