"""JavaScript behind the language seam: Jest in the sandbox as Aider's benchmark runs it,
judged by the harness's reporter (testrun.py, verdict.py), test cases read from the spec
files (cases.py), mutants on tokens (mutants.py). What the harness does not do for
JavaScript yet (the call probe, written test suites, filling placeholders, output
prediction) says so in one line."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from ...errors import BadInput
from ...records import TestReport
from ...sandbox.base import SandboxSession
from ...task import Task
from ..language import CallProbe, CaseText, FilledSuite, ItemCalls, Language, PredictionTerms
from ..mutation import Mutant
from .cases import case_texts, declared_test_cases
from .layout import LAYOUT
from .mutants import generate_mutants
from .testrun import drop_build, run_tests
from .tokens import code, tokens

_KEYWORDS = frozenset("await break case catch class const continue debugger default delete do else export extends "
                      "false finally for function if import in instanceof let new null of return static super switch "
                      "this throw true try typeof undefined var void while with yield async get set".split())


def _not_yet(what: str) -> BadInput:
    return BadInput(f"{what} is not done for JavaScript exercises yet")


def _code(text: str) -> list[tuple[str, str]]:
    return [(kind, token) for kind, token, _ in code(tokens(text) or [])]


class JavaScript(Language):
    layout = LAYOUT

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

    def names(self, text: str) -> set[str]:
        return {token for kind, token in _code(text) if kind == "word" and token not in _KEYWORDS}

    def normal_form(self, text: str, keep: set[str]) -> str:
        order: dict[str, str] = {}
        out = []
        for kind, token in _code(text):
            if kind == "word" and token not in _KEYWORDS and token not in keep:
                token = order.setdefault(token, f"n{len(order)}")
            out.append(token)
        return " ".join(out)

    def fill_placeholders(self, task: Task, test_file: str, source: bytes, session: SandboxSession) -> FilledSuite:
        raise _not_yet("filling a written suite's placeholders")

    def call_probe(self, task: Task, calls: Sequence[str], *, includes: Sequence[str] = (),
                   prelude: str | None = None) -> CallProbe:
        raise _not_yet("the call probe")

    def test_case_probe(self, task: Task) -> CallProbe | None:
        return None

    def prediction_terms(self) -> PredictionTerms:
        raise _not_yet("output prediction")

    def item_calls(self, task: Task) -> ItemCalls:
        raise _not_yet("output prediction")

    def test_skeleton(self, task: Task, test_file: str) -> bytes:
        raise _not_yet("writing test suites")

    def code_words(self, text: str) -> list[str]:
        return [token if kind == "other" or (kind == "word" and token in _KEYWORDS) else kind
                for kind, token in _code(text)]

    def function_bodies(self, text: str) -> list[list[str]]:
        return []
