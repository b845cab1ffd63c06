"""Go behind the language seam: `go test` in the sandbox judged by the harness's verdict
channel after the screen (testrun.py, verdict.py, screen.py), test cases read from the test
files (cases.py), mutants on the screen's tokens (mutants.py); what the harness does not do
for Go yet says so in one line (token_language.py)."""

from __future__ import annotations

from ..token_language import TokenLanguage
from .cases import case_texts, cases_for, declared_test_cases
from ..token_screen import without_comments
from .layout import LAYOUT
from .mutants import generate_mutants
from .screen import tokens_or_none
from .testrun import drop_build, run_tests


class Go(TokenLanguage):
    layout = LAYOUT
    keywords = frozenset("break case chan const continue default defer else fallthrough for func go goto if import "
                         "interface map package range return select struct switch type var".split())
    # Answers that are a module function of the language as it stands (signatures checked by mypy).
    run_tests = staticmethod(run_tests)
    drop_build = staticmethod(drop_build)
    declared_test_cases = staticmethod(declared_test_cases)
    case_texts = staticmethod(case_texts)
    cases_for = staticmethod(cases_for)
    mutants = staticmethod(generate_mutants)

    def code(self, text: str) -> list[tuple[str, str]]:
        return [(kind, token) for kind, token, _, _ in without_comments(tokens_or_none(text))]
