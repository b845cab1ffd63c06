"""Mutants the task's own tests miss, separated from the correct solution by an input search
(the equivalence rule of test writing's targets, testwriting/targets.py): a mutant that some
input makes behave differently is not equivalent, so a written suite that catches it earns
credit beyond the task's tests.

The inputs are literal argument tuples of calls of the solution's top-level functions: those
the task's own test files make and those of the reference's docstring examples (`>>> f(...)`),
each also varied one argument at a time (an int by one either way, zero, negated and doubled;
a string, list or tuple emptied, cut by its last item and reversed), at most MAX_INPUTS per function. They
run in the sandbox, as the runner (assets/separate_driver.py): the correct solution twice
(an input whose result differs between the two runs says nothing and is dropped), then each
mutant, each in a process of its own; results are compared as their reprs (or the name of
the exception raised) in the harness's process. A mutant is separated by the first input on
which it differs; one that hangs on them is not (a hang shows nothing an assertion can
catch)."""

from __future__ import annotations

import ast
import json
import shlex
from pathlib import Path, PurePosixPath
from typing import Iterable, Iterator

from ...sandbox.base import SandboxSession
from ...sandbox.capture import Kept, capture
from ...task import Task
from ..mutation import Mutant
from .fill import laid_out_for_runner
from .screen import parse

MAX_INPUTS = 60
_ROOT = "python-separate"  # under the session's sources and build root
_DRIVER = Path(__file__).parent / "assets" / "separate_driver.py"
_OUT = 1 << 20


def solution_functions(source: str) -> set[str]:
    try:
        tree = parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {s.name for s in tree.body if isinstance(s, ast.FunctionDef) and not s.name.startswith("_")}


def literal_args(call: ast.Call) -> tuple | None:
    if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    try:
        return tuple(ast.literal_eval(a) for a in call.args)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return None


def _calls(text: str, functions: set[str]) -> Iterator[tuple[str, tuple]]:
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else (
                node.func.attr if isinstance(node.func, ast.Attribute) else None)
            if name in functions and (args := literal_args(node)) is not None:
                yield name, args


def _doctest_calls(source: str, functions: set[str]) -> Iterator[tuple[str, tuple]]:
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith(">>> "):
            yield from _calls(stripped[4:], functions)


def _varied(value: object) -> list[object]:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, 0, -value, 2 * value]
    if isinstance(value, (str, list, tuple)):
        return [value[:0], value[:-1], value[::-1]]
    return []


def search_inputs(task: Task, module_file: str) -> list[tuple[str, str]]:
    """(function, literal argument tuple) to try, in a stable order."""
    source = task.reference_files()[module_file].decode("utf-8", "replace")
    functions = solution_functions(source)
    seen: dict[str, list[tuple]] = {f: [] for f in sorted(functions)}
    found = [*(c for t in task.test_files for c in _calls(task.read_text(t), functions)),
             *_doctest_calls(source, functions)]
    for name, args in found:
        for variant in [args, *(args[:i] + (v,) + args[i + 1:] for i, a in enumerate(args) for v in _varied(a))]:
            if len(seen[name]) < MAX_INPUTS and variant not in seen[name]:
                seen[name].append(variant)
    return [(name, repr(args)) for name, tried in seen.items() for args in tried]


def _read(data: bytes) -> dict[tuple[str, str], str]:
    out = {}
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            function, args, got = json.loads(line)
        except (ValueError, TypeError):
            continue
        if isinstance(function, str) and isinstance(args, str) and isinstance(got, str):
            out[(function, args)] = got
    return out


def separate(task: Task, survivors: Iterable[Mutant], session: SandboxSession) -> dict[int, str]:
    """The survivors an input separates from the correct solution, by their place in
    `survivors`, each with the call that separates it (`f(1, 2)`)."""
    survivors = list(survivors)
    modules = [f for f in task.solution_files if "/" not in f and f.endswith(".py")]
    if not survivors or len(modules) != 1:
        return {}
    module_file = modules[0]
    inputs = search_inputs(task, module_file)
    if not inputs:
        return {}
    reference = task.reference_files()
    variants = [reference, reference, *(m.apply(reference) for m in survivors)]
    files = {"driver.py": _DRIVER.read_bytes(), "inputs.json": json.dumps(inputs).encode()}
    for n, v in enumerate(variants):
        files[f"v{n}/{module_file}"] = v[module_file]
    module = shlex.quote(PurePosixPath(module_file).stem)
    with laid_out_for_runner(session, f"{_ROOT}/{task.exercise}", files, f"the input search of {task.slug}") as root:
        folders = " ".join(f"{root}/v{n}" for n in range(len(variants)))
        kept = [Kept(f"out/{n}.jsonl", _OUT) for n in range(len(variants))]
        run = (f"env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 python3 -I {root}/driver.py {module} "
               f"{root}/inputs.json out {folders} >/dev/null 2>&1 </dev/null; code=$?")
        _, got = capture(session, run, kept, timeout_s=session.limits.timeout_s)
    if got is None:
        return {}
    runs = [_read(got.contents[n]) for n in range(len(variants))]
    stable = {k: v for k, v in runs[0].items() if runs[1].get(k) == v and v != "timeout"}
    out = {}
    for n, results in enumerate(runs[2:]):
        for (function, args), expected in stable.items():
            result = results.get((function, args))
            if result is not None and result not in (expected, "timeout"):
                out[n] = function + (args[:-2] + ")" if args.endswith(",)") else args)
                break
    return out
