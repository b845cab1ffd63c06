"""The test cases a pytest file declares, read from the task's own file by its syntax tree,
never from what a run reports: what `declared_test_cases` counts, and the `test_code` and
`task_id` of results.json.

Which items pytest collects (its defaults: `python_functions = test`, `python_classes =
Test`): module-level functions whose name starts with `test`; in a class whose name starts
with `Test` and that defines no `__init__`, its `test*` methods and its nested `Test*`
classes; in a `unittest.TestCase` subclass (any name), its `test*` methods; methods
inherited from classes of the same file count in each subclass; a class with `__test__ =
False` holds none; a name defined twice is its last definition. Each case is named as
pytest's junit XML names it: `classname` the module's dotted path then the classes,
`name` the function with its parameter id.

A function under `@pytest.mark.parametrize` (stacked, on its class, or through
`pytest.param`) is one case per parameter set, its id in brackets as pytest makes it from
literal values: a string ASCII-escaped, a number, bool or None as written, anything else the
argument's name and index (`x2`), sets of a stacked parametrize joined with `-` (the lowest
decorator first), explicit `ids=` and `pytest.param(id=)` kept, repeated ids suffixed `_0`,
`_1`, an empty list `NOTSET`. Argument values that are not literals (nor a module-level
name bound to one) cannot be counted without running the file: such a function is one case,
named by the function alone.

`test_code` is what Exercism's Python test runner (exercism/python-test-runner) puts in
results.json: the lines after the `def` line through the line after the one where the
function's last statement starts (descending into a trailing for, while, if or with), a
blank last line dropped, dedented by the spaces every non-blank line shares. So a last
statement over several lines is cut after its second line, as that runner cuts it. The
runner's `subTest` variations are entries its run makes, not the file's, so they are not
cases here. `task_id` is N of `@pytest.mark.task(taskno=N)`: the function's own (or its
`pytest.param`'s), else its class's, else the module's `pytestmark`; none where that level
names two different tasks. The name results.json shows (`title`) is that runner's: the
classes and the function joined with `.`, a class name's `Test` suffix and the `test_`
prefix turned into ` > `, underscores into spaces, and `~` after the name of a test with a
task."""

from __future__ import annotations

import ast
import functools
import itertools
import re
from dataclasses import dataclass, replace
from typing import Iterator

from pydantic import BaseModel, ConfigDict

from ...task import Task
from ..language import CaseText
from .screen import parse

_UNITTEST_BASES = frozenset({"TestCase", "IsolatedAsyncioTestCase"})


class PytestCase(BaseModel):
    """One item pytest collects from a test file."""

    model_config = ConfigDict(frozen=True)

    module: str                   # the file's dotted module (`module_name`)
    classes: tuple[str, ...] = ()  # the classes it is in, outermost first
    name: str                     # junit's: the function, then [its parameter id]
    line: int                     # of the `def`
    test_code: str
    task_id: int | None = None

    @property
    def classname(self) -> str:
        """junit's: the module's dotted path, then the classes."""
        return ".".join([self.module, *self.classes])

    @property
    def node(self) -> str:
        """The node id past the file: `Class::test_x[1-2]`, `test_y`."""
        return "::".join([*self.classes, self.name])

    def title(self) -> str:
        """The name Exercism's Python test runner gives the test in results.json."""
        dotted = re.sub(r"^(.+)(Test\.test_)", r"\1 > ", ".".join([*self.classes, self.name])).replace("_", " ")
        return dotted + ("~" if self.task_id else "")


def module_name(path: str) -> str:
    """The dotted module junit names a test file by: its path from the rootdir, less `.py`."""
    return path.removesuffix(".py").replace("/", ".")


# --- test code ------------------------------------------------------------------------------


def exercism_test_code(lines: list[str], func: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """A test function's code as Exercism's Python runner puts it in results.json (above)."""
    last: ast.stmt = func.body[-1]
    while isinstance(last, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith)):
        last = last.body[-1]
    taken = lines[func.lineno:last.lineno + 1]
    if taken and not taken[-1]:
        taken.pop()
    while any(taken) and all(line.startswith(" ") for line in taken if line):
        taken = [line[1:] if line else line for line in taken]
    return "\n".join(taken)


# --- marks ----------------------------------------------------------------------------------


def _mark(node: ast.expr, name: str) -> ast.Call | None:
    """The call of `pytest.mark.<name>(...)` (or `mark.<name>(...)`) that node is, if it is."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name:
        owner = node.func.value
        if (isinstance(owner, ast.Attribute) and owner.attr == "mark") or (isinstance(owner, ast.Name)
                                                                             and owner.id == "mark"):
            return node
    return None


def _marks_in(node: ast.expr | None) -> list[ast.expr]:
    if node is None:
        return []
    return list(node.elts) if isinstance(node, (ast.List, ast.Tuple)) else [node]


def _tasks(marks: list[ast.expr]) -> set[int]:
    """The task numbers one level's marks name."""
    found = set()
    for node in marks:
        call = _mark(node, "task")
        for kw in call.keywords if call is not None else []:
            if kw.arg == "taskno" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, int):
                found.add(kw.value.value)
    return found


