"""The probe: a task's interface called in the sandbox, with the values it produced read
back as data and judged in the harness's process. Nothing in the candidate's program
decides whether a value is right; it can only produce values.

    observe(task, files, calls)    calls in (calls.py), observed values out, one JSON record
                                   per call: {"o": [{"v": value} | {"x": exception type}, ...]};
                                   a call may be one of the task's own test cases (cases.py)
    run_probe(task, files, session, test_unit=None)
                                   the task's own tests as the cases, every assertion's
                                   operands recorded (the recording Catch2 stand-in)
    probe/stream.read_stream, schema
                                   the stream read strictly, every record held to the
                                   shapes an honest probe writes, within bounds
    compare.call_matches           a candidate's call record against the reference's

The verifier (harness/verify.py) builds its checks on these; so can anything else that
needs a program's values without trusting the program (predicting outputs, filling
expected values of tests from the reference)."""

from __future__ import annotations

from typing import Any, Literal, Mapping, Sequence

from ....errors import BadInput
from ....sandbox import Sandbox, SandboxSession, make_sandbox
from ....task import Task
from .calls import driver_source, parse_call, test_unit
from .cases import case_context, case_name, case_record, is_case
from .run import run_probe, runtime_hash
from ....probe.result import Observation, ProbeRun, call_records


def case_records(run: ProbeRun, calls: Sequence[str]) -> list[list[dict[str, Any] | None]]:
    """Each run's record per test-case call: the named case's records read as a call's
    (cases.case_record), None for a case the run did not end."""
    out = []
    for stream in run.streams:
        by_name = {case.name: case for case in stream.cases}
        values: list[dict[str, Any] | None] = []
        for call in calls:
            case = by_name.get(case_name(call) or "")
            values.append(case_record(case.records) if case is not None and case.ended else None)
        out.append(values)
    return out


def observe(task: Task, files: Mapping[str, bytes], calls: Sequence[str], *, session: SandboxSession | None = None,
            sandbox: Sandbox | str = "auto", includes: Sequence[str] = (), prelude: str = "", runs: int = 1,
            alone: bool = False) -> Observation:
    """Run `calls` on the solution `files` (by name; missing solution files are the task's
    stubs) in `session`, or in a fresh session of `sandbox`. Calls that are the task's own
    test cases run as its test file (no driver; `includes` and `prelude` are the file's);
    with `alone`, in a test file of their own, the task's file around its cases and these
    cases only, so the program holds no other case's values."""
    cases = [is_case(c) for c in calls]
    if any(cases) and not all(cases):
        raise BadInput(f"{task.slug}: one probe runs either the task's test cases or driver calls, not both")
    if not all(cases):
        unit: tuple[str, str] | None = (test_unit(task), driver_source(task, calls, includes=includes, prelude=prelude))
    else:
        unit = (test_unit(task), "\n\n".join([case_context(task), *calls]) + "\n") if alone else None
    kind: Literal["assertion", "call"] = "assertion" if all(cases) else "call"
    if session is None:
        with make_sandbox(sandbox).session(f"probe {task.slug}") as own:
            run = run_probe(task, files, own, test_unit=unit, records=kind, runs=runs, observe_all=all(cases))
    else:
        run = run_probe(task, files, session, test_unit=unit, records=kind, runs=runs, observe_all=all(cases))
    values = case_records(run, calls) if all(cases) else call_records(run, len(calls))
    return Observation(run.status, run.reason, values, run)


__all__ = ["Observation", "call_records", "case_records", "driver_source", "is_case",
           "observe", "parse_call", "run_probe", "runtime_hash", "test_unit"]
