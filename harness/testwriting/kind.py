"""Test writing as a kind of trial (task_kind.py): the agent writes the task's test file,
starting from its skeleton (written.skeleton), with the correct solution in the chat,
read-only; each round's suite is scored (score.py) and the round passes when it is valid
and does not embed the reference (embedding.py: such a round's test report fails, saying why).

The solution the suite is scored on is always the task's reference, whatever the
workspace holds: a model that edits the read-only solution files is flagged as tampering
(as a repair model editing the tests is), and its edits are not used. With `fill`, the
written suite's placeholders are filled in first from the correct solution (fill.py)."""

from __future__ import annotations

from pathlib import Path

from ..records import Status, TestWritingSettings
from ..sandbox.base import SandboxSession
from ..task import Task
from ..task_kind import KindName, RoundJudgement
from .score import TargetPool, score_with_report
from .written import skeleton, with_written_tests

SCORE_FILE = "scored_suite.json"


class TestWritingKind:
    __test__ = False
    name: KindName = "tests"

    def __init__(self, settings: TestWritingSettings):
        self.settings = settings
        self.targets = TargetPool(settings.mutant_cap, settings.mutant_seed)

    def test_file(self, task: Task) -> str:
        return with_written_tests(task, b"").test_file

    def workspace(self, task: Task) -> dict[str, bytes]:
        files = {rel: task.read(rel) for rel in task.shipped_files}
        files.update(task.reference_files())
        files[self.test_file(task)] = skeleton(task)
        return files

    def chat_files(self, task: Task) -> list[str]:
        return [self.test_file(task)]

    def read_only_files(self, task: Task) -> list[str]:
        return list(task.solution_files)

    def judge(self, task: Task, workspace: Path, session: SandboxSession, *, transcript: bool,
              time_limit_s: float | None) -> RoundJudgement:
        path = workspace / self.test_file(task)
        source = path.read_bytes() if path.is_file() else b""
        scored, report = score_with_report(task, source, session, lambda: self.targets.get(task, session),
                                           fill=self.settings.fill)
        reference = task.reference_files()
        report.tampered = sorted(set(report.tampered) | {
            f for f in task.solution_files if (workspace / f).is_file() and (workspace / f).read_bytes() != reference.get(f)})
        facts = dict(valid=scored.valid, assertion_accuracy=scored.assertion_accuracy, kill_rate=scored.kill_rate,
                     embeds_reference=scored.embeds_reference)
        if scored.embeds_reference:
            # Scored as it is, but not a pass: a copy of the reference tests nothing it states.
            why = (f"The test file holds a copy of the solution's own code ({scored.reference_similarity:.0%} of one "
                   "of its function bodies): a suite must state the behaviour it expects, not compare the code with "
                   "a copy of itself.")
            report = report.model_copy(update={"status": Status.failed, "message": why, "transcript": why})
        return RoundJudgement(report, scored.valid and not scored.embeds_reference, facts, {SCORE_FILE: scored})

    def gold_answer(self, task: Task) -> tuple[dict[str, bytes], dict[str, bytes]]:
        test_file = self.test_file(task)
        return {test_file: skeleton(task)}, {test_file: task.read(test_file)}
