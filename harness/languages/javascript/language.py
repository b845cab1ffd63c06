"""JavaScript behind the language seam: Jest in the sandbox as Aider's benchmark runs it,
judged by the harness's reporter (testrun.py, verdict.py), test cases read from the spec
files (cases.py), mutants on tokens (mutants.py); what the harness does not do for
JavaScript yet says so in one line (token_language.py)."""

from __future__ import annotations

from ..token_language import TokenLanguage
from .cases import case_texts, declared_test_cases
from .layout import LAYOUT
from .mutants import generate_mutants
from .testrun import drop_build, run_tests
from .tokens import code, tokens


class JavaScript(TokenLanguage):
    layout = LAYOUT
    keywords = frozenset("await break case catch class const continue debugger default delete do else export extends "
                         "false finally for function if import in instanceof let new null of return static super switch "
                         "this throw true try typeof undefined var void while with yield async get set".split())
    # Answers that are a module function of the language as it stands (signatures checked by mypy).
    run_tests = staticmethod(run_tests)
    drop_build = staticmethod(drop_build)
    declared_test_cases = staticmethod(declared_test_cases)
    case_texts = staticmethod(case_texts)
    mutants = staticmethod(generate_mutants)

    def code(self, text: str) -> list[tuple[str, str]]:
        return [(kind, token) for kind, token, _ in code(tokens(text) or [])]
