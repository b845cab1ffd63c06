"""Output prediction on Python code (`languages.language.PredictionTerms`, `item_calls`).

An answer writes each value as a Python literal (`(1, 2)`, `{'a': 1}`, `b'x'`, `set()`), read
back in the harness's process with `ast.literal_eval`, bounded, and written in the probe's
value schema by the driver's own encoder (probe/runtime.py), so a tuple is never a list and
a set's members count in any order, as the probe observed them. A value the schema holds
but no literal writes (an object of the candidate's, a class, a range, a non-finite float,
a digest) renders as None: such an observation is no item.

A task without verifier checks offers the calls its own tests make (`item_calls`). A test
function that takes nothing but `self` (one given fixtures or mocks runs in a world of the
test's making) and is statements and assertions is one call sequence: its statements as they
are, each assertion an observation of what it checks (an equality's actual side, what
`assert` or a one-value unittest assertion is given), each expression in a block that
expects it to raise an observation; an assignment that nothing after it reads is left out (a
test's `expected = ...` is the answer). A test of assertions alone gives each observed
expression as a call of its own. A call reads no name but the solution modules' public names
(by the names the test file imports them as, written back as the modules name them:
HumanEval's `candidate`), a few pure builtins and names it binds itself; a test that reads
anything else (a loop's variable, `self`, a helper of the test file's, a module) gives none."""

from __future__ import annotations

import ast
from typing import Any, Iterator

from ....probe import schema
from ....task import Task
from ...language import ItemCalls, PredictionTerms, TestCall
from ..expected import expected_and_actual
from .calls import OBSERVE, default_prelude, public_names
from .run import BOUNDS
from .runtime import Encoder
from ..screen import parse

SYSTEM = "You read Python code and predict exactly what a call of it produces when it runs."

FORMAT = """Answer with the value only, in a fenced block, one line per observation in order:
- the value as a Python literal, as repr() writes it: 3, 2.5, 'text', True, None, [1, 2], (1, 2), {'a': 1}, {1, 2},
  set(), b'bytes';
- `raises <type>` when that observation raises, with the exception's class name (e.g. ValueError).
If a statement that is not an observation raises, the call stops there: add one last line `call ends: raises <type>`."""

# Builtins a call may use besides the task's names: pure functions of their arguments.
_BUILTINS = frozenset({"abs", "all", "any", "bool", "bytes", "dict", "divmod", "enumerate", "filter", "float",
                       "frozenset", "int", "isinstance", "len", "list", "map", "max", "min", "ord", "chr", "range",
                       "repr", "reversed", "round", "set", "sorted", "str", "sum", "tuple", "type", "zip",
                       "True", "False", "None"})
MAX_CALL = 2000  # characters of one call's text
MAX_OBSERVATIONS = 32  # observations of one call sequence (predict/prompt.py's bound)


class _NoLiteral(Exception):
    pass


def _literal(value: Any) -> str:
    """A schema value as the literal that reads back as it; _NoLiteral when there is none."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float, str)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict) and len(value) == 1:
        (kind, inner), = value.items()
        if kind == "int" and isinstance(inner, str):
            return inner
        if kind == "bytes" and isinstance(inner, str):
            return repr(bytes.fromhex(inner))
        if kind == "tuple" and isinstance(inner, list):
            items = [_literal(v) for v in inner]
            return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
        if kind == "set" and isinstance(inner, list):
            return "{" + ", ".join(_literal(v) for v in inner) + "}" if inner else "set()"
        if kind == "dict" and isinstance(inner, list):
            return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in inner) + "}"
    raise _NoLiteral


def render(value: Any) -> str | None:
    try:
        return _literal(value)
    except (_NoLiteral, ValueError, TypeError):
        return None


_ENCODER = Encoder(BOUNDS, lambda value: False, lambda value: None)


def read(text: str) -> Any:
    """A model's literal as the probe would have written the value; ValueError when it is
    none (or over the schema's bounds)."""
    if len(text) > schema.MAX_RECORD:
        raise ValueError("longer than a record")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise ValueError(f"not a Python literal: {type(exc).__name__}") from None
    if isinstance(value, complex):
        raise ValueError("a complex number is no value the probe writes")
    return _ENCODER.value(value)


TERMS = PredictionTerms(answer="python", fence="python", comment="#", system=SYSTEM, format=FORMAT, throws="raises ",
                        render=render, read=read)


# --- the calls a task's tests make ----------------------------------------------------------


def _aliases(tree: ast.Module, names: set[str]) -> dict[str, str]:
    """Names the test file gives the solution's public names (`from m import f as g`,
    `g = f` at the top), mapped to those names."""
    out = {n: n for n in names}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname and alias.name in names:
                    out[alias.asname] = alias.name
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Name) and node.value.id in out:
            out[node.targets[0].id] = out[node.value.id]
    return out


