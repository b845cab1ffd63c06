"""The probe: a task's interface called in the sandbox, with the values it produced read
back as data and judged in the harness's process. Nothing in the candidate's program
decides whether a value is right; it can only produce values.

    observe(task, files, calls)    calls in (calls.py), observed values out, one JSON record
                                   per call: {"o": [{"v": value} | {"x": exception type}, ...]}
    run_probe(task, files, session, test_unit=None)
                                   the task's own tests as the cases, every assertion's
                                   operands recorded (the recording Catch2 stand-in)
    compare.call_matches / compare.assertion_holds
                                   a candidate's records against the reference's

The verifier (harness/verify.py) builds its checks on these; so can anything else that
needs a program's values without trusting the program (predicting outputs, filling
expected values of tests from the reference)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..sandbox import Sandbox, SandboxSession, make_sandbox
from ..task import Task
from .calls import driver_source, parse_call, test_unit
from .run import ProbeRun, ProbeStatus, run_probe, runtime_hash


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


def observe(task: Task, files: Mapping[str, bytes], calls: Sequence[str], *, session: SandboxSession | None = None,
            sandbox: Sandbox | str = "auto", includes: Sequence[str] = (), prelude: str = "", runs: int = 1) -> Observation:
    """Run `calls` on the solution `files` (by name; missing solution files are the task's
    stubs) in `session`, or in a fresh session of `sandbox`."""
    unit = (test_unit(task), driver_source(task, calls, includes=includes, prelude=prelude))
    if session is None:
        with make_sandbox(sandbox).session(f"probe {task.slug}") as own:
            run = run_probe(task, files, own, test_unit=unit, runs=runs)
    else:
        run = run_probe(task, files, session, test_unit=unit, runs=runs)
    return Observation(run.status, run.reason, call_records(run, len(calls)), run)


__all__ = ["Observation", "ProbeRun", "ProbeStatus", "call_records", "driver_source", "observe", "parse_call",
           "run_probe", "runtime_hash", "test_unit"]
