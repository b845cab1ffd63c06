"""What a report reads from each trial's result.json, and reading many of them at once.

A result.json carries every round's test report and output; a report needs a dozen
fields of it. Validating only those fields costs about a seventh of validating the whole
TrialResult (records.py, the schema; written files are always full TrialResults). On a
run of 100,000 trials, opening and parsing the files is most of the first report, so it
is spread over the machine's cores. This module stays free of pandas so that the worker
processes start quickly."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import invalid
from .records import AgentCounters, Status, SuiteShape, TrialOutcome, TrialResult, passes_after

# Below this many files a worker process costs more to start than it saves.
PARALLEL_FROM = 4000


class _Facts(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _ReportFacts(_Facts):
    status: Status
    timeout: bool = False

    @property
    def passed(self) -> bool:
        return self.status is Status.passed


class _TimingFacts(_Facts):
    model_seconds: float = 0.0
    agent_seconds: float = 0.0


class _RoundFacts(_Facts):
    counters: AgentCounters = AgentCounters()
    test_report: _ReportFacts | None = None
    timings: _TimingFacts = _TimingFacts()
    kill_rate: float | None = None
    assertion_accuracy: float | None = None
    embeds_reference: bool | None = None
    suite_shape: SuiteShape | None = None  # read whole: a report uses every field

    def diagnostic(self, name: str) -> float | None:
        """One of DIAGNOSTIC_COLUMNS, from the suite's shape (a kind's share of the
        assertions; none where the suite has none)."""
        shape = self.suite_shape
        if shape is None:
            return None
        if name == "suite_lines":
            return shape.lines
        if name in ("tests", "assertions"):
            return getattr(shape, name)
        return getattr(shape, name.removesuffix("_share")) / shape.assertions if shape.assertions else None


class _InfraFacts(_Facts):
    kind: str


class TrialFacts(_Facts):
    schema_version: Literal[1]
    task: str
    trial: int
    suite: str
    outcome: TrialOutcome
    passed_round: int | None = None
    rounds: list[_RoundFacts] = []
    infra_error: _InfraFacts | None = None
    started_at: str | None = None

    def passes_after(self, round_no: int) -> bool:
        return passes_after(self.rounds, round_no)


def rounds_recorded(result: TrialFacts | TrialResult) -> int:
    """How many leading rounds have a tested outcome: up to the round that passed (real
    feedback stops there), every round of a failed trial, or those tested before an
    infrastructure error."""
    tested = 0
    for r in result.rounds:
        if r.test_report is None:
            break
        tested += 1
    return tested


def status(result: TrialFacts) -> str:
    """The trial's state in a report: its outcome, or "partial" for an infrastructure error
    after round 1 was tested, whose recorded rounds still count."""
    if result.outcome is TrialOutcome.infra_error and rounds_recorded(result) > 0:
        return "partial"
    return result.outcome.value


def _share_columns(result: TrialFacts) -> dict:
    """A test-writing trial's shares in round 1 and within two rounds (the round that ended
    the trial), by the counting rule of its outcomes: round 1's once it was tested, the
    two-round value once round 1 passed or round 2 was tested. A suite that embeds the
    reference has none: it is counted apart (`embeds_reference`). The suite's diagnostics
    (DIAGNOSTIC_COLUMNS) follow the same rule."""
    tested = rounds_recorded(result)
    first = result.rounds[0] if tested >= 1 else None
    final = first if result.passed_round == 1 else result.rounds[1] if tested >= 2 else None
    counted = [(n, r if r is not None and not r.embeds_reference else None) for n, r in ((1, first), (2, final))]
    return {**{f"{name}_{n}": getattr(r, name) if r is not None else None for name in SHARE_COLUMNS for n, r in counted},
            **{f"{name}_{n}": r.diagnostic(name) if r is not None else None for name in DIAGNOSTIC_COLUMNS
               for n, r in counted}}


SHARE_COLUMNS = ("kill_rate", "assertion_accuracy")
# A test-writing round's figures: its validity (a success) and its shares.
METRICS: tuple[str, ...] = ("valid", *SHARE_COLUMNS)
# What a written suite is made of (records.SuiteShape), by the same counting rule: the study's
# diagnostics of a validity gain that is only brevity, or an assertion mix that drifts.
DIAGNOSTIC_COLUMNS = ("tests", "assertions", "suite_lines", "equality_share", "exception_share", "property_share",
                      "other_share", "constant_share")


def facts_row(result: TrialFacts) -> dict:
    """The report's columns that come from the trial itself (the config's come from the
    manifest)."""
    counters = [r.counters for r in result.rounds]
    return dict(
        task=result.task, trial=result.trial, status=status(result), rounds_recorded=rounds_recorded(result),
        round1=result.passes_after(1), round2=result.passes_after(2), suite=result.suite,
        malformed_responses=sum(c.malformed_responses for c in counters),
        exhausted_context_windows=sum(c.exhausted_context_windows for c in counters),
        timeouts=sum(1 for r in result.rounds if r.test_report is not None and r.test_report.timeout),
        prompt_tokens=sum(c.prompt_tokens for c in counters),
        completion_tokens=sum(c.completion_tokens for c in counters),
        cost=sum(c.cost for c in counters),
        infra_kind=result.infra_error.kind if result.infra_error is not None else None,
        error_outputs=sum(c.error_outputs for c in counters),
        user_asks=sum(c.user_asks for c in counters),
        lazy_comments=sum(c.lazy_comments for c in counters),
        agent_seconds=sum(r.timings.model_seconds + r.timings.agent_seconds for r in result.rounds),
        embeds_reference=sum(bool(r.embeds_reference) for r in result.rounds),
        started_at=result.started_at,
        **_share_columns(result),
    )


def _read_chunk(root: str, rels: list[str]) -> list[dict]:
    rows = []
    for rel in rels:
        path = os.path.join(root, rel)
        with open(path, "rb") as f:
            data = f.read()
        try:
            rows.append(facts_row(TrialFacts.model_validate_json(data)))
        except ValidationError as exc:
            raise invalid(exc, f"{path}: not a trial result") from None
    return rows


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def read_rows(root: Path, rels: list[str]) -> list[dict]:
    """facts_row of each root/rel, in order. Many files are read by worker processes;
    they are spawned, not forked, because the runner calls this with threads alive."""
    workers = min(_cores(), 8)
    if len(rels) < PARALLEL_FROM or workers < 2:
        return _read_chunk(str(root), rels)
    size = -(-len(rels) // (workers * 4))
    chunks = [rels[i:i + size] for i in range(0, len(rels), size)]
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            parts = pool.map(_read_chunk, [str(root)] * len(chunks), chunks)
            return [row for part in parts for row in part]
    except BrokenProcessPool:
        # A worker died or could not start (a caller's script without a __main__ guard is
        # run again by every spawned process): the result is the same from one process.
        return _read_chunk(str(root), rels)
