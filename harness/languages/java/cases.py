"""A Java task's test cases, read from its test files (never from a run): each method
annotated `@Test` is one case, named as JUnit's console and Exercism's Java runner name it
(`methodName()`), in the file's order; `@Disabled(...)` lines go before a round as Aider's
benchmark removes them."""

from __future__ import annotations

import re
import textwrap
from pathlib import PurePosixPath

from ...task import Task
from ..language import CaseText
from ..token_screen import block_end
from .screen import code_tokens

# Aider's benchmark (run_unit_tests) runs every test: it deletes these lines first.
_DISABLED = re.compile(r"@Disabled\([^)]*\)\s*\n")


def enabled(test_source: bytes) -> bytes:
    return _DISABLED.sub("", test_source.decode("utf-8", "replace")).encode()


def test_class(rel: str) -> str:
    return PurePosixPath(rel).stem


def _test_methods(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) in characters of each `@Test` method: from its annotation to its
    body's closing brace."""
    code = code_tokens(text)
    found: list[tuple[str, int, int]] = []
    for i in range(len(code) - 1):
        if code[i][1] != "@" or code[i + 1][1] != "Test":
            continue
        j = i + 2
        while j + 1 < len(code) and not (code[j][0] == "word" and code[j + 1][1] == "("):
            j = _after_annotation(code, j) if code[j][1] == "@" else j + 1
        if j + 1 < len(code):
            found.append((code[j][1], code[i][3], block_end(code, j)))
    return found


def _after_annotation(code: list[tuple[str, str, int, int]], at: int) -> int:
    """The index after the annotation at `at` (`@Disabled("...")`, `@Tag(x)`): its
    name, and its arguments in parentheses when it has them."""
    j = at + 1
    while j + 1 < len(code) and code[j][0] == "word" and code[j + 1][1] == ".":
        j += 2
    j += 1
    if j < len(code) and code[j][1] == "(":
        depth = 0
        for k in range(j, len(code)):
            depth += {"(": 1, ")": -1}.get(code[k][1], 0)
            if depth == 0:
                return k + 1
    return j


def case_texts(task: Task) -> list[CaseText]:
    cases: list[CaseText] = []
    for rel in task.test_files:
        text = task.read(rel).decode("utf-8", "replace")
        for name, start, end in _test_methods(text):
            indent = " " * (start - (text.rfind("\n", 0, start) + 1))
            code = textwrap.dedent(indent + text[start:end])
            cases.append(CaseText(name=f"{name}()", title=f"{name}()", test_code=code))
    return cases


def declared_test_cases(task: Task) -> int:
    return len(case_texts(task))
