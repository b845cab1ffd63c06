"""Calls in Python: what a probe asks of a task's interface, in `.meta/verifier.toml`.

A call is text in one of two forms, as C++'s are (languages/cpp/probe/calls.py):

- one expression, whose value is observed:
      PhoneNumber("(223) 456-7890").number
- statements, run in order, and observations, lines that begin with `=>` (outside any
  block) and hold an expression:
      buffer = CircularBuffer(2)
      for item in (1, 2):
          buffer.write(item)
      => buffer.read()
      => buffer.read()

An observation records the expression's value or the type of the exception it raised, and
the call goes on; a statement that raises ends the call, with its exception's type after
the observations made so far. Every call runs in a namespace of its own after the prelude
(Python too), by default one that imports from the task's solution modules the public names
their stubs define. Calls and prelude are parsed here, in the harness's process, and never
run here: a call that does not parse is bad input."""

from __future__ import annotations

import ast
import textwrap
from pathlib import PurePosixPath

from ....errors import BadInput
from ....task import Task

OBSERVE = "=>"


def _parse(code: str, mode: str, where: str) -> None:
    try:
        ast.parse(code, mode=mode)
    except SyntaxError as exc:
        what = "a Python expression" if mode == "eval" else "Python statements"
        raise BadInput(f"{where} does not parse as {what} ({exc.msg}, line {exc.lineno}): "
                       f"{code.strip()[:200]!r}") from None


def parse_call(text: str) -> list[tuple[bool, str]]:
    """The steps of one call, (whether it is an observation, its code); bad input names what
    is wrong."""
    body = textwrap.dedent(text.strip("\n")).rstrip()
    if not body.strip():
        raise BadInput("a call is empty")
    lines = body.splitlines()
    if not any(line.lstrip().startswith(OBSERVE) for line in lines):
        try:
            ast.parse(body, mode="exec")
        except SyntaxError:
            _parse(body, "eval", "a call")
        try:
            ast.parse(body, mode="eval")
        except SyntaxError:
            raise BadInput(f"a call with statements must observe something in a line `{OBSERVE} expression`: "
                           f"{body[:200]!r}") from None
        return [(True, body)]
    steps: list[tuple[bool, str]] = []
    block: list[str] = []

    def end_block() -> None:
        if any(line.strip() for line in block):
            code = "\n".join(block)
            _parse(code, "exec", "statements of a call")
            steps.append((False, code))
        block.clear()

    for line in lines:
        if line.startswith(OBSERVE):
            end_block()
            expression = line[len(OBSERVE):].strip()
            if not expression:
                raise BadInput(f"an observation `{OBSERVE}` without an expression in the call {body!r}")
            _parse(expression, "eval", "an observation")
            steps.append((True, expression))
        elif line.lstrip().startswith(OBSERVE):
            raise BadInput(f"an observation `{OBSERVE}` inside a block in the call {body!r}: it must begin its line")
        else:
            block.append(line)
    end_block()
    return steps


def public_names(task: Task) -> dict[str, list[str]]:
    """Per solution module (a top-level .py file), the public names its stub defines at
    the top: functions, classes, assigned names."""
    out: dict[str, list[str]] = {}
    for rel, data in sorted(task.stub_files().items()):
        if "/" in rel or not rel.endswith(".py"):
            continue
        try:
            tree = ast.parse(data.decode(errors="replace"))
        except SyntaxError:
            raise BadInput(f"{task.path / rel}: the stub does not parse") from None
        names: list[str] = []
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.append(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names += [t.id for t in targets if isinstance(t, ast.Name)]
        out[PurePosixPath(rel).stem] = [n for n in dict.fromkeys(names) if not n.startswith("_")]
    return out


def default_prelude(task: Task) -> str:
    """`import module` and `from module import <public names>` for each solution module."""
    lines = []
    for module, names in public_names(task).items():
        lines.append(f"import {module}")
        if names:
            lines.append(f"from {module} import {', '.join(names)}")
    return "\n".join(lines)


def check_prelude(prelude: str) -> str:
    _parse(prelude, "exec", "the prelude")
    return prelude
