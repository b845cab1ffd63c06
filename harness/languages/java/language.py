"""Java behind the language seam: javac and JUnit's Jupiter engine in the sandbox, judged
by the harness's launcher's verdict channel after the screen (testrun.py, verdict.py,
screen.py), test cases read from the test files (cases.py), mutants on the screen's tokens
(mutants.py); what the harness does not do for Java yet says so in one line (token_language.py)."""

from __future__ import annotations

from ..token_language import TokenLanguage
from .cases import case_texts, declared_test_cases
from .layout import LAYOUT
from .mutants import generate_mutants
from .screen import code_tokens
from .testrun import drop_build, run_tests


class Java(TokenLanguage):
    layout = LAYOUT
    keywords = frozenset("""abstract assert boolean break byte case catch char class const continue default do double else enum
        extends final finally float for goto if implements import instanceof int interface long native new
        package private protected public return short static strictfp super switch synchronized this throw
        throws transient try void volatile while var record yield sealed permits true false null""".split())
    # Answers that are a module function of the language as it stands (signatures checked by mypy).
    run_tests = staticmethod(run_tests)
    drop_build = staticmethod(drop_build)
    declared_test_cases = staticmethod(declared_test_cases)
    case_texts = staticmethod(case_texts)
    mutants = staticmethod(generate_mutants)

    def code(self, text: str) -> list[tuple[str, str]]:
        return [(kind, token) for kind, token, _, _ in code_tokens(text)]
