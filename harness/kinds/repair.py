"""Repair, the default kind: the agent edits the solution files, starting from the stubs;
a round is judged by the task's own tests (its language's run_tests) and passes when they
pass. The static screen's flags of the round's solution are recorded beside it."""

from __future__ import annotations

from pathlib import Path

from ..contract import DEFAULT_CONTRACT
from ..languages.registry import language_for
from ..records import ScreenFlag
from ..sandbox.base import SandboxSession
from ..task import Task
from ..training_files import GRPO_FILE
from .base import RoundFacts, RoundJudgement, TrialKind


class RepairFacts(RoundFacts):
    # What the static screen found in the round's solution files: it never changes the
    # outcome, but a reader of the trial should see it.
    screen_flags: list[ScreenFlag]


class RepairKind(TrialKind):
    name = "repair"
    grpo_file = GRPO_FILE
    simulated_feedback = True
    mutant_answers = True

    def default_contract(self, profile_contract: str | None) -> str:
        return profile_contract or DEFAULT_CONTRACT

    def workspace(self, task: Task) -> dict[str, bytes]:
        return {rel: task.read(rel) for rel in task.shipped_files}

    def chat_files(self, task: Task) -> list[str]:
        # Upstream lists every Rust exercise's Cargo.toml among the solution files, but a build
        # file is the task's whatever a model writes (languages/<name>/layout.py), and Aider's
        # benchmark never gives one to the model (its ignore_files: Cargo.toml, CMakeLists.txt).
        return [f for f in task.solution_files if not task.is_build_file(f)]

    def read_only_files(self, task: Task) -> list[str]:
        return []

    def judge(self, task: Task, workspace: Path, session: SandboxSession, *, transcript: bool,
              time_limit_s: float | None) -> RoundJudgement:
        report = language_for(task).run_tests(task, workspace, session, transcript=transcript,
                                              time_limit_s=time_limit_s)
        solution = {f: (workspace / f).read_bytes() for f in task.solution_files if (workspace / f).is_file()}
        return RoundJudgement(report, report.passed, RepairFacts(screen_flags=language_for(task).flags(solution)))

    def gold_answer(self, task: Task) -> tuple[dict[str, bytes], dict[str, bytes]]:
        return ({f: data for f, data in task.stub_files().items() if not task.is_build_file(f)},
                {f: data for f, data in task.reference_files().items() if not task.is_build_file(f)})
