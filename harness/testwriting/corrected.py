"""Correcting a written suite's expected values by execution: the model's own suite with
each wrong expected value replaced by the value the correct solution gives, for SFT rows
(`harness tests export --corrected`, export.py) that teach the model's own tests with right
answers.

Each equality assertion the language reads (`Language.comparisons`) has an expected side
and an actual side. The suite is filled twice by the language's fill-by-execution
(testwriting/fill.py), both runs on the correct solution: once with every expected side
made `FILL` (what each actual side computes), once with every actual side made `FILL` (what
each expected side is). An assertion whose two values differ is wrong; only its expected
side is rewritten, in the suite's own spelling of that value where another assertion's
expected side spells it (`perfect_numbers::classification::abundant`), else as fill wrote
it (C++ then needs fill's prelude ahead of the suite). Everything else stays as the model
wrote it. A suite none of whose compared values is wrong is invalid for another reason and
is not corrected; one whose values cannot all be filled (never reached, reached with
different values, no literal) is not either. Whether the corrected suite is valid is the
caller's to check, by scoring it (export.py does)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..languages.language import Comparison, FilledSuite
from ..languages.registry import language_for
from ..sandbox.base import Sandbox, SandboxSession
from ..suite_validation import work_on_tasks
from ..task import Task
from .score import RUN_TIMEOUT_S
from .written import test_file

PLACEHOLDER = "FILL"


@dataclass(frozen=True)
class Corrected:
    source: bytes
    replaced: int      # wrong expected values rewritten
    comparisons: int   # equality assertions compared


@dataclass(frozen=True)
class NotCorrected:
    why: str


def _with_placeholders(text: str, spans: list[tuple[int, int]]) -> tuple[str, list[int]]:
    """`text` with each span (in order, not overlapping) made FILL, and where each FILL begins."""
    out, starts, at = [], [], 0
    for start, end in spans:
        out.append(text[at:start])
        starts.append(sum(map(len, out)))
        out.append(PLACEHOLDER)
        at = end
    out.append(text[at:])
    return "".join(out), starts


def _values(filled: FilledSuite, starts: list[int], side: str) -> list[str] | NotCorrected:
    report = filled.report
    if report.unfilled:
        first = report.unfilled[0]
        return NotCorrected(f"the {side} side on line {first.line} could not be filled: {first.why}")
    by_start = {v.at: v.text for v in report.values}
    if set(by_start) != set(starts):
        return NotCorrected(f"the fill of the {side} sides did not fill every one")
    return [by_start[s] for s in starts]


def _prelude(filled: FilledSuite, text: str, starts: list[int], values: list[str]) -> str | NotCorrected:
    """What fill put ahead of the suite (C++'s helpers for the values it writes)."""
    rebuilt, at = [], 0
    for start, value in zip(starts, values):
        rebuilt.append(text[at:start] + value)
        at = start + len(PLACEHOLDER)
    rebuilt.append(text[at:])
    whole = filled.source.decode("utf-8", "surrogateescape")
    body = "".join(rebuilt)
    if not whole.endswith(body):
        return NotCorrected("the filled suite is not the suite with its values written in")
    return whole[:len(whole) - len(body)]


def correct_values(task: Task, source: bytes, session: SandboxSession) -> Corrected | NotCorrected:
    language = language_for(task)
    text = source.decode("utf-8", "surrogateescape")
    found: list[Comparison] = language.comparisons(text)
    if not found:
        return NotCorrected("no equality assertion to correct")
    name = test_file(task)
    computed_text, computed_at = _with_placeholders(text, [c.expected for c in found])
    computed_fill = language.fill_placeholders(task, name, computed_text.encode("utf-8", "surrogateescape"), session)
    computed = _values(computed_fill, computed_at, "expected")
    if isinstance(computed, NotCorrected):
        return computed
    # Where an expected side itself holds a call the actual side holds (rare), the spans
    # overlap: replacing actual sides alone keeps them apart.
    written_text, written_at = _with_placeholders(text, [c.actual for c in found])
    written = _values(language.fill_placeholders(task, name, written_text.encode("utf-8", "surrogateescape"), session),
                      written_at, "actual")
    if isinstance(written, NotCorrected):
        return written
    key = language.value_key
    spelled = {key(w): text[c.expected[0]:c.expected[1]] for c, w in zip(found, written)}
    wrong = [(c, v) for c, v, w in zip(found, computed, written) if key(v) != key(w)]
    if not wrong:
        return NotCorrected("every compared value is right: the suite is invalid for another reason")
    # An expected side spelled elsewhere in the suite is written as the suite spells it.
    replacements = [(c.expected, spelled.get(key(v)), v) for c, v in wrong]
    prelude = ""
    if any(as_spelled is None for _, as_spelled, _ in replacements):
        got = _prelude(computed_fill, computed_text, computed_at, computed)
        if isinstance(got, NotCorrected):
            return got
        prelude = got
    out = text
    for (start, end), as_spelled, value in sorted(replacements, key=lambda r: r[0], reverse=True):
        out = out[:start] + (as_spelled if as_spelled is not None else value) + out[end:]
    return Corrected((prelude + out).encode("utf-8", "surrogateescape"), replaced=len(wrong), comparisons=len(found))


@dataclass
class _Unit:
    index: int
    task: Task
    source: bytes


def correct_all(sandbox: Sandbox, suites: Sequence[tuple[Task, bytes]], *, workers: int = 1
                ) -> list[Corrected | NotCorrected]:
    """correct_values for each (task, suite), in warm sessions, in order of the answer."""
    found: dict[int, Corrected | NotCorrected] = {}
    units = [_Unit(i, task, source) for i, (task, source) in enumerate(suites)]

    def handle(unit: _Unit, session: SandboxSession) -> None:
        found[unit.index] = correct_values(unit.task, unit.source, session)

    if units:
        work_on_tasks(sandbox, units, handle, workers=max(1, min(workers, len(units))), run_timeout_s=RUN_TIMEOUT_S)
    return [found[i] for i in range(len(units))]
