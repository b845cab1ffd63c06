"""Which Python tasks are judged in one process, and what that means (issue 31).

The proxy (proxy/) judges a task whose tests use the candidate's module through calls,
values and objects. A test that reads the call stack cannot be judged that way: the frames
it looks for are in another process. Aider's paasio is one: its `test_utils.SuperMock`
decides what `super()` returns by finding a frame of `paasio`'s file in
`inspect.getouterframes`, and its `MeteredFile` subclasses `io.BufferedRandom` over the
test's own mock file; through the proxy its reference fails 13 of 25 tests.

The rule (`runs_in_process`) is read from the task's own test files, so that neither the
upstream files nor an import step has to say it: a task runs in process when one of its
test files (its helpers too: .meta/config.json lists paasio's test_utils.py as a test
file) calls what reads the stack (STACK_READERS: `inspect.currentframe`, `inspect.stack`,
`inspect.getouterframes`, `sys._getframe`, ...). Of Aider's 34 Python exercises it selects
paasio alone; of the other 33, which the proxy judges, none reads a frame.

In process, the candidate's module is imported by pytest as the builder: the operating
system would let it read the test files, write pytest's report and patch pytest. What stands
between is the static screen (screen.py), which runs in the harness's process before
anything is staged and refuses, as forged, every route to that machinery it knows: no
module that reads the process's state or opens a file, no `open`, no dunder, no frame or
generator internals, no reflection by a computed name. The test file's expected values are
then reachable only through what the test hands the candidate (arguments and mocks, as
through the proxy): the test module's namespace lies behind `__globals__`, frames,
`sys.modules` or `gc`, all refused. That is a guarantee of the screen's rules, not of the
operating system: a route the rules do not know is open, as it is not through the proxy."""

from __future__ import annotations

import ast
import functools

from ...task import Task
from .screen import parse

# What reads the call stack: `module.function` as a test file calls it.
STACK_READERS = frozenset({
    ("inspect", "currentframe"), ("inspect", "stack"), ("inspect", "getouterframes"),
    ("inspect", "getinnerframes"), ("inspect", "trace"), ("inspect", "getframeinfo"),
    ("sys", "_getframe"), ("traceback", "extract_stack"), ("traceback", "walk_stack"),
})


def runs_in_process(task: Task) -> bool:
    """Whether one of the task's test files reads the call stack (a file that does not
    parse reads nothing: pytest reports it)."""
    return any(_reads_stack(task.read(f)) for f in task.test_files if f.endswith(".py"))


@functools.lru_cache(maxsize=256)  # every round asks: a test file is parsed once a process
def _reads_stack(source: bytes) -> bool:
    try:
        tree = parse(source)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if (node.value.id, node.attr) in STACK_READERS:
                return True
        if isinstance(node, ast.ImportFrom) and node.module:
            if any((node.module, alias.name) in STACK_READERS for alias in node.names):
                return True
    return False
