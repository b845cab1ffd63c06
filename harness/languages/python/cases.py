"""The test cases a pytest file declares, read from its syntax tree as pytest collects them:
module-level `test*` functions, `test*` methods of `Test*` classes without an `__init__`,
and `test*` methods of unittest.TestCase subclasses (with those their bases in the file
give them). Each is named by its pytest node id, and tagged `task_N` by its
`@pytest.mark.task(taskno=N)` marker (Exercism's task marker)."""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class DeclaredCase:
    name: str          # the node id: `file.py::Class::test_x` or `file.py::test_x`
    tags: tuple[str, ...]
    count: int         # how many items it collects as (a literal parametrize list's length)


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _markers(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple[str, ...], int]:
    tags: list[str] = []
    count = 1
    for deco in fn.decorator_list:
        if not isinstance(deco, ast.Call):
            continue
        name = _dotted(deco.func)
        if name.endswith("mark.task"):
            tags += [f"task_{kw.value.value}" for kw in deco.keywords
                     if kw.arg == "taskno" and isinstance(kw.value, ast.Constant) and type(kw.value.value) is int]
        elif name.endswith("mark.parametrize") and len(deco.args) >= 2 and isinstance(deco.args[1], (ast.List, ast.Tuple)):
            count *= len(deco.args[1].elts)
    return tuple(tags), count


def _tests_of(body: list[ast.stmt]) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {node.name: node for node in body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")}


def declared_cases(file: str, source: str) -> list[DeclaredCase]:
    """The file's cases in its order; none for a file that does not parse (pytest then
    reports the file's own error)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    cases: list[DeclaredCase] = []
    unittest_classes: dict[str, dict[str, ast.FunctionDef | ast.AsyncFunctionDef]] = {}

    def add(node_id: str, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        tags, count = _markers(fn)
        cases.append(DeclaredCase(node_id, tags, count))

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            add(f"{file}::{node.name}", node)
        elif isinstance(node, ast.ClassDef):
            bases = [_dotted(b) for b in node.bases]
            own = _tests_of(node.body)
            if any(b.endswith("TestCase") or b in unittest_classes for b in bases):
                methods = {name: fn for b in bases for name, fn in unittest_classes.get(b, {}).items()} | own
                unittest_classes[node.name] = methods
                for name in sorted(methods):  # unittest's loader sorts a case's methods by name
                    add(f"{file}::{node.name}::{name}", methods[name])
            elif node.name.startswith("Test") and not any(
                    isinstance(n, ast.FunctionDef) and n.name == "__init__" for n in node.body):
                for name, fn in own.items():
                    add(f"{file}::{node.name}::{name}", fn)
    return cases
