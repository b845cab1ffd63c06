"""The interface a language implements to be judged: one subclass per language folder
(`cpp/language.py`), found by `registry.language_for`. Above the layouts: it runs builds
in the sandbox.

A language's probe (`CallProbe`) is what the verifier, output prediction and fill ask of
it: a task's calls prepared once, then run on any candidate's files in a session, giving
back each run's stream of per-call records and a status (probe/result.py); the values are
compared in the harness's process (probe/compare.py), never in the language's.

Output prediction (predict/) asks a language for the calls of a task that has no verifier
checks (`item_calls`), observes them with its probe (`observe_calls`), runs a program of the
language on a standard input (`run_on_stdin`), and speaks of its code in the language's
own terms (`prediction_terms`: the prompt's words, how a value is written in an answer and
read back)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ..probe.result import Observation, ProbeRun, call_records
from ..errors import BadInput
from ..probe.compare import AnswerForm
from ..records import AssertionCount, Record, ScreenFlag, SuiteShape, TestReport
from ..sandbox.base import SandboxSession
from ..task import Task
from .base import Layout
from .mutation import Mutant


class CaseText(BaseModel):
    """One test case of a task's own test files as results.json shows it, read from the
    task (never from a run): results.json's `test_code` and `task_id` come from here."""

    model_config = ConfigDict(frozen=True)

    name: str                  # as the language's TestReport names the case
    title: str                 # as results.json names it (the track's own runner's form)
    test_code: str
    task_id: int | None = None
    part_of: str | None = None  # the declared case a reported part of one belongs to (Go's subtests)


class Unfilled(Record):
    line: int
    why: str


class FilledValue(Record):
    """One placeholder filled: where it began in the source given (in characters) and the
    text written in its place."""

    at: int
    text: str


class FillReport(Record):
    """What filling expected values by execution did to one written suite."""

    placeholders: int
    filled: int = 0
    unfilled: list[Unfilled] = []
    values: list[FilledValue] = []  # in source order
    probe: str | None = None   # how the run on the correct solution ended, when it ran
    seconds: float = 0.0


@dataclass
class FilledSuite:
    source: bytes
    report: FillReport


class SuiteRuns:
    """A written suite run, in one session, on the correct solution and on broken copies of
    it: each a test run of the task with the written suite as its test file. A language
    whose builds can be shared between copies keeps them here (C++'s objects)."""

    def __init__(self, language: "Language", task: Task, written: Task, session: SandboxSession):
        self.language, self.task, self.written, self.session = language, task, written, session

    def prepare(self) -> None:
        """Before the first copy runs, when the correct solution does not run first."""

    def run(self, files: Mapping[str, bytes], *, reference: bool) -> tuple[TestReport, bool]:
        """The suite on `files`, and whether an earlier run's build was reused."""
        return self.language.run_tests(self.written, files, self.session), False


@dataclass(frozen=True)
class Comparison:
    """One equality assertion of a written suite, `==` or its framework's assert-equal:
    the character spans of its expected side (the value written down) and of its actual
    side (what the code computes)."""

    expected: tuple[int, int]
    actual: tuple[int, int]


class TraceLimits(Record):
    """How much of a call's run a trace keeps: line events, and characters of their text."""

    events: int = Field(gt=0)
    chars: int = Field(gt=0)


# The self-execution paper's bounds on a trace (10,000 line events, 1 MB of text).
PAPER_TRACE_LIMITS = TraceLimits(events=10_000, chars=1 << 20)


class TraceEvent(Record):
    file: str
    line: int
    changed: dict[str, str]      # local names the line changed, each value's repr (cut)


class CallTrace(Record):
    """One call's run, line by line (Language.trace_calls), and how it ended."""

    events: list[TraceEvent]
    returned: bool               # False: it raised
    value: str                   # what it returned (its repr, cut), or the exception's type
    cut: bool                    # the run went on past the limits: events after them are missing


