"""A test case of the task's own test file as a call: the third form of a call (calls.py),
whose observations are the assertions the case reaches.

The call's text is the case's source as the test file writes it (`TEST_CASE("name", ...)
{ ... }`). It is observed by running the task's own test file, compiled against the
recording stand-in for Catch2 (run.py), and reading the
case's records back as a call's record: each assertion reached is one outcome, in order,

    REQUIRE(a == b), CHECK(a < b), ...   {"v": a}   (the left side: the value under test)
    REQUIRE(x), REQUIRE_FALSE(x)         {"v": x}
    REQUIRE_THAT(x, matcher)             {"v": x}
    REQUIRE_THROWS..(e), REQUIRE_NOTHROW(e)
                                         {"x": type} when e threw, {"v": null} when not
    an assertion whose expression threw  {"x": type}

and an exception that escapes the case outside an assertion ends the call (`"x": type`),
as a statement that throws ends a call sequence. Control flow is the framework's but for
one thing: an assertion that does not hold does not end the case (run.py's `observe_all`),
since a model predicting the case is never shown what it compares against (shown.py); a
case with sections runs once per leaf section, so the outcomes are what a reader of the
test, tracing it, would see in order.

A case none of whose records can be read this way (an operand the probe cannot write, a
FAIL, an exception that escapes before the last record) has no call record (None).

Nothing is rewritten: loops, sections and the test file's own helpers run as the test
runs them, and every one of a task's cases is a call, whatever its shape."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..files import is_source
from ....task import Task

_CASE = re.compile(r'TEST_CASE\s*\(\s*"((?:[^"\\]|\\.)*)"[^{;]*\{')
# The track's switch for the cases after the first: emptied of its cases, it says nothing.
_RUN_ALL = re.compile(r"^[ \t]*#[ \t]*(?:if[ \t]+defined[ \t]*\(?[ \t]*EXERCISM_RUN_ALL_TESTS[ \t]*\)?|ifdef[ \t]+"
                      r"EXERCISM_RUN_ALL_TESTS)[^\n]*\s*#[ \t]*endif[^\n]*$", re.MULTILINE)


@dataclass(frozen=True)
class TaskCase:
    """One Catch2 test case of a task's test file, as written."""

    name: str
    source: str   # from TEST_CASE to the closing brace: the call's text
    body: str     # inside the braces

    @property
    def call(self) -> str:
        return self.source


def _closing(text: str, start: int) -> int | None:
    """The index of the brace closing the one opened just before `start`."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _cases_in(text: str) -> list[tuple[TaskCase, int, int]]:
    out = []
    for match in _CASE.finditer(text):
        end = _closing(text, match.end())
        if end is not None:
            out.append((TaskCase(match.group(1), text[match.start():end + 1], text[match.end():end]), match.start(),
                        end + 1))
    return out


def _test_sources(task: Task) -> list[str]:
    return [task.read(rel).decode(errors="replace") for rel in task.test_files if is_source(rel)]


def task_cases(task: Task) -> list[TaskCase]:
    """The task's test cases in file order."""
    return [case for text in _test_sources(task) for case, _, _ in _cases_in(text)]


def case_context(task: Task) -> str:
    """What the test file holds around its cases (includes, using-declarations, helpers):
    what a reader of one case needs besides the case, shown with it as the call's prelude."""
    parts = []
    for text in _test_sources(task):
        kept, at = [], 0
        for _, start, end in _cases_in(text):
            kept.append(text[at:start])
            at = end
        kept.append(text[at:])
        parts.append(_RUN_ALL.sub("", "".join(kept)))
    return re.sub(r"\n\s*\n(\s*\n)+", "\n\n", "\n\n".join(parts)).strip()


def is_case(call: str) -> bool:
    return call.lstrip().startswith("TEST_CASE")


def case_name(call: str) -> str | None:
    match = _CASE.match(call.lstrip())
    return match.group(1) if match else None


def _outcome(record: dict[str, Any]) -> dict[str, Any] | None:
    kind = record.get("k")
    if kind == "cmp":
        left = record.get("l")
        # An Approx on the left is the test's own bound, not a value of the code.
        return {"v": left} if "l" in record and not (isinstance(left, dict) and "approx" in left) else None
    if kind in ("val", "that"):
        return {"v": record["v"]} if "v" in record else None
    if kind == "throws":
        return {"x": record.get("x") or "not a std::exception"} if record.get("threw") else {"v": None}
    if kind == "nothrow":
        return {"x": record["x"]} if record.get("x") else {"v": None}
    if kind == "raised":
        return {"x": record.get("x")}
    return None


def case_record(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The case's records as a call's record, or None when they cannot be read as one."""
    outcomes, ended = [], None
    for i, record in enumerate(records):
        if record.get("k") == "escaped":
            if i != len(records) - 1:
                return None  # a section pass ended early and another began: not one sequence of outcomes
            ended = record.get("x")
            continue
        outcome = _outcome(record)
        if outcome is None:
            return None
        outcomes.append(outcome)
    if ended is not None:
        return {"o": outcomes, "x": ended}
    return {"o": outcomes} if outcomes else None
