"""A Go task's test cases, read from its test files (never from a run): each top-level
`func TestXxx(t *testing.T)` is one case, as `go test` reports it; its subtests are parts of
it (their failures are its message)."""

from __future__ import annotations

import re

from ...task import Task
from ..language import CaseText
from .screen import tokens_or_none

_TEST_NAME = re.compile(r"Test(?![a-z])\w*")


def _test_funcs(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) in characters of each top-level test function of a test file."""
    tokens = tokens_or_none(text)
    if tokens is None:
        return []
    found: list[tuple[str, int, int]] = []
    depth = 0
    for i, (kind, token, _line, at) in enumerate(tokens):
        if token in ("{", "(", "["):
            depth += 1
        elif token in ("}", ")", "]"):
            depth -= 1
        elif depth == 0 and token == "func" and i + 1 < len(tokens):
            name = tokens[i + 1][1]
            if tokens[i + 1][0] == "word" and _TEST_NAME.fullmatch(name) and name != "TestMain":
                found.append((name, at, _body_end(tokens, i)))
    return found


def _body_end(tokens: list[tuple[str, str, int, int]], at: int) -> int:
    depth, opened = 0, False
    for kind, token, _line, start in tokens[at:]:
        if token == "{":
            depth, opened = depth + 1, True
        elif token == "}":
            depth -= 1
            if opened and depth == 0:
                return start + 1
    return tokens[-1][3] + len(tokens[-1][1])


def case_texts(task: Task) -> list[CaseText]:
    cases: list[CaseText] = []
    for rel in task.test_files:
        text = task.read(rel).decode("utf-8", "replace")
        cases.extend(CaseText(name=name, title=name, test_code=text[start:end]) for name, start, end in _test_funcs(text))
    return cases


def declared_test_cases(task: Task) -> int:
    return len(case_texts(task))


def package_name(text: str) -> str | None:
    """The package clause's name of a Go file, or None where it has none."""
    tokens = tokens_or_none(text)
    if not tokens:
        return None
    code = [t for t in tokens if t[0] not in ("line", "block")]
    if len(code) >= 2 and code[0][1] == "package" and code[1][0] == "word":
        return code[1][1]
    return None
