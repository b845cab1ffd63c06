"""Execution traces of Python calls, one tracer for two uses: the lines of the code a call
runs, each with the local names it changed, and what the call returned or raised, recorded
in the sandbox as the runner, beside the code (assets/trace_driver.py, under sys.settrace,
every value's repr cut), read back with bounds and rendered here.

- Scratchpads (the study's trace training signal): a written suite with, above each
  assertion that calls one of the solution's functions on literal arguments, the correct
  solution's own run of that call as comment lines (SCRATCHPAD's limits). Nothing but
  comments is added: the suite scores as it did.

    # trace of clamp(-5, 0, 10) on the correct solution:
    #   line 2: if x < low:  x=-5, low=0, high=10
    #   line 3: return low
    #   returns 0
    assert clamp(-5, 0, 10) == 0

- Explanations (predict/explain.py, the self-execution paper's NLEX): any call of a
  prediction item, traced within the paper's limits (language.PAPER_TRACE_LIMITS); a
  longer run is cut there and marked so."""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from ...sandbox.base import SandboxSession
from ...sandbox.capture import Kept, capture
from ...task import Task
from ..language import CallTrace, TraceEvent, TraceLimits, render_trace
from .fill import laid_out_for_runner
from .screen import parse
from .separate import solution_functions, literal_args
from .written import assertion_kind

_ROOT = "python-trace"  # under the session's sources and build root
_DRIVER = Path(__file__).parent / "assets" / "trace_driver.py"
_OUT = "traces.jsonl"
_EVENT_LINE = 100  # characters of one rendered scratchpad line
_CALLS_PER_RUN = 8
SCRATCHPAD = TraceLimits(events=40, chars=40 * 2000)


def _call_of(stmt: ast.stmt, functions: set[str]) -> tuple[str, str] | None:
    """The assertion's first call of a solution function on literal arguments."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else (
                node.func.attr if isinstance(node.func, ast.Attribute) else None)
            if name in functions and (args := literal_args(node)) is not None:
                return name, repr(args)
    return None


def _sites(text: str, functions: set[str]) -> list[tuple[int, str, tuple[str, str]]]:
    """(line, indent, call) of each assertion statement with a call to trace, last first."""
    tree = parse(text)
    lines = text.splitlines()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and assertion_kind(node) is not None and (call := _call_of(node, functions)):
            line = lines[node.lineno - 1]
            out.append((node.lineno, line[:len(line) - len(line.lstrip())], call))
    return sorted(out, reverse=True)


def trace_calls(files: Mapping[str, str], calls: Sequence[str], session: SandboxSession, limits: TraceLimits,
                where: str) -> list[CallTrace | None]:
    """Each call (an expression over the names the files' top-level modules define) traced
    on `files` in one run of the driver; None for a call whose record did not come back."""
    modules = {name: text.encode() for name, text in files.items() if "/" not in name and name.endswith(".py")}
    expressions = [i for i, call in enumerate(calls) if _expression(call)]
    if not modules or not expressions:
        return [None] * len(calls)
    if len(expressions) < len(calls):  # statements with `=>` observations are no one call to trace
        traced = trace_calls(files, [calls[i] for i in expressions], session, limits, where)
        by_index = dict(zip(expressions, traced, strict=True))
        return [by_index.get(i) for i in range(len(calls))]
    if len(calls) > _CALLS_PER_RUN:  # what one run reads back stays a few MB at the paper's limits
        return [t for at in range(0, len(calls), _CALLS_PER_RUN)
                for t in trace_calls(files, calls[at:at + _CALLS_PER_RUN], session, limits, where)]
    # Every record is cut at the limit's characters, and a line of JSON around it adds little.
    kept = Kept(_OUT, len(calls) * (limits.chars + 4096))
    staged = {"driver.py": _DRIVER.read_bytes(), "calls.json": json.dumps([c.strip() for c in calls]).encode(),
              **{f"code/{name}": data for name, data in modules.items()}}
    with laid_out_for_runner(session, f"{_ROOT}/{where}", staged, f"the trace run of {where}") as root:
        run = (f"env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 python3 -I {root}/driver.py {root}/code "
               f"{root}/calls.json {kept.name} {limits.events} {limits.chars} >/dev/null 2>&1 </dev/null; code=$?")
        _, got = capture(session, run, [kept], timeout_s=session.limits.timeout_s)
    if got is None or got.truncated(0):
        return [None] * len(calls)
    lines = got.contents[0].decode("utf-8", "replace").splitlines()
    return [_read(line) for line in lines[:len(calls)]] + [None] * max(0, len(calls) - len(lines))


def _expression(call: str) -> bool:
    try:
        ast.parse(call.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _read(line: str) -> CallTrace | None:
    """One call's record, held to the shape the driver writes."""
    try:
        events, result, cut = json.loads(line)
    except (ValueError, TypeError):
        return None
    if not (isinstance(events, list) and isinstance(result, list) and len(result) == 2
            and result[0] in ("=", "raise") and isinstance(result[1], str)):
        return None
    kept = [TraceEvent(file=e[0], line=e[1], changed={k: v for k, v in e[2].items()
                                                       if isinstance(k, str) and isinstance(v, str)})
            for e in events if isinstance(e, list) and len(e) == 3 and isinstance(e[0], str)
            and isinstance(e[1], int) and not isinstance(e[1], bool) and isinstance(e[2], dict)]
    return CallTrace(events=kept, returned=result[0] == "=", value=result[1], cut=cut is True)


def _scratchpad(call: tuple[str, str], trace: CallTrace, module: str, reference: str, indent: str) -> list[str]:
    function, args = call
    shown = function + (args[:-2] + ")" if args.endswith(",)") else args)
    body = render_trace(trace, {module: reference}, SCRATCHPAD).splitlines()
    lines = [f"{indent}# trace of {shown} on the correct solution:"] + [f"{indent}#   {line}" for line in body]
    return [line[:_EVENT_LINE] if len(line) > _EVENT_LINE else line for line in lines]


def traced_suite(task: Task, source: bytes, session: SandboxSession) -> bytes | None:
    """`source` with each traceable assertion's trace above it; None where the suite does not
    parse, the task has not one Python module, or nothing came back."""
    modules = [f for f in task.solution_files if "/" not in f and f.endswith(".py")]
    if len(modules) != 1:
        return None
    reference = task.reference_files()[modules[0]].decode("utf-8", "replace")
    text = source.decode("utf-8", "surrogateescape")
    try:
        sites = _sites(text, solution_functions(reference))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not sites:
        return source
    calls = sorted({call for _, _, call in sites})
    traces = trace_calls({modules[0]: reference}, [function + args for function, args in calls], session, SCRATCHPAD,
                         task.slug)
    if all(t is None for t in traces):
        return None
    records = {call: t for call, t in zip(calls, traces) if t is not None}
    lines = text.split("\n")
    for line_no, indent, call in sites:  # last first, so earlier line numbers hold
        if call in records:
            lines[line_no - 1:line_no - 1] = _scratchpad(call, records[call], modules[0], reference, indent)
    return "\n".join(lines).encode("utf-8", "surrogateescape")