def _nearest_task(*levels: list[ast.expr]) -> int | None:
    """The task of the nearest level that names one; none where it names two."""
    for marks in levels:
        found = _tasks(marks)
        if found:
            return found.pop() if len(found) == 1 else None
    return None


# --- parametrize ----------------------------------------------------------------------------

_PRIMITIVE = (str, bytes, int, float, complex, bool, type(None))


@dataclass(frozen=True)
class _ParamSet:
    id: str
    marks: tuple[ast.expr, ...] = ()


def _value_id(value: ast.expr, argname: str, index: int) -> str:
    try:
        val = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return f"{argname}{index}"
    if isinstance(val, str):
        return val.encode("unicode_escape").decode("ascii")
    if isinstance(val, bytes):
        return val.decode("ascii", "backslashreplace")
    if isinstance(val, _PRIMITIVE):
        return str(val)
    return f"{argname}{index}"


def _argnames(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",") if n.strip()]
    if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) for e in node.elts):
        return [str(e.value) for e in node.elts]  # type: ignore[attr-defined]
    return None


def _param_call(node: ast.expr) -> ast.Call | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "param":
        return node
    return None


def _unique(ids: list[str]) -> list[str]:
    repeated = {i for i in ids if ids.count(i) > 1}
    seen: dict[str, int] = {}
    out = []
    for i in ids:
        if i in repeated:
            out.append(f"{i}_{seen.get(i, 0)}")
            seen[i] = seen.get(i, 0) + 1
        else:
            out.append(i)
    return out


def _parameter_sets(call: ast.Call, literals: dict[str, ast.expr]) -> list[_ParamSet] | None:
    """One parametrize mark's sets, or None when they cannot be read without running it."""
    args = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    positional = dict(zip(("argnames", "argvalues"), call.args))
    names_node, values_node = positional.get("argnames", args.get("argnames")), \
        positional.get("argvalues", args.get("argvalues"))
    if names_node is None or values_node is None:
        return None
    names = _argnames(names_node)
    if isinstance(values_node, ast.Name):
        values_node = literals.get(values_node.id, values_node)
    if names is None or not isinstance(values_node, (ast.List, ast.Tuple)):
        return None
    explicit: list[str | None] = []
    if "ids" in args:
        if not isinstance(args["ids"], (ast.List, ast.Tuple)):
            return None
        for e in args["ids"].elts:
            if not (isinstance(e, ast.Constant) and isinstance(e.value, (str, type(None)))):
                return None
            explicit.append(e.value)
    if not values_node.elts:
        return [_ParamSet(id="NOTSET")]
    sets = []
    for index, value in enumerate(values_node.elts):
        marks: tuple[ast.expr, ...] = ()
        given: str | None = explicit[index] if index < len(explicit) else None
        param = _param_call(value)
        if param is not None:
            values = list(param.args)
            for kw in param.keywords:
                if kw.arg == "id" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    given = kw.value.value
                elif kw.arg == "marks":
                    marks = tuple(_marks_in(kw.value))
        elif len(names) == 1:
            values = [value]
        elif isinstance(value, (ast.List, ast.Tuple)):
            values = list(value.elts)
        else:
            return None
        made = "-".join(_value_id(v, n, index) for n, v in zip(names, values))
        sets.append(_ParamSet(id=given if given is not None else made, marks=marks))
    return [replace(s, id=i) for s, i in zip(sets, _unique([s.id for s in sets]))]


def _parametrizations(decorators: list[ast.expr], literals: dict[str, ast.expr]) -> list[list[_ParamSet]] | None:
    """Each parametrize mark's sets, the lowest decorator first; None when one cannot be read."""
    found = []
    for node in reversed(decorators):
        call = _mark(node, "parametrize")
        if call is not None:
            sets = _parameter_sets(call, literals)
            if sets is None:
                return None
            found.append(sets)
    return found


# --- collection -----------------------------------------------------------------------------


