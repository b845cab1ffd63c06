"""Java behind the language seam: javac and JUnit's Jupiter engine in the sandbox, judged
by the harness's launcher's verdict channel after the screen (testrun.py, verdict.py,
screen.py), test cases read from the test files (cases.py), mutants on the screen's tokens
(mutants.py). What the harness does not do for Java yet (the call probe, written test
suites, filling placeholders, output prediction) says so in one line."""

from __future__ import annotations

from typing import Sequence

from ...errors import BadInput
from ...sandbox.base import SandboxSession
from ...task import Task
from ..language import CallProbe, FilledSuite, ItemCalls, Language, PredictionTerms
from .cases import case_texts, declared_test_cases
from .layout import LAYOUT
from .mutants import generate_mutants
from .screen import code_tokens
from .testrun import drop_build, run_tests

_KEYWORDS = frozenset("""abstract assert boolean break byte case catch char class const continue default do double
    else enum extends final finally float for goto if implements import instanceof int interface long native new
    package private protected public return short static strictfp super switch synchronized this throw throws
    transient try void volatile while var record yield sealed permits true false null""".split())


def _not_yet(what: str) -> BadInput:
    return BadInput(f"{what} is not done for Java exercises yet")


def _code(text: str) -> list[tuple[str, str]]:
    return [(kind, token) for kind, token, _, _ in code_tokens(text)]


class Java(Language):
    layout = LAYOUT
    # Answers that are a module function of the language as it stands (signatures checked by mypy).
    run_tests = staticmethod(run_tests)
    drop_build = staticmethod(drop_build)
    declared_test_cases = staticmethod(declared_test_cases)
    case_texts = staticmethod(case_texts)
    mutants = staticmethod(generate_mutants)

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
        return [token if kind in ("word", "other") and (kind == "other" or token in _KEYWORDS) else kind
                for kind, token in _code(text)]

    def function_bodies(self, text: str) -> list[list[str]]:
        return []
