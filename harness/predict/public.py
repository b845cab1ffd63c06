"""A task's public tests: the declared subset of its test cases a selector may look at
before choosing among answers (best@k), and each public case as a probe call whose value a
judge can be asked to predict.

Which cases are public is decided here and nowhere else: `.meta/public.toml` (`cases =
[names]`) when the task has one; else the cases whose inputs (their string and number
literals, numbers of two digits or more) all appear in the task's instructions, the examples a reader was shown; else the
first three.

A case becomes a call (harness/probe/calls.py) by reading its body line by line: an
assertion `REQUIRE(x == y)`, `CHECK(x == y)`, `REQUIRE_THAT(x, ...)` or
`REQUIRE_THROWS_AS(x, T)` observes `x`; every other line is a statement run in order. A case
whose body does not read that way (sections, loops, helpers of the test file) has no call,
and a judge is not asked about it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from functools import cached_property

from pydantic import Field, ValidationError

from ..cpp_files import is_source
from ..errors import BadInput, invalid
from ..fs import read_toml
from ..records import Record
from ..task import Task

PUBLIC_FILE = ".meta/public.toml"
DEFAULT_PUBLIC = 3

_CASE = re.compile(r'TEST_CASE\s*\(\s*"((?:[^"\\]|\\.)*)"[^{;]*\{')
_STRING = re.compile(r'"((?:[^"\\]|\\.)+)"')
# A one-digit number is in any text; it says nothing about which examples a reader saw.
_NUMBER = re.compile(r"(?<![\w.])-?\d\d+(?:\.\d+)?(?![\w.])")
_ASSERT = re.compile(r"^(?:REQUIRE|CHECK)(?:_THAT|_THROWS_AS|_FALSE)?\s*\((.*)\)\s*;$")


class PublicSpec(Record):
    schema_version: Literal[1] = 1
    cases: list[str] = Field(min_length=1, description="names of the task's test cases that are public")


@dataclass(frozen=True)
class TaskCase:
    name: str
    body: str

    @cached_property
    def inputs(self) -> list[str]:
        """The literals the case feeds the code: strings and numbers (two digits or more), as written."""
        return _STRING.findall(self.body) + _NUMBER.findall(_STRING.sub('""', self.body))

    def call(self) -> str | None:
        """The case as a call sequence, or None when its body is not one."""
        steps, observed = [], False
        for line in self.body.splitlines():
            line = line.strip()
            if not line or line.startswith("//"):
                continue
            if line.startswith(("SECTION", "for", "while", "if", "}", "{")) or (not line.endswith((";", "{"))):
                return None
            match = _ASSERT.match(line)
            if match is None:
                steps.append(line)
                continue
            expr = _observed(match.group(1))
            if expr is None:
                return None
            steps.append(f"=> {expr}")
            observed = True
        return "\n".join(steps) if observed else None


def _split_top(text: str, sep: str) -> list[str]:
    """`text` split at `sep` where it is outside brackets and string literals."""
    parts, depth, quote, start, i = [], 0, None, 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
            i += len(sep) - 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _observed(args: str) -> str | None:
    """The expression an assertion's arguments observe: the left side of `==`, else the
    first argument."""
    first = _split_top(args, ",")[0]
    sides = _split_top(first, "==")
    return sides[0] if sides[0] else None


def _body(text: str, start: int) -> str | None:
    """The text inside the brace that opens just before `start`, or None when unbalanced."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start:i]
    return None


def task_cases(task: Task) -> list[TaskCase]:
    """The task's Catch2 test cases in file order."""
    out = []
    for rel in task.test_files:
        if not is_source(rel):
            continue
        text = task.read(rel).decode(errors="replace")
        for match in _CASE.finditer(text):
            body = _body(text, match.end())
            if body is not None:
                out.append(TaskCase(match.group(1), body))
    return out


def public_cases(task: Task) -> list[TaskCase]:
    """The task's public test cases (see the module's docstring for the rule)."""
    cases = task_cases(task)
    path = task.path / PUBLIC_FILE
    if path.is_file():
        try:
            spec = PublicSpec.model_validate(read_toml(path))
        except ValidationError as exc:
            raise invalid(exc, source=str(path)) from None
        by_name = {c.name: c for c in cases}
        unknown = next((n for n in spec.cases if n not in by_name), None)
        if unknown is not None:
            raise BadInput(f"{path}: {unknown!r} is not a test case of {task.slug}")
        return [by_name[n] for n in spec.cases]
    shown = task.instructions()
    seen = [c for c in cases if c.inputs and all(i in shown for i in c.inputs)]
    return seen or cases[:DEFAULT_PUBLIC]
