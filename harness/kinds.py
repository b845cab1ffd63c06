"""The kinds of trial by the name a run's config gives (`--kind`): repair (task_kind.py) and
test writing (testwriting/kind.py). Above both, so that neither imports the other."""

from __future__ import annotations

from .records import TestWritingSettings
from .task_kind import KindName, RepairKind, TaskKind
from .testwriting.kind import TestWritingKind


def make_kind(name: KindName, tests: TestWritingSettings | None = None) -> TaskKind:
    if name == "tests":
        return TestWritingKind(tests or TestWritingSettings())
    return RepairKind()
