"""A task's public tests: the declared subset of its test cases that a selector or a
model simulating its own code may look at (best@k, simulated feedback), each with what the
reference does on it.

The tests are the language's (`Language.test_calls`): C++'s every test case, the call being
the case itself (languages/cpp/probe/cases.py), so every case can be, whatever its shape;
Python's each test function that is a call sequence or whose assertions observe calls
(languages/python/probe/prediction.py), named by its pytest node id.

Which tests are public is decided here and nowhere else: `.meta/public.toml` (`cases =
[names]`) when the task has one; else at most DEFAULT_PUBLIC of the tests whose inputs
(their string and number literals, numbers of two digits or more, as the language reads
them: Python reads none) all appear in the task's instructions, the examples a reader was
shown, those with the most such inputs first (a case that repeats several of the
instructions' literals is more surely one of its examples than one that only names a word
of it); else the first DEFAULT_PUBLIC tests.

A judge is shown a public test without its expected values (`shown`,
`Language.shown_calls`: C++ rewrites each assertion as an observation, languages/cpp/probe/shown.py;
a Python call holds none): the inputs and what is observed, never what the test expects,
which only the harness compares. Its truth is the reference's record of it, observed twice
in the sandbox: a test whose two runs differ (random values), whose records cannot be read
as a call's, that makes more than MAX_OBSERVATIONS observations, or whose values an answer
cannot write (a Python object with no literal) is not asked about. The
reference's records are kept per task for the life of the process, so the trials of a run
observe each task's reference once."""

from __future__ import annotations

import threading
from typing import Literal

from pydantic import Field, ValidationError

from ..errors import BadInput, invalid
from ..fs import read_toml
from ..languages.language import TestCall
from ..languages.registry import language_for
from ..probe.compare import AnswerForm, call_matches
from ..records import Record
from ..sandbox import SandboxSession
from ..task import Task
from .prompt import MAX_OBSERVATIONS, has_text
from .score import PREDICTION_RULE

PUBLIC_FILE = ".meta/public.toml"
DEFAULT_PUBLIC = 3


class PublicSpec(Record):
    schema_version: Literal[1] = 1
    cases: list[str] = Field(min_length=1, description="names of the task's test cases that are public")


class PublicCase(Record):
    """A public case: what a judge is shown of it (`shown` and `prelude`, no expected value),
    what the probe runs (`call`, the test as the language calls it), the reference's record
    of it (`expected`, compared in the harness, never shown) and how an answer writes its
    values (`form`, the language's prediction terms)."""

    name: str
    call: str
    shown: str
    prelude: str
    expected: dict
    form: AnswerForm = "json"


def public_cases(task: Task) -> list[TestCall]:
    """The task's public test cases (see the module's docstring for the rule)."""
    cases = language_for(task).test_calls(task)
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
    seen = [(i, c) for i, c in enumerate(cases) if c.inputs and all(x in shown for x in c.inputs)]
    if not seen:
        return cases[:DEFAULT_PUBLIC]
    most = sorted(seen, key=lambda ic: (-len(set(ic[1].inputs)), ic[0]))[:DEFAULT_PUBLIC]
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
            language = language_for(task)
            cases = public_cases(task)
            got = language.observe_calls(task, task.reference_files(), [c.call for c in cases], session,
                                         prelude=language.default_prelude(task), runs=2)
            if got.status != "ok":
                raise BadInput(f"{task.slug}: the reference does not run its own tests through the probe "
                               f"({got.status}: {got.reason})")
            first = got.runs[0] if got.runs else []
            second = got.runs[1] if len(got.runs) > 1 else []
            shown = language.shown_calls(task, cases)
            form = language.prediction_terms().answer
            _TRUTHS[key] = [PublicCase(name=c.name, call=c.call, shown=text, prelude=shown.prelude, expected=a, form=form)
                            for c, text, a, b in zip(cases, shown.calls, first, second)
                            if a is not None and len(a["o"]) <= MAX_OBSERVATIONS and call_matches(a, b, PREDICTION_RULE)
                            and has_text(a, form)]
        return _TRUTHS[key]
