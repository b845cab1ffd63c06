"""Execution-trace scratchpads (the study's trace training signal): a written suite with, above
each assertion that calls one of the solution's functions on literal arguments, the correct
solution's own run of that call as comment lines: each line of the module it ran, with the
local names that line changed, and what the call returned or raised.

    # trace of clamp(-5, 0, 10) on the correct solution:
    #   line 2: if x < low:  x=-5, low=0, high=10
    #   line 3: return low
    #   returns 0
    assert clamp(-5, 0, 10) == 0

The calls run in the sandbox, as the runner, beside the correct solution
(assets/trace_driver.py, under sys.settrace, every count and value cut); their records are
read back with bounds and rendered here. Nothing but comments is added: the suite scores as
it did."""

from __future__ import annotations

import ast
import json
import shlex
from pathlib import Path, PurePosixPath

from ...sandbox.base import SandboxSession
from ...sandbox.capture import Kept, capture
from ...task import Task
from .fill import laid_out_for_runner
from .screen import parse
from .separate import solution_functions, literal_args
from .written import assertion_kind

_ROOT = "python-trace"  # under the session's sources and build root
_DRIVER = Path(__file__).parent / "assets" / "trace_driver.py"
_OUT = Kept("traces.jsonl", 4 << 20)
_EVENT_LINE = 100  # characters of one rendered line


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


def _rendered(call: tuple[str, str], record: list, source_lines: list[str], indent: str) -> list[str]:
    function, args = call
    shown = function + (args[:-2] + ")" if args.endswith(",)") else args)
    out = [f"{indent}# trace of {shown} on the correct solution:"]
    events, got = record
    for line_no, changed in events:
        code = source_lines[line_no - 1].strip() if 0 < line_no <= len(source_lines) else "?"
        names = ", ".join(f"{k}={v}" for k, v in changed.items() if isinstance(k, str) and isinstance(v, str))
        out.append(f"{indent}#   line {line_no}: {code}" + (f"  {names}" if names else ""))
    out.append(f"{indent}#   {'returns' if got[0] == '=' else 'raises'} {got[1]}")
    return [line[:_EVENT_LINE] if len(line) > _EVENT_LINE else line for line in out]


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
    files = {"driver.py": _DRIVER.read_bytes(), "calls.json": json.dumps(calls).encode(),
             f"solution/{modules[0]}": reference.encode()}
    module = shlex.quote(PurePosixPath(modules[0]).stem)
    with laid_out_for_runner(session, f"{_ROOT}/{task.slug}", files, f"the trace run of {task.slug}") as root:
        run = (f"env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 python3 -I {root}/driver.py "
               f"{root}/solution {module} {root}/calls.json {_OUT.name} >/dev/null 2>&1 </dev/null; code=$?")
        _, got = capture(session, run, [_OUT], timeout_s=session.limits.timeout_s)
    if got is None or got.truncated(0):
        return None
    records: dict[tuple[str, str], list] = {}
    for line in got.contents[0].decode("utf-8", "replace").splitlines():
        try:
            function, args, events, result = json.loads(line)
        except (ValueError, TypeError):
            continue
        if isinstance(events, list) and isinstance(result, list) and len(result) == 2:
            records[(function, args)] = [[e for e in events if isinstance(e, list) and len(e) == 2
                                          and isinstance(e[0], int) and isinstance(e[1], dict)], result]
    lines = text.split("\n")
    source_lines = reference.splitlines()
    for line_no, indent, call in sites:  # last first, so earlier line numbers hold
        if call in records:
            lines[line_no - 1:line_no - 1] = _rendered(call, records[call], source_lines, indent)
    return "\n".join(lines).encode("utf-8", "surrogateescape")