def render_trace(trace: CallTrace, files: Mapping[str, str], limits: TraceLimits) -> str:
    """The trace as text, a line per event (the file named when the code has several), at
    most `limits.chars` characters; a trace cut by the driver or here ends saying so."""
    sources = {name: text.splitlines() for name, text in files.items()}
    named = len(sources) > 1
    out, size, cut = [], 0, trace.cut
    for e in trace.events:
        code = sources.get(e.file, [])
        text = code[e.line - 1].strip() if 0 < e.line <= len(code) else "?"
        names = ", ".join(f"{k}={v}" for k, v in e.changed.items())
        line = f"{e.file + ' ' if named else ''}line {e.line}: {text}" + (f"  {names}" if names else "")
        if size + len(line) + 1 > limits.chars:
            cut = True
            break
        out.append(line)
        size += len(line) + 1
    if cut:
        out.append(f"... (trace cut: over {limits.events} line events or {limits.chars} characters)")
    out.append(f"{'returns' if trace.returned else 'raises'} {trace.value}")
    return "\n".join(out)


class CallProbe(ABC):
    """A task's calls prepared for its language's probe, to run on one candidate after
    another. Each call's case in a run's stream is named `call <i>` and holds one record,
    `{"o": [outcome, ...]}` (plus `"x"` when a statement threw), with an outcome per
    observation (`observations`; fewer only when a statement threw)."""

    calls: list[str]
    observations: list[int]

    @abstractmethod
    def key(self, session: SandboxSession) -> str:
        """What the values observed depend on besides the task's files: the probe's runtime,
        its driver, the session's toolchain (the reference's values are cached by it)."""

    @abstractmethod
    def run(self, files: Mapping[str, bytes], session: SandboxSession, *, runs: int = 1) -> ProbeRun:
        """Run the calls `runs` times on the solution `files` (by name; protected files are
        the task's whatever they say, missing solution files its stubs)."""

    @abstractmethod
    def drop(self, session: SandboxSession) -> None:
        """Free what the probe's builds keep in the session."""

    def build_key(self, files: Mapping[str, bytes]) -> str:
        """What a run's build depends on among a candidate's files: candidates that share it,
        run one after another in a session, share a build."""
        return ""

    def observe(self, files: Mapping[str, bytes], session: SandboxSession, *, runs: int = 1) -> Observation:
        """The calls' records per run (None for a call not reached)."""
        run = self.run(files, session, runs=runs)
        return Observation(run.status, run.reason, call_records(run, len(self.calls)), run)


@dataclass
class ItemCalls:
    """The calls output prediction asks of a task without verifier checks: (where each comes
    from, the call), what the prompt shows before them (`prelude`), and whether each call is
    one of the task's own test cases (observed by running the test file, not a driver)."""

    calls: list[tuple[str, str]]
    prelude: str = ""
    from_cases: bool = False


@dataclass(frozen=True)
class TestCall:
    """One of a task's own tests as a call (`Language.test_calls`): its name as the
    language's TestReport names it, the call the probe runs, its text as written, and the
    literals it feeds the code (which predict/public.py matches against the instructions;
    none where the language reads none)."""

    name: str
    call: str
    source: str
    inputs: tuple[str, ...] = ()


@dataclass
class ShownCalls:
    """What a judge is shown of some test calls (`Language.shown_calls`): each without its
    expected values, and what the prompt shows before them."""

    prelude: str
    calls: list[str]


@dataclass(frozen=True)
class PredictionTerms:
    """How an output-prediction prompt speaks of a language's code, and how an answer writes
    the probe's values: `render` gives a value's text (None: the value has none, and is no
    item), `read` a text's value in the probe's schema (ValueError: not a value)."""

    answer: AnswerForm     # names the form in an item's comparison rule (probe/compare.py)
    fence: str             # the code block's language tag
    comment: str           # starts the line that names a file in the code block
    system: str
    format: str            # how to write the answer
    throws: str            # the word before an exception's type ("throws ", "raises ")
    render: Callable[[Any], str | None]
    read: Callable[[str], Any]


@dataclass
class StdinRun:
    """A program run on one standard input: its exit status (None: nothing of the run could
    be read back), what it wrote to standard output (at most the bound asked, `over` when it
    wrote more)."""

    exit_code: int | None
    stdout: bytes
    over: bool = False