class _File:
    def __init__(self, source: str, path: str):
        self.tree = parse(source, path)
        self.lines = source.splitlines()
        self.module = module_name(path)
        self.classes = {n.name: n for n in self.tree.body if isinstance(n, ast.ClassDef)}
        self.literals: dict[str, ast.expr] = {}
        self.module_marks: list[ast.expr] = []
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                if node.targets[0].id == "pytestmark":
                    self.module_marks = _marks_in(node.value)
                elif isinstance(node.value, (ast.List, ast.Tuple)):
                    self.literals[node.targets[0].id] = node.value

    def is_unittest(self, cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        for base in cls.bases:
            name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else ""
            if name in _UNITTEST_BASES:
                return True
            if name in self.classes and name not in seen and self.is_unittest(self.classes[name], seen | {name}):
                return True
        return False

    def members(self, cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> dict[str, ast.stmt]:
        """A class's names as its MRO resolves them, inherited ones (of this file) first."""
        out: dict[str, ast.stmt] = {}
        for base in reversed(cls.bases):
            if isinstance(base, ast.Name) and base.id in self.classes and base.id not in seen:
                out.update(self.members(self.classes[base.id], seen | {base.id}))
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out[node.name] = node
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        out[target.id] = node
        return out

    def cases(self) -> list[PytestCase]:
        top: dict[str, ast.stmt] = {}
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                top[node.name] = node
        out: list[PytestCase] = []
        for name, node in top.items():
            if isinstance(node, ast.ClassDef):
                out.extend(self.class_cases(node, (), []))
            elif name.startswith("test") and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.extend(self.function_cases(node, (), [], []))
        return out

    def class_cases(self, cls: ast.ClassDef, outer: tuple[str, ...], outer_decorators: list[ast.expr]) -> Iterator[
            PytestCase]:
        members = self.members(cls)
        off = members.get("__test__")
        if isinstance(off, ast.Assign) and isinstance(off.value, ast.Constant) and not off.value.value:
            return
        unittest = self.is_unittest(cls)
        if not unittest and (not cls.name.startswith("Test") or "__init__" in members):
            return
        chain = (*outer, cls.name)
        decorators = [*cls.decorator_list, *outer_decorators]
        class_marks = [*cls.decorator_list, *_marks_in(next(
            (n.value for n in cls.body if isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in n.targets)), None))]
        for name, node in members.items():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and name.startswith("test"):
                yield from self.function_cases(node, chain, decorators, class_marks)
            elif isinstance(node, ast.ClassDef) and not unittest and name.startswith("Test"):
                yield from self.class_cases(node, chain, decorators)

    def function_cases(self, func: ast.FunctionDef | ast.AsyncFunctionDef, classes: tuple[str, ...],
                       class_decorators: list[ast.expr], class_marks: list[ast.expr]) -> Iterator[PytestCase]:
        code = exercism_test_code(self.lines, func)
        # The function's parametrize marks first, then its classes'.
        parametrizations = _parametrizations(func.decorator_list, self.literals)
        outer = _parametrizations(class_decorators, self.literals)
        sets = None if parametrizations is None or outer is None else [*parametrizations, *outer]
        if not sets:
            task = _nearest_task(func.decorator_list, class_marks, self.module_marks)
            yield PytestCase(module=self.module, classes=classes, name=func.name, line=func.lineno,
                             test_code=code, task_id=task)
            return
        for combo in itertools.product(*sets):
            param_marks = [m for s in combo for m in s.marks]
            task = _nearest_task(param_marks, func.decorator_list, class_marks, self.module_marks)
            ident = "-".join(s.id for s in combo)
            yield PytestCase(module=self.module, classes=classes, name=f"{func.name}[{ident}]", line=func.lineno,
                             test_code=code, task_id=task)


def declared_cases(source: str, path: str) -> list[PytestCase]:
    """The items pytest collects from a test file at `path` (relative to the rootdir), in
    the file's order; none for a file that does not parse (pytest's collection error)."""
    return list(_declared(source, path))


@functools.lru_cache(maxsize=256)
def _declared(source: str, path: str) -> tuple[PytestCase, ...]:
    # Every round of a task reads its cases: its test files are parsed once a process.
    try:
        return tuple(_File(source, path).cases())
    except (SyntaxError, ValueError, RecursionError):
        return ()


def _test_sources(task: Task) -> list[tuple[str, str]]:
    return [(rel, task.read_text(rel)) for rel in task.test_files if rel.endswith(".py")]


def count_declared(task: Task) -> int:
    """How many test cases the task's test files declare (`Language.declared_test_cases`)."""
    return len(task_cases(task))


def case_texts(task: Task) -> list[CaseText]:
    """The task's test cases as results.json shows them (`Language.case_texts`), keyed by
    the node id, which a Python TestReport names its cases by."""
    return [CaseText(name=f"{rel}::{c.node}", title=c.title(), test_code=c.test_code, task_id=c.task_id)
            for rel, c in task_cases(task)]


def task_cases(task: Task) -> list[tuple[str, PytestCase]]:
    """Every case of the task's test files, with the file it is in."""
    return [(rel, c) for rel, text in _test_sources(task) for c in declared_cases(text, rel)]
