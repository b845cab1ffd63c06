"""Rust behind the language seam: `cargo test` in the sandbox, judged by libtest's log and
the binaries' exit statuses after the screen (testrun.py, verdict.py, screen.py), test
cases read from the test files (cases.py), mutants on the screen's tokens (mutants.py);
what the harness does not do for Rust yet says so in one line (token_language.py)."""

from __future__ import annotations

from ..token_language import TokenLanguage
from .cases import case_texts, declared_test_cases
from .layout import LAYOUT
from .mutants import generate_mutants
from .screen import code_tokens
from .testrun import drop_build, run_tests


class Rust(TokenLanguage):
    layout = LAYOUT
    keywords = frozenset("as async await break const continue crate dyn else enum extern false fn for if impl in let "
                         "loop match mod move mut pub ref return self Self static struct super trait true type unsafe "
                         "use where while".split())
    # Answers that are a module function of the language as it stands (signatures checked by mypy).
    run_tests = staticmethod(run_tests)
    drop_build = staticmethod(drop_build)
    declared_test_cases = staticmethod(declared_test_cases)
    case_texts = staticmethod(case_texts)
    mutants = staticmethod(generate_mutants)

    def code(self, text: str) -> list[tuple[str, str]]:
        return [(kind, token) for kind, token, _, _ in code_tokens(text)]
