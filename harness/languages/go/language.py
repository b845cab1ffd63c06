"""Go behind the language seam: `go test` in the sandbox judged by the harness's verdict
channel after the screen (testrun.py, verdict.py, screen.py), test cases read from the test
files (cases.py), mutants on the screen's tokens (mutants.py); what the harness does not do
for Go yet says so in one line (screened.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ...records import TestReport
from ...sandbox.base import SandboxSession
from ...task import Task
from ..language import CaseText
from ..mutation import Mutant
from ..screened import ScreenedLanguage
from .cases import case_texts, declared_test_cases
from .layout import LAYOUT
from .mutants import generate_mutants
from .screen import tokens_or_none
from .testrun import drop_build, run_tests


class Go(ScreenedLanguage):
    layout = LAYOUT
    keywords = frozenset("break case chan const continue default defer else fallthrough for func go goto if import "
                         "interface map package range return select struct switch type var".split())

    def code(self, text: str) -> list[tuple[str, str]]:
        return [(kind, token) for kind, token, _, _ in tokens_or_none(text) or () if kind not in ("line", "block")]

    def run_tests(self, task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession, *,
                  transcript: bool = False, time_limit_s: float | None = None) -> TestReport:
        return run_tests(task, workspace, session, transcript=transcript, time_limit_s=time_limit_s)

    def drop_build(self, task: Task, session: SandboxSession) -> None:
        drop_build(task, session)

    def declared_test_cases(self, task: Task) -> int:
        return declared_test_cases(task)

    def case_texts(self, task: Task) -> list[CaseText]:
        return case_texts(task)

    def mutants(self, files: Mapping[str, bytes], *, cap: int | None = None, seed: int = 0) -> list[Mutant]:
        return generate_mutants(files, cap=cap, seed=seed)