# unittest's assertions of one value, and of two values compared, besides assertEqual.
_OF_ONE = frozenset({"assertTrue", "assertFalse", "assertIsNone", "assertIsNotNone"})
_OF_TWO = frozenset({"assertSetEqual", "assertDictEqual", "assertListEqual", "assertTupleEqual", "assertSequenceEqual",
                     "assertMultiLineEqual", "assertCountEqual", "assertAlmostEqual", "assertIs", "assertIsNot"})


def _observed(node: ast.AST) -> ast.expr | None:
    """What an assertion observes: an equality's or identity's actual side (the side that
    calls, or the first), what `assert` tests, the value a unittest assertion of one value
    is given."""
    sides = expected_and_actual(node)
    if sides is not None:
        return sides[1]
    if isinstance(node, ast.Assert):
        test = node.test
        if isinstance(test, ast.Compare):  # `assert f(x) is True`: the side that calls, as for ==
            if len(test.ops) != 1 or not isinstance(test.ops[0], (ast.Is, ast.IsNot)):
                return None
            return _actual(test.left, test.comparators[0])
        return test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else test
    if isinstance(node, ast.Expr) and isinstance(call := node.value, ast.Call) and isinstance(call.func, ast.Attribute):
        if call.func.attr in _OF_ONE and call.args:
            return call.args[0]
        if call.func.attr in _OF_TWO and len(call.args) >= 2:
            return _actual(call.args[0], call.args[1])
    return None


def _actual(first: ast.expr, second: ast.expr) -> ast.expr:
    return second if _has_call(second) and not _has_call(first) else first


def _has_call(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


class _Rename(ast.NodeTransformer):
    def __init__(self, aliases: dict[str, str]):
        self.aliases = aliases

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.copy_location(ast.Name(id=self.aliases.get(node.id, node.id), ctx=node.ctx), node)


def _reads_only(node: ast.AST, aliases: dict[str, str], local: set[str]) -> bool:
    """Whether the node reads no name but the task's, pure builtins and `local` (names it
    binds itself count), nor a dunder attribute, and makes no function of its own."""
    bound = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and not (
                n.id in aliases or n.id in _BUILTINS or n.id in local or n.id in bound):
            return False
        if isinstance(n, ast.Attribute) and n.attr.startswith("__"):
            return False
        if isinstance(n, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.FunctionDef,
                          ast.ClassDef, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom)):
            return False
    return True


def _calls_task(node: ast.AST, aliases: dict[str, str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in aliases for n in ast.walk(node)) and _has_call(node)


def _as_call(expr: ast.expr, aliases: dict[str, str]) -> str | None:
    """The expression as a call on its own, or None when it reads anything else."""
    if not (_reads_only(expr, aliases, set()) and _calls_task(expr, aliases)):
        return None
    text = ast.unparse(_Rename(aliases).visit(expr))
    return text if len(text) <= MAX_CALL else None


def _raises_block(stmt: ast.stmt) -> list[ast.stmt] | None:
    """The body of `with self.assertRaises(...)` or `with pytest.raises(...)`."""
    if isinstance(stmt, ast.With) and len(stmt.items) == 1 and isinstance(call := stmt.items[0].context_expr, ast.Call) \
            and isinstance(call.func, ast.Attribute) and call.func.attr in ("assertRaises", "raises"):
        return stmt.body
    return None


def _steps(body: list[ast.stmt]) -> list[tuple[bool, ast.AST]] | None:
    """A test's statements as (observation, node): each assertion's observed expression, each
    expression statement in a block that expects it to raise, every other statement as it
    is; None for a test of any other shape (a loop, a branch, a helper of the test's)."""
    steps: list[tuple[bool, ast.AST]] = []
    for stmt in body:
        inner = _raises_block(stmt)
        observed = _observed(stmt)
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a docstring
        if observed is not None:
            steps.append((True, observed))
        elif inner is not None and all(isinstance(s, ast.Expr) for s in inner):
            steps += [(True, s.value) for s in inner if isinstance(s, ast.Expr)]
        elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)):
            steps.append((False, stmt))
        else:
            return None
    return steps


