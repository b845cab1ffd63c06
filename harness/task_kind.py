"""What a trial asks of the agent and what judges its rounds, by the kind of task.

- repair (the default): the agent edits the solution files, starting from the stubs; a
  round is judged by the task's own tests (its language's run_tests) and passes when they pass.
- tests: the agent writes the task's test file, with the correct solution read-only in
  the chat; a round is judged by scoring the written suite (testwriting/kind.py) and
  passes when the suite is valid.

The runner asks a kind for a trial's workspace, the files the chat edits and shows, and
each round's judgement; rounds, feedback and records are the same for every kind. The
judgement's test report is the round's `test_report` (for a written suite: its run on the
correct solution), so the feedback after a failed round is made from it either way."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from .records import Record, TestReport
from .sandbox.base import SandboxSession
from .languages.cpp.screen import screen
from .task import Task
from .languages.registry import language_for

KindName = Literal["repair", "tests"]
KINDS: tuple[str, ...] = ("repair", "tests")


@dataclass
class RoundJudgement:
    report: TestReport
    passed: bool
    # Fields of the round's RoundRecord that only this kind fills in.
    facts: dict = field(default_factory=dict)
    # Records written into the round's folder beside test_report.json, by file name.
    records: dict[str, Record] = field(default_factory=dict)


class TaskKind(Protocol):
    name: KindName

    def workspace(self, task: Task) -> dict[str, bytes]:
        """The files a trial's workspace starts with."""

    def chat_files(self, task: Task) -> list[str]:
        """The files the model edits."""

    def read_only_files(self, task: Task) -> list[str]:
        """The files the model is shown and may not edit."""

    def judge(self, task: Task, workspace: Path, session: SandboxSession, *, transcript: bool,
              time_limit_s: float | None) -> RoundJudgement: ...

    def gold_answer(self, task: Task) -> tuple[dict[str, bytes], dict[str, bytes]]:
        """What the gold model answers with: (the chat files as the trial starts, as gold
        leaves them)."""


class RepairKind:
    name: KindName = "repair"

    def workspace(self, task: Task) -> dict[str, bytes]:
        return {rel: task.read(rel) for rel in task.shipped_files}

    def chat_files(self, task: Task) -> list[str]:
        return list(task.solution_files)

    def read_only_files(self, task: Task) -> list[str]:
        return []

    def judge(self, task: Task, workspace: Path, session: SandboxSession, *, transcript: bool,
              time_limit_s: float | None) -> RoundJudgement:
        report = language_for(task).run_tests(task, workspace, session, transcript=transcript,
                                              time_limit_s=time_limit_s)
        solution = {f: (workspace / f).read_bytes() for f in task.solution_files if (workspace / f).is_file()}
        return RoundJudgement(report, report.passed, {"screen_flags": screen(solution)})

    def gold_answer(self, task: Task) -> tuple[dict[str, bytes], dict[str, bytes]]:
        return task.stub_files(), task.reference_files()
