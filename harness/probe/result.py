"""What a probe gives back, in every language: a run's status, the stream each run wrote
(stream.py: cases in order, each holding its records), and what the candidate's build and
program said for people. A language's probe (`languages.language.CallProbe`) makes these;
the verifier, output prediction and fill read them and never ask which language made them.

Statuses: ok (every run's stream complete); compile_error (the candidate does not build,
or in Python does not import); timeout; crash (the candidate's program or process ended,
or was killed, before the stream did); incomplete (the stream stopped early for another
reason); forged (the stream, or the judge beside it, holds what no honest program of the
interface makes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .stream import ProbeStream

ProbeStatus = Literal["ok", "compile_error", "timeout", "crash", "incomplete", "forged"]


@dataclass
class ProbeRun:
    """One candidate's probe: the stream of each run, or why there is none."""

    status: ProbeStatus
    reason: str | None = None
    streams: list[ProbeStream] = field(default_factory=list)
    tampered: list[str] = field(default_factory=list)
    build_log: str | None = None
    output: str | None = None       # the program's own stdout and stderr (first run)
    exit_code: int | None = None
    build_seconds: float = 0.0
    run_seconds: float = 0.0


@dataclass
class Observation:
    """What calls observed: per run, per call, the call's record (None for a call the
    stream did not reach)."""

    status: ProbeStatus
    reason: str | None
    runs: list[list[dict[str, Any] | None]] = field(default_factory=list)
    probe: ProbeRun | None = None

    @property
    def values(self) -> list[dict[str, Any] | None]:
        return self.runs[0] if self.runs else []


def call_records(run: ProbeRun, calls: int) -> list[list[dict[str, Any] | None]]:
    """Each run's record per call: a call's case holds exactly one record."""
    out = []
    for stream in run.streams:
        values: list[dict[str, Any] | None] = [None] * calls
        for i, case in enumerate(stream.cases[:calls]):
            if case.ended and len(case.records) == 1:
                values[i] = case.records[0]
        out.append(values)
    return out
