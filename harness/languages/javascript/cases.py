"""A JavaScript task's test cases, read from its spec files (never from a run): each
`test(...)`/`it(...)` call (`xtest`, `xit`, `.skip`/`.only`/`.each`-less forms included) with
a literal title is one case, named as Jest's results and Exercism's runner name it: the
titles of the `describe` blocks around it and its own, joined by " > "."""

from __future__ import annotations

import re

from ...task import Task
from ..language import CaseText
from .tokens import Token, code, tokens

_TESTS = frozenset({"test", "it", "xtest", "xit", "fit"})
_BLOCKS = frozenset({"describe", "xdescribe", "fdescribe"})
_MODIFIERS = frozenset({"skip", "only", "failing", "concurrent"})
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0", "\n": ""}


def literal(token: Token) -> str | None:
    """The value of a string literal or of a template without `${}`; None for anything else."""
    kind, text, _ = token
    if kind == "template" and text.startswith("`") and text.endswith("`") and len(text) > 1:
        body = text[1:-1]
    elif kind == "string":
        body = text[1:-1]
    else:
        return None
    return re.sub(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)", _unescape, body, flags=re.S)


def _unescape(m: re.Match[str]) -> str:
    e = m.group(1)
    if e[0] in "ux" and len(e) > 1:
        return chr(int(e[1:].strip("{}"), 16))
    return _ESCAPES.get(e, e)


def _call(toks: list[Token], i: int) -> tuple[str, int] | None:
    """('test' or 'describe', index of its `(`) where a test or describe call starts at i."""
    kind, name, _ = toks[i]
    if kind != "word" or (name not in _TESTS and name not in _BLOCKS):
        return None
    if i > 0 and toks[i - 1][1] in (".", "?.", "function"):
        return None
    j = i + 1
    while j + 1 < len(toks) and toks[j][1] == "." and toks[j + 1][1] in _MODIFIERS:
        j += 2
    if j < len(toks) and toks[j][1] == "(":
        return ("test" if name in _TESTS else "describe"), j
    return None


def _close(toks: list[Token], at: int) -> int:
    """The index of the bracket that closes the one at `at`."""
    depth = 0
    for j in range(at, len(toks)):
        if toks[j][1] in ("(", "[", "{"):
            depth += 1
        elif toks[j][1] in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def spec_cases(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) in characters of each test call of a spec file, in file order."""
    toks = tokens(text)
    if toks is None:
        return []
    toks = code(toks)
    found: list[tuple[str, int, int]] = []
    blocks: list[tuple[str, int]] = []  # the open describe blocks: title, index of their `)`
    for i in range(len(toks)):
        while blocks and i > blocks[-1][1]:
            blocks.pop()
        call = _call(toks, i)
        if call is None or call[1] + 1 >= len(toks):
            continue
        kind, paren = call
        title = literal(toks[paren + 1])
        if title is None:
            continue
        end = _close(toks, paren)
        if kind == "describe":
            blocks.append((title, end))
        else:
            name = " > ".join([b for b, _ in blocks] + [title])
            found.append((name, toks[i][2], toks[end][2] + 1))
    return found


def case_texts(task: Task) -> list[CaseText]:
    cases: list[CaseText] = []
    for rel in task.test_files:
        text = task.read(rel).decode("utf-8", "replace")
        cases.extend(CaseText(name=name, title=name, test_code=text[start:end]) for name, start, end in spec_cases(text))
    return cases


def declared_test_cases(task: Task) -> int:
    return len(case_texts(task))
