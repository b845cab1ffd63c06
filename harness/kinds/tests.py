"""Test writing: the agent writes the task's test file, starting from its skeleton
(testwriting/written.py), with the correct solution in the chat, read-only; each round's
suite is scored (testwriting/score.py) and the round passes when it is valid and does not
embed the reference (testwriting/embedding.py: such a round's test report fails, saying why).

The solution the suite is scored on is always the task's reference, whatever the
workspace holds: a model that edits the read-only solution files is flagged as tampering
(as a repair model editing the tests is), and its edits are not used. With `fill`, the
written suite's placeholders are filled in first from the correct solution (testwriting/fill.py)."""

from __future__ import annotations

from pathlib import Path

from ..contract import TESTS_CONTRACT, TESTS_FILL_CONTRACT
from ..records import Status, SuiteShape, TestWritingSettings
from ..result_facts import METRICS, SHARE_COLUMNS
from ..sandbox.base import SandboxSession
from ..task import Task
from ..testwriting.export import GRPO_FILE
from ..testwriting.score import TargetPool, score_with_report
from ..testwriting.written import skeleton, start_files, test_file
from .base import RoundFacts, RoundJudgement, TrialKind

SCORE_FILE = "scored_suite.json"


class TestsFacts(RoundFacts):
    """A written suite's score (testwriting/score.py): it compiles and holds on the
    correct solution; the share of its assertions that hold there; the share of the broken
    solutions it catches (a valid suite's only); whether it holds a copy of the reference's
    code (counted apart in reports and comparisons, never a pass)."""

    __test__ = False
    valid: bool
    assertion_accuracy: float | None
    kill_rate: float | None
    embeds_reference: bool
    suite_shape: SuiteShape | None = None


class TestWritingKind(TrialKind):
    __test__ = False
    name = "tests"
    grpo_file = GRPO_FILE
    metrics = METRICS
    share_metrics = SHARE_COLUMNS
    settings_type = TestWritingSettings

    def __init__(self, settings: TestWritingSettings | None = None):
        self.scoring = settings or TestWritingSettings()
        self.settings = self.scoring
        self.targets = TargetPool(self.scoring.mutant_cap, self.scoring.mutant_seed)

    def default_contract(self, profile_contract: str | None) -> str:
        return TESTS_FILL_CONTRACT if self.scoring.fill else TESTS_CONTRACT

    def workspace(self, task: Task) -> dict[str, bytes]:
        return start_files(task)

    def chat_files(self, task: Task) -> list[str]:
        return [test_file(task)]

    def read_only_files(self, task: Task) -> list[str]:
        return list(task.solution_files)

    def judge(self, task: Task, workspace: Path, session: SandboxSession, *, transcript: bool,
              time_limit_s: float | None) -> RoundJudgement:
        path = workspace / test_file(task)
        source = path.read_bytes() if path.is_file() else b""
        scored, report = score_with_report(task, source, session, lambda: self.targets.get(task, session),
                                           fill=self.scoring.fill)
        reference = task.reference_files()
        report.tampered = sorted(set(report.tampered) | {
            f for f in task.solution_files if (workspace / f).is_file() and (workspace / f).read_bytes() != reference.get(f)})
        facts = TestsFacts(valid=scored.valid, assertion_accuracy=scored.assertion_accuracy, kill_rate=scored.kill_rate,
                           embeds_reference=scored.embeds_reference, suite_shape=scored.shape)
        if scored.embeds_reference:
            # Scored as it is, but not a pass: a copy of the reference tests nothing it states.
            why = (f"The test file holds a copy of the solution's own code ({scored.reference_similarity:.0%} of one "
                   "of its function bodies): a suite must state the behaviour it expects, not compare the code with "
                   "a copy of itself.")
            report = report.model_copy(update={"status": Status.failed, "message": why, "transcript": why})
        return RoundJudgement(report, scored.valid and not scored.embeds_reference, facts, {SCORE_FILE: scored})

    def gold_answer(self, task: Task) -> tuple[dict[str, bytes], dict[str, bytes]]:
        written = test_file(task)
        return {written: skeleton(task)}, {written: task.read(written)}
