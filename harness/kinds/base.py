"""What a kind of task is, for every part of the harness that runs, trains on or reports
one (the kinds themselves and their registry: harness/kinds/__init__.py).

Every kind has a name (a run's `--kind`, a GRPO environment), the kind of task folder it
asks about (task.py's TaskKind), the GRPO data file its prompts come in, and the report
metrics it has beyond tasks solved. A kind that runs as a trial (`TrialKind`) also says
what a trial's workspace and chat files are, which prompt contract asks the model by
default, how a round is judged and which facts of the round it records. The runner asks
a kind for these; rounds, feedback and records are the same for every kind. The
judgement's test report is the round's `test_report` (for a written suite: its run on the
correct solution), so the feedback after a failed round is made from it either way."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Literal

from ..records import Record, RoundRecord, TestReport, TrialKindName
from ..sandbox.base import SandboxSession
from ..task import Task, TaskKind

# Every kind's name, the registry's keys: trial kinds (records.TrialKindName) and the
# kinds trained on only (predict).
KindName = Literal["repair", "predict", "tests"]


class RoundFacts(Record):
    """What a kind's judge found of a round beyond its test report. A RoundRecord keeps
    each field flat under the same name (the records on disk read as they always have):
    every field of a kind's facts is a field of RoundRecord."""

    def record(self, **rest) -> RoundRecord:
        """The round's record: these facts, with what every round records (`rest`)."""
        return RoundRecord(**rest, **dict(self))


@dataclass
class RoundJudgement:
    report: TestReport
    passed: bool
    facts: RoundFacts
    # Records written into the round's folder beside test_report.json, by file name.
    records: dict[str, Record] = field(default_factory=dict)


class Kind:
    """A kind by name, for training and reports."""

    name: ClassVar[KindName]
    task_kind: ClassVar[TaskKind] = "repair"   # the task folders it asks about
    grpo_file: ClassVar[str]                   # its GRPO environment's data file (train/environments.py)
    # The report's numbers of its trials beyond tasks solved (result_facts.METRICS), and of those
    # the shares a run's summary shows.
    metrics: ClassVar[tuple[str, ...]] = ()
    share_metrics: ClassVar[tuple[str, ...]] = ()


class TrialKind(Kind, ABC):
    """A kind that `harness run` runs: one task, one trial, up to `rounds` rounds."""

    name: ClassVar[TrialKindName]
    # What a run of this kind may also be asked: the model's prediction of its own test
    # results as feedback (--feedback simulated), built-in mutants as answers (mutant:S).
    simulated_feedback: ClassVar[bool] = False
    mutant_answers: ClassVar[bool] = False
    # The settings a run of this kind is given (the manifest's `tests`: --fill, --mutant-cap)
    # and records in its manifest; None for a kind that has none.
    settings_type: ClassVar[type[Record] | None] = None

    def __init__(self, settings: Record | None = None) -> None:
        # A kind without settings records none, whatever the run was given.
        self.settings: Record | None = None

    def check_task(self, task: Task) -> str | None:
        """Why this kind's trials cannot run `task`, or None."""
        if task.kind != self.task_kind:
            return f"task {task.slug} is an {task.kind} task; `harness predict eval` evaluates those"
        return None

    @abstractmethod
    def default_contract(self, profile_contract: str | None) -> str:
        """The prompt contract a run asks with when it names none (`profile_contract`: the
        agent profile's own)."""

    @abstractmethod
    def workspace(self, task: Task) -> dict[str, bytes]:
        """The files a trial's workspace starts with."""

    @abstractmethod
    def chat_files(self, task: Task) -> list[str]:
        """The files the model edits (the contract's {file_list}); a task this kind cannot
        run raises BadInput here."""

    @abstractmethod
    def read_only_files(self, task: Task) -> list[str]:
        """The files the model is shown and may not edit."""

    @abstractmethod
    def judge(self, task: Task, workspace: Path, session: SandboxSession, *, transcript: bool,
              time_limit_s: float | None) -> RoundJudgement: ...

    @abstractmethod
    def gold_answer(self, task: Task) -> tuple[dict[str, bytes], dict[str, bytes]]:
        """What the gold model answers with: (the chat files as the trial starts, as gold
        leaves them)."""
