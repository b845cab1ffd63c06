"""A task's public tests: the declared subset of its test cases that a selector or a
model simulating its own code may look at (best@k, simulated feedback), each with what the
reference does on it.

Which cases are public is decided here and nowhere else: `.meta/public.toml` (`cases =
[names]`) when the task has one; else at most DEFAULT_PUBLIC of the cases whose inputs
(their string and number literals, numbers of two digits or more) all appear in the
task's instructions, the examples a reader was shown, those with the most such inputs
first (a case that repeats several of the instructions' literals is more surely one of
its examples than one that only names a word of it); else the first DEFAULT_PUBLIC cases.

A public case is observed as a call that is the test case itself (languages/cpp/probe/cases.py), so
every case can be, whatever its shape, and a judge is shown it without its expected values
(`shown`, languages/cpp/probe/shown.py): the inputs and what is observed, never what the
test expects, which only the harness compares. Its truth is the reference's record of it, observed
twice in the sandbox: a case whose two runs differ (random values), whose records cannot
be read as a call's, or that makes more than MAX_OBSERVATIONS observations is not asked
about. The reference's records are kept per task for the
life of the process, so the trials of a run observe each task's reference once."""

from __future__ import annotations

import re
import threading
from typing import Literal

from pydantic import Field, ValidationError

from ..errors import BadInput, invalid
from ..fs import read_toml
from ..languages.cpp.probe import observe
from ..languages.cpp.probe.cases import TaskCase, case_context, task_cases
from ..languages.cpp.probe.shown import shown_cases
from ..probe.compare import call_matches
from ..records import Record
from ..sandbox import SandboxSession
from ..task import Task
from .prompt import MAX_OBSERVATIONS
from .score import PREDICTION_RULE

PUBLIC_FILE = ".meta/public.toml"
DEFAULT_PUBLIC = 3

_STRING = re.compile(r'"((?:[^"\\]|\\.)+)"')
# A one-digit number is in any text; it says nothing about which examples a reader saw.
_NUMBER = re.compile(r"(?<![\w.])-?\d\d+(?:\.\d+)?(?![\w.])")


class PublicSpec(Record):
    schema_version: Literal[1] = 1
    cases: list[str] = Field(min_length=1, description="names of the task's test cases that are public")


class PublicCase(Record):
    """A public case: what a judge is shown of it (`shown` and `prelude`, no expected value),
    what the probe runs (`call`, the case as written) and the reference's record of it
    (`expected`, compared in the harness, never shown)."""

    name: str
    call: str
    shown: str
    prelude: str
    expected: dict


def inputs(case: TaskCase) -> list[str]:
    """The literals the case feeds the code: strings and numbers (two digits or more), as written."""
    return _STRING.findall(case.body) + _NUMBER.findall(_STRING.sub('""', case.body))


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
    seen = [(i, c) for i, c in enumerate(cases) if inputs(c) and all(x in shown for x in inputs(c))]
    if not seen:
        return cases[:DEFAULT_PUBLIC]
    most = sorted(seen, key=lambda ic: (-len(set(inputs(ic[1]))), ic[0]))[:DEFAULT_PUBLIC]
    return [c for _, c in sorted(most, key=lambda ic: ic[0])]


_TRUTHS: dict[str, list[PublicCase]] = {}
_LOCKS: dict[str, threading.Lock] = {}
_LOCK = threading.Lock()


def public_truths(task: Task, session: SandboxSession) -> list[PublicCase]:
    """The public cases a judge can be asked about, with the reference's record of each
    (observed in `session` the first time a process asks about the task)."""
    key = f"{task.path.resolve()}:{task.content_hash}"
    with _LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        if key not in _TRUTHS:
            cases = public_cases(task)
            got = observe(task, task.reference_files(), [c.call for c in cases], session=session, runs=2)
            if got.status != "ok":
                raise BadInput(f"{task.slug}: the reference does not run its own tests through the probe "
                               f"({got.status}: {got.reason})")
            first = got.runs[0] if got.runs else []
            second = got.runs[1] if len(got.runs) > 1 else []
            shown = shown_cases(case_context(task), [c.source for c in cases])
            _TRUTHS[key] = [PublicCase(name=c.name, call=c.call, shown=text, prelude=shown.prelude, expected=a)
                            for c, text, a, b in zip(cases, shown.cases, first, second)
                            if a is not None and len(a["o"]) <= MAX_OBSERVATIONS and call_matches(a, b, PREDICTION_RULE)]
        return _TRUTHS[key]
