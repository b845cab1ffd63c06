"""Filling expected values by execution. In fill mode the model writes each expected value
as the placeholder `FILL`, one side of an `==` assertion (`REQUIRE(f(12) == FILL);` in
C++, `assert f(12) == FILL` or `self.assertEqual(f(12), FILL)` in Python); the harness
runs the written suite once on the correct solution in the sandbox, reads the value the
other side had at each placeholder, and writes it in. A placeholder that cannot be filled
(never reached, reached with different values, a value with no literal) is left in place
with the reason beside it as a comment.

Each language fills its own way (`Language.fill_placeholders`): C++ through the probe
(languages/cpp/fill.py), Python on the suite's syntax tree (languages/python/fill.py)."""

from __future__ import annotations

from ..languages.language import FilledSuite, FillReport, Unfilled
from ..languages.registry import language_for
from ..sandbox.base import SandboxSession
from ..task import Task
from .written import test_file

__all__ = ["FillReport", "FilledSuite", "Unfilled", "fill_placeholders"]


def fill_placeholders(task: Task, source: bytes, session: SandboxSession) -> FilledSuite:
    """`source` with every placeholder that can be filled replaced by the correct
    solution's value, and a report; a suite without placeholders comes back unchanged."""
    return language_for(task).fill_placeholders(task, test_file(task), source, session)