def _sequence(func: ast.FunctionDef, aliases: dict[str, str]) -> str | None:
    """A test as one call sequence (statements and `=>` observations), or None where it is
    not one or is its assertions alone. An assignment whose names nothing after it reads is
    left out: a test's `expected = ...` is the answer."""
    steps = _steps(func.body)
    if steps is None or not any(observe for observe, _ in steps) or all(observe for observe, _ in steps):
        return None
    read: set[str] = set()
    kept: list[tuple[bool, ast.AST]] = []
    for observe, node in reversed(steps):
        stores = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if not observe and stores and not stores & read:
            continue
        kept.append((observe, node))
        read |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    kept.reverse()
    if all(observe for observe, _ in kept):
        return None  # assertions alone: each is a call of its own
    local: set[str] = set()
    lines = []
    for observe, node in kept:
        if not _reads_only(node, aliases, local):
            return None
        local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        text = ast.unparse(_Rename(aliases).visit(node))
        lines.append(f"{OBSERVE} {text}" if observe else text)
    text = "\n".join(lines)
    observations = sum(observe for observe, _ in kept)
    return text if len(text) <= MAX_CALL and observations <= MAX_OBSERVATIONS and _calls_task(func, aliases) else None


def _tests(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef]]:
    """The test functions that take nothing but `self`: one given fixtures or mocks runs
    its calls in a world of the test's making."""
    for node in tree.body:
        found = [(f"{node.name}.{f.name}", f, 1) for f in node.body if isinstance(f, ast.FunctionDef)] \
            if isinstance(node, ast.ClassDef) else [(node.name, node, 0)] if isinstance(node, ast.FunctionDef) else []
        for name, func, own in found:
            args = func.args
            if func.name.startswith("test") and len(args.posonlyargs + args.args) == own and not (
                    args.vararg or args.kwarg or args.kwonlyargs):
                yield name, func


def _calls_of(func: ast.FunctionDef, aliases: dict[str, str]) -> list[str]:
    """The test as one call sequence, else each expression its assertions observe that is a
    call on its own, in the order the syntax tree is walked."""
    sequence = _sequence(func, aliases)
    if sequence is not None:
        return [sequence]
    observed = (_observed(node) for node in ast.walk(func))
    return [call for expr in observed if expr is not None and (call := _as_call(expr, aliases)) is not None]


def _test_functions(task: Task) -> Iterator[tuple[str, str, str, list[str]]]:
    """Each test function of the task's test files: (file, test, its source, its calls)."""
    names = {n for module in public_names(task).values() for n in module}
    for rel in task.test_files:
        if not rel.endswith(".py"):
            continue
        try:
            text = task.read_text(rel)
            tree = parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        aliases = _aliases(tree, names)
        for test, func in _tests(tree):
            yield rel, test, ast.get_source_segment(text, func) or "", _calls_of(func, aliases)


def item_calls(task: Task) -> ItemCalls:
    calls: dict[str, str] = {}
    for _, test, _, found in _test_functions(task):
        for call in found:
            calls.setdefault(call, test)
    return ItemCalls([(test, call) for call, test in calls.items()], prelude=default_prelude(task))


def test_calls(task: Task) -> list[TestCall]:
    """Each test function that gives calls as one call (`Language.test_calls`), named by its
    pytest node id: its call sequence, or its calls as one sequence of observations. Its
    expected values stay out (an assertion observes its actual side; an `expected = ...`
    nothing but an assertion reads is left out), so a judge is shown the call as it is. No
    literals are read for the instructions' rule: the first tests are public."""
    out = []
    for rel, test, source, calls in _test_functions(task):
        call = calls[0] if len(calls) == 1 else "\n".join(f"{OBSERVE} {c}" for c in calls)
        if calls and len(call) <= MAX_CALL and len(calls) <= MAX_OBSERVATIONS:
            out.append(TestCall(name=f"{rel}::{test.replace('.', '::')}", call=call, source=source))
    return out