class Language(ABC):
    """How the harness judges a language's code: a task's tests built and run in a sandbox
    session, its test cases counted from the task's own files, mutants of a solution."""

    layout: ClassVar[Layout]

    @abstractmethod
    def run_tests(self, task: Task, workspace: Path | Mapping[str, bytes], session: SandboxSession, *,
                  transcript: bool = False, time_limit_s: float | None = None) -> TestReport:
        """Build and test a workspace (see cpp/testrun.run_tests for the options' meaning)."""

    @abstractmethod
    def drop_build(self, task: Task, session: SandboxSession) -> None:
        """Free what a task's builds keep in the session (a session that goes through a
        whole suite would otherwise keep every task's)."""

    @abstractmethod
    def declared_test_cases(self, task: Task) -> int:
        """How many test cases the task's test files declare: read by the harness from the
        task, never from what the candidate's process reports."""

    @abstractmethod
    def case_texts(self, task: Task) -> list[CaseText]:
        """The test cases the task's test files declare, in the files' order, as results.json
        shows them."""

    def cases_for(self, task: Task, names: Sequence[str]) -> dict[str, CaseText]:
        """The case each test a run reported is, by name, for results.json: a declared case
        of that name; a language whose runs report parts of a case (Go's subtests) also
        says which case each part belongs to and its own code."""
        cases = {case.name: case for case in self.case_texts(task)}
        return {name: cases[name] for name in names if name in cases}

    @abstractmethod
    def mutants(self, files: Mapping[str, bytes], *, cap: int | None = None, seed: int = 0) -> list[Mutant]:
        """Mutants of the language's files among `files`, in a stable order; with `cap` a
        seeded sample of at most that many."""

    @abstractmethod
    def names(self, text: str) -> set[str]:
        """Every name in a text of the language (what a task's own files use)."""

    @abstractmethod
    def normal_form(self, text: str, keep: set[str]) -> str:
        """One file's code without what does not change what it does: comments and layout
        gone, and each name the code declares itself, but those in `keep`, replaced by its
        order of first appearance. Near-duplicate attempts share one."""

    def relocated_build_files(self, task: Task) -> dict[str, bytes]:
        """The build files a copy of `task` in a folder of another name (a repair task of it)
        needs in place of the task's own to build and test the same files; bad input where
        such a copy could not. Nothing where the build does not take names from the folder."""
        return {}

    def compiled_with_tests(self, files: Mapping[str, bytes]) -> dict[str, bytes]:
        """The files among a candidate's that the task's compiled test unit takes in (C++'s
        headers): candidates that agree on them are tested one after another, so that the
        unit is compiled once for them. Nothing where nothing is compiled."""
        return {}

    @abstractmethod
    def fill_placeholders(self, task: Task, test_file: str, source: bytes, session: SandboxSession) -> FilledSuite:
        """`source`, a written suite in place of the task's `test_file`, with each `FILL`
        placeholder that the correct solution's run fills replaced by its value, and the
        others left with the reason (testwriting/fill.py)."""

    def comparisons(self, text: str) -> list[Comparison]:
        """The equality assertions of a written suite whose sides `fill_placeholders` can
        fill (testwriting/corrected.py puts FILL on one side, then on the other), in text
        order; nothing where the language reads none or the text does not parse."""
        return []

    def value_key(self, written: str) -> str:
        """A value `fill_placeholders` wrote, without what depends on the side it stood
        for (C++ casts it to that side's type): two keys are equal when the values are."""
        return written

    @abstractmethod
    def call_probe(self, task: Task, calls: Sequence[str], *, includes: Sequence[str] = (),
                   prelude: str | None = None) -> CallProbe:
        """`calls` (text in the language's call syntax: an expression, or statements with
        `=> expression` observations) prepared for the probe; `includes` and `prelude` are
        what the calls need beside them (None: the language's default). Bad input names what
        is wrong with a call."""

    @abstractmethod
    def test_case_probe(self, task: Task) -> CallProbe | None:
        """The task's own test cases as calls, one per case in `case_texts` order, each
        observing how its case ended; None where they cannot be a verifier's checks: where
        their expected values would reach the candidate's process."""

    # Output prediction (predict/) ----------------------------------------------------------

    @abstractmethod
    def prediction_terms(self) -> PredictionTerms:
        """How a prediction prompt speaks of the language's code and writes its values."""

    @abstractmethod
    def item_calls(self, task: Task) -> ItemCalls:
        """The calls a task without verifier checks offers output prediction."""

    def default_prelude(self, task: Task) -> str:
        """What a verifier call runs after when its verifier.toml gives no prelude."""
        return ""

    def observe_calls(self, task: Task, files: Mapping[str, bytes], calls: Sequence[str], session: SandboxSession, *,
                      includes: Sequence[str] = (), prelude: str = "", runs: int = 1,
                      alone: bool = False) -> Observation:
        """`calls` (driver calls, or the task's own test cases as `item_calls` gives them)
        run on `files`; with `alone`, in a program that holds nothing of the task's tests
        but these calls (a driver holds no more here)."""
        return self.call_probe(task, calls, includes=includes, prelude=prelude).observe(files, session, runs=runs)

    def test_calls(self, task: Task) -> list[TestCall]:
        """The task's own tests that can be asked about as calls (public tests:
        predict/public.py), in the files' order; none where the language offers none."""
        return []

    def shown_calls(self, task: Task, calls: Sequence[TestCall]) -> ShownCalls:
        """What a judge is shown of `calls` (some of `test_calls`): by default each call as
        it is, which must then hold no expected value, after the default prelude."""
        return ShownCalls(self.default_prelude(task), [c.call for c in calls])

    def run_on_stdin(self, program: bytes, inputs: Sequence[bytes], session: SandboxSession, *, timeout_s: float,
                     stdout_bytes: int) -> list[StdinRun]:
        """A whole program of the language run on each input in turn, as the runner, each run
        from nothing; bad input where the language runs no such programs."""
        raise BadInput(f"{self.layout.name}: programs on a standard input are not run in this language")

    # Written test suites (testwriting/) ---------------------------------------------------

    @abstractmethod
    def test_skeleton(self, task: Task, test_file: str) -> bytes:
        """What a test writer's file starts as: the task's own test file cut before its first
        test (its imports and declarations), no test and no expected value."""

    @abstractmethod
    def code_words(self, text: str) -> list[str]:
        """The text's code as compared for copies (testwriting/embedding.py): keywords and
        punctuation as they are, names and numbers by their kind, a string's text read as the
        code it may hold."""

    @abstractmethod
    def function_bodies(self, text: str) -> list[list[str]]:
        """The code_words of each function body in the text."""

    def suite_refusals(self, task: Task, test_file: str, source: bytes) -> list[str]:
        """Why a written suite may not run at all, one reason a line (empty: it may): what
        could read the solution's text, the harness's records or the test runner's verdict
        instead of stating behaviour."""
        return []

    def suite_shape(self, source: bytes) -> SuiteShape | None:
        """The suite's diagnostics; None where the language does not read them."""
        return None

    def evaluated_assertions(self, task: Task, test_file: str, source: bytes, session: SandboxSession,
                             report: TestReport, written_for: Callable[[bytes], Task]) -> AssertionCount | None:
        """Every assertion of the suite evaluated on the correct solution, each on its own
        (a failed one does not end its test), given the suite's `report` there and how a
        task with another test file is made; None where the report's own count is whole."""
        return None

    def trace_calls(self, files: Mapping[str, str], calls: Sequence[str], session: SandboxSession,
                    limits: TraceLimits, where: str) -> list[CallTrace | None]:
        """Each call (in the language's call syntax, one expression) run on `files` with the
        lines it runs recorded (`where` names the run in the build space); None for a call
        not traced, every call where the language traces nothing."""
        return [None] * len(calls)

    def traced_suite(self, task: Task, source: bytes, session: SandboxSession) -> bytes | None:
        """The suite with the correct solution's run of each assertion's call written above
        it as comments (the trace scratchpad); None where the language traces nothing."""
        return None

    def separate(self, task: Task, survivors: Sequence[Mutant], session: SandboxSession) -> dict[int, str]:
        """Of the mutants the task's own tests miss, those an input search tells from the
        correct solution (by their place in `survivors`: labels are not unique; the separating
        call as text): not equivalent, so a
        written suite may earn credit for catching them. None where the language has none."""
        return {}

    def suite_runs(self, task: Task, written: Task, session: SandboxSession) -> SuiteRuns:
        return SuiteRuns(self, task, written, session)

    def flags(self, files: Mapping[str, bytes]) -> list[ScreenFlag]:
        """What the language's raw-text screen notes in a candidate's solution files, for a
        reader: a flag decides nothing."""
        return []
