"""Python's side of written test suites (testwriting/): a pytest file's skeleton, its code
as the copy check compares it, the screen a written suite passes before it runs, its shape,
and every assertion of it evaluated on the correct solution.

The written suite is the model's, and it runs in the test process, beside the proxy of the
solution it tests (testrun.py): that process can read the files of the round. A suite that
could read the solution's text (and so tell the correct one from a broken copy by what it
is, not by what it does), the harness's records or pytest's machinery would earn a kill
rate for nothing, so before it runs anywhere it passes the static screen of a candidate
(screen.py) with a suite's allowances (_SuiteScreen): besides the pure computing modules,
`pytest` (raises, approx, fail, param, fixture, mark.parametrize, mark.task) and `unittest`
(TestCase),
and the solution's own modules by name, never imported here; no other pytest fixture as a
test's parameter (`request`, `monkeypatch`, `tmp_path` reach the runner's machinery or the
disk); no file, no reflection, no dunder. `if __name__ == "__main__":` at the top level is
never run under pytest and is not read.

Assertions evaluated one by one: the suite is rewritten (on its syntax tree) so that each
assertion statement (`assert`, a `self.assert...(...)` call, a `with pytest.raises(...)`
or `with self.assertRaises(...)` block) records whether it held and the test goes on,
then runs once on the correct solution as the fill run does (fill.run_recording); the
records are read back with the codec's bounds. A suite cannot call the recorder: its name
is a dunder, which the screen refuses."""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
import unittest
from typing import Iterable

from ...records import AssertionCount, SuiteShape
from ...sandbox.base import SandboxSession
from ...task import Task

from .fill import read_records, run_recording
from .placeholders import RECORDER
from .screen import ALLOWED_MODULES, Refusal, _Screen, parse

SUITE_MODULES = ALLOWED_MODULES | {"pytest", "unittest", "copy"}
_PYTEST = frozenset({"raises", "approx", "fail", "param", "fixture", "mark", "warns"})
_UNITTEST = frozenset({"TestCase"})
# The marks a suite may set: cases of one test, and Exercism's task marker (a label). Not
# skip or xfail, which turn a failure into something else.
_MARKS = frozenset({"pytest.mark.parametrize", "pytest.mark.task"})
_EQUAL = frozenset({
    "assertEqual", "assertEquals", "assertListEqual", "assertDictEqual", "assertTupleEqual", "assertSetEqual",
    "assertSequenceEqual", "assertCountEqual", "assertMultiLineEqual", "assertAlmostEqual", "assertAlmostEquals",
})
_TRUTH = frozenset({"assertTrue", "assertFalse", "assert_"})
_PREDICATES = frozenset({"isinstance", "issubclass", "all", "any", "callable", "hasattr", "len"})
_FAILED = "__harness_failed__"
# What pytest reads from a test module besides its tests: plugins to load, files to skip.
_PYTEST_MODULE_NAMES = frozenset({"pytest_plugins", "collect_ignore", "collect_ignore_glob", "pytestmark"})
# What unittest judges a test with: a test class may define its tests, its fixtures
# (setUp, tearDown and their class forms) and how its failures read (maxDiff, longMessage).
_TESTCASE_MACHINERY = frozenset(n for n in dir(unittest.TestCase) if not n.startswith("__")) - {
    "setUp", "tearDown", "setUpClass", "tearDownClass", "maxDiff", "longMessage"}


# --- skeleton and words ------------------------------------------------------------------


def skeleton(source: str) -> bytes:
    """The test file up to its first statement that is not an import or the module's
    docstring (with that statement's decorators and the comments right above it left out)."""
    try:
        tree = parse(source)
    except (SyntaxError, ValueError):
        return b""
    lines = source.splitlines(keepends=True)
    for i, stmt in enumerate(tree.body):
        doc = i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) or doc:
            continue
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))]) - 1
        while first > 0 and lines[first - 1].lstrip().startswith("#"):
            first -= 1
        return ("".join(lines[:first]).rstrip() + "\n").encode()
    return source.encode()


def code_words(text: str, depth: int = 0) -> list[str]:
    """Keywords and punctuation as they are, names and numbers by their kind, a string's
    text read as the code it may hold (two levels deep); comments and layout gone."""
    out: list[str] = []
    for t in _tokens(text):
        if t.type == tokenize.NAME:
            out.append(t.string if keyword.iskeyword(t.string) or keyword.issoftkeyword(t.string) else "ID")
        elif t.type == tokenize.NUMBER:
            out.append("NUM")
        elif t.type == tokenize.STRING:
            inner = _string_text(t.string) if depth < 2 else None
            out += (code_words(inner, depth + 1) if inner else []) or ["STR"]
        elif t.type == tokenize.OP:
            out.append(t.string)
    return out


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    """The text's tokens up to the first it cannot read (a copy may be a fragment)."""
    out: list[tokenize.TokenInfo] = []
    try:
        out.extend(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def _string_text(literal: str) -> str | None:
    try:
        value = ast.literal_eval(literal)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


def function_bodies(text: str) -> list[list[str]]:
    """The code_words of each function's body (nested ones within theirs, and on their own)."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return []
    bodies = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if ast.get_docstring(node) is not None and len(node.body) > 1 else node.body
            bodies.append(code_words("\n".join(ast.get_source_segment(text, s) or "" for s in body)))
    return bodies


# --- the screen --------------------------------------------------------------------------


class _SuiteScreen(_Screen):
    # What a test may not name: what runs text as code, reads the process's names, opens a
    # file or stops in a debugger. (`input` reads an empty stdin; `exit` ends only its test.)
    refused_builtins = frozenset({"eval", "exec", "compile", "globals", "locals", "vars", "open", "breakpoint",
                                  "help", "__import__"})
    # A dunder as a word of its own: `'___b__'`, a masked word, is not one.
    dunder_string = re.compile(r"(?<![A-Za-z0-9_])__[A-Za-z][A-Za-z0-9_]*__(?![A-Za-z0-9_])")

    def __init__(self, file: str, tree: ast.Module, solution: frozenset[str]):
        super().__init__(file, tree)
        self.solution = solution
        self.one_argument_type: set[int] = set()
        self.defined = {f.name for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
        # Names bound by `from M import x`: `x.attr = ...` changes M's object.
        self.imported = {(a.asname or a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        for stmt in tree.body:
            for name in _bound_names(stmt):
                if name in _PYTEST_MODULE_NAMES:
                    self.refuse("runner", stmt, f"binds {name}, which pytest reads from a test module")
        self.fixtures = {f.name for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                         and any(self.is_fixture(d) for d in f.decorator_list)}

    def allows(self, module: str) -> bool:
        return module in SUITE_MODULES or module in self.solution

    def visit_Call(self, node: ast.Call) -> None:
        # `type(x)` names a value's class, as tests check it (`type(err.exception)`); with
        # three arguments it would make a class of names computed at run time.
        if isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) == 1 and not node.keywords:
            self.one_argument_type.add(id(node.func))
        super().visit_Call(node)

    def visit_Name(self, node: ast.Name) -> None:
        if id(node) not in self.one_argument_type:
            super().visit_Name(node)

    def check_own(self, node: ast.AST, target: ast.expr | None) -> None:
        # A test sets attributes of the solution's objects through their proxies (`input.value
        # = 2`); what hangs off a module (`unittest.TestCase.run`, `pytest.approx`) is the
        # runner's, and changing it would change how every test is judged.
        root = target
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(root, ast.Name) and target is not None and (root.id in self.modules or root.id in self.imported):
            self.refuse("mutation", node, f"sets or deletes an attribute of {ast.unparse(target)[:60]}, which is "
                        "the test runner's or a module's")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        # A test class may not redefine what unittest runs a test with (`run`, `assertEqual`,
        # `failureException`): its tests would pass without being judged.
        for stmt in _class_level(node.body):
            if isinstance(stmt, ast.Assign) and _unittests_own(stmt.value):
                continue  # another name for one of unittest's own methods (robot-name's assertRegex)
            for name in _bound_names(stmt):
                if name in _TESTCASE_MACHINERY:
                    self.refuse("runner", stmt, f"redefines {name}, which unittest judges tests with")
        super().visit_ClassDef(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        # A message template held in a name (`msg.format(...)`): its text was screened where
        # it was written, where a field that reads a dunder is refused.
        if node.attr in ("format", "format_map") and isinstance(node.value, ast.Name):
            self.visit(node.value)
            return
        super().visit_Attribute(node)

    def check_attr_name(self, node: ast.AST, name: str) -> None:
        # The suite's own helpers may be named as mock's machinery is (`self.assert_chain`).
        if name not in self.defined:
            super().check_attr_name(node, name)

    def module_name_problem(self, module: str, name: str) -> str | None:
        if module in self.solution:
            return f"{module}.{name} is private" if name.startswith("_") else None
        if module == "pytest" and name not in _PYTEST or module == "unittest" and name not in _UNITTEST:
            return f"{module}.{name} is not allowed in a written suite"
        return super().module_name_problem(module, name)

    def value_of(self, module: str, name: str) -> object:
        return None if module in self.solution else super().value_of(module, name)

    def is_fixture(self, node: ast.expr) -> bool:
        target = node.func if isinstance(node, ast.Call) else node
        return ast.unparse(target) in ("pytest.fixture", "fixture")

    def check_decorators(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        rest = []
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if self.is_fixture(decorator) or ast.unparse(target) in _MARKS:
                self.visit(decorator)  # its arguments are code like any other
            else:
                rest.append(decorator)
        saved, node.decorator_list = node.decorator_list, rest
        try:
            super().check_decorators(node)
        finally:
            node.decorator_list = saved
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.check_parameters(node)

    def check_parameters(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """A test's or fixture's parameters are pytest's fixtures by name: only the suite's
        own fixtures and its parametrized names may be asked for."""
        if not (node.name.startswith("test") or node.name in self.fixtures):
            return
        given = set(self.fixtures)
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and ast.unparse(decorator.func) == "pytest.mark.parametrize" and decorator.args:
                given |= set(_argnames(decorator.args[0]))
        params = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        if params and id(node) in self.methods:
            params = params[1:]
        for p in params:
            if p.arg not in given:
                self.refuse("fixture", node, f"the parameter {p.arg}: only the suite's own fixtures and "
                            "parametrized names")


def _class_level(body: list[ast.stmt]) -> Iterable[ast.stmt]:
    """The statements of a class body, with those nested in its blocks (not in its methods)."""
    for stmt in body:
        yield stmt
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                yield from _class_level(getattr(stmt, field, []))
            for handler in getattr(stmt, "handlers", []):
                yield from _class_level(handler.body)


def _unittests_own(value: ast.expr) -> bool:
    """`unittest.TestCase.name` or `TestCase.name`: a method of unittest's own."""
    return (isinstance(value, ast.Attribute) and ast.unparse(value.value) in ("unittest.TestCase", "TestCase")
            and value.attr in _TESTCASE_MACHINERY)


def _bound_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
        stmt, (ast.AnnAssign, ast.AugAssign)) else []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _argnames(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",") if n.strip()]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.value.strip() for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _main_block(stmt: ast.stmt) -> bool:
    """`if __name__ == "__main__":`, which pytest never runs."""
    return (isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Compare) and len(stmt.test.ops) == 1
            and isinstance(stmt.test.ops[0], ast.Eq) and isinstance(stmt.test.left, ast.Name)
            and stmt.test.left.id == "__name__" and len(stmt.test.comparators) == 1
            and isinstance(stmt.test.comparators[0], ast.Constant) and stmt.test.comparators[0].value == "__main__"
            and not stmt.orelse)


def suite_refusals(source: bytes, test_file: str, solution_modules: Iterable[str]) -> list[Refusal]:
    try:
        tree = parse(source, test_file)
    except (SyntaxError, ValueError) as exc:
        return [Refusal("syntax", test_file, getattr(exc, "lineno", None) or 0, str(exc)[:200])]
    except (RecursionError, MemoryError):
        return [Refusal("syntax", test_file, 0, "too deeply nested to read")]
    tree.body = [s for s in tree.body if not _main_block(s)]
    return sorted(_SuiteScreen(test_file, tree, frozenset(solution_modules)).run(), key=lambda r: r.line)


# --- assertions: where, what kind, each evaluated -----------------------------------------


def _call_name(node: ast.expr) -> str:
    return node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else ""


def assertion_kind(stmt: ast.stmt) -> str | None:
    """equality, exception, property or other for an assertion statement; None otherwise."""
    if isinstance(stmt, ast.With):
        if any(_call_name(item.context_expr).startswith(("raises", "assertRaises", "warns", "assertWarns"))
               for item in stmt.items):
            return "exception"
        return None
    if isinstance(stmt, ast.Assert):
        test = stmt.test
        if isinstance(test, ast.Compare):
            return "equality" if len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) else "property"
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in _PREDICATES:
            return "property"
        return "other"
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        name = _call_name(stmt.value)
        if name.startswith(("assertRaises", "assertWarns")) or name == "raises":
            return "exception"
        if name in _EQUAL:
            return "equality"
        if name in _TRUTH:
            return "other"
        if name.startswith("assert"):
            return "property"
        if name == "fail":
            return "other"
    return None


def _checked(stmt: ast.stmt) -> list[ast.expr]:
    """What an assertion's truth is computed from (its message left out)."""
    if isinstance(stmt, ast.Assert):
        return [stmt.test]
    if isinstance(stmt, ast.With):
        return [item.context_expr for item in stmt.items] + [n for s in stmt.body for n in ast.walk(s)
                                                               if isinstance(n, ast.expr)][:1]
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return list(stmt.value.args) + [k.value for k in stmt.value.keywords if k.arg != "msg"]
    return []


def _constant(stmt: ast.stmt) -> bool:
    """Whether no run of the solution can change the assertion's truth: it names and calls
    nothing, or compares one expression with itself."""
    checked = _checked(stmt)
    if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare) and len(stmt.test.ops) == 1:
        if ast.dump(stmt.test.left) == ast.dump(stmt.test.comparators[0]):
            return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _call_name(stmt.value) in _EQUAL:
        args = stmt.value.args
        if len(args) >= 2 and ast.dump(args[0]) == ast.dump(args[1]):
            return True
    return bool(checked) and not any(isinstance(n, (ast.Name, ast.Call, ast.Attribute))
                                     for e in checked for n in ast.walk(e))


def _assertions(tree: ast.AST) -> list[ast.stmt]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and assertion_kind(n) is not None]


def _is_test(node: ast.AST) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")


def suite_shape(source: bytes) -> SuiteShape | None:
    text = source.decode("utf-8", "replace")
    try:
        tree = parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    tree.body = [s for s in tree.body if not _main_block(s)]
    found = _assertions(tree)
    kinds = [assertion_kind(s) for s in found]
    tests = [n for s in tree.body for n in ([s] + (s.body if isinstance(s, ast.ClassDef) else [])) if _is_test(n)]
    lines = sum(1 for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#"))
    return SuiteShape(tests=len(tests), assertions=len(found), equality=kinds.count("equality"),
                      exception=kinds.count("exception"), property=kinds.count("property"),
                      other=kinds.count("other"), constant=sum(map(_constant, found)), lines=lines)


class _Soft(ast.NodeTransformer):
    """Each assertion statement made to record whether it held (the recorder's site its
    number, its value a bool) and let the test go on: an exception it raises is a failure
    of it (as in Catch2), pytest's Failed too (pytest.raises that saw nothing), and any
    other BaseException ends the test as it would have."""

    def __init__(self) -> None:
        self.sites = 0

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        if isinstance(node, ast.stmt) and assertion_kind(node) is not None:
            site, self.sites = self.sites, self.sites + 1
            return _recorded(node, site)
        return node


def _record(site: int, held: bool) -> ast.stmt:
    return ast.Expr(ast.Call(ast.Name(RECORDER, ast.Load()), [ast.Constant(site), ast.Constant(held)], []))


def _recorded(stmt: ast.stmt, site: int) -> ast.stmt:
    failed = ast.Name(_FAILED, ast.Load())
    not_pytest = ast.Compare(ast.Attribute(ast.Call(ast.Name("type", ast.Load()), [failed], []), "__name__", ast.Load()),
                             [ast.NotEq()], [ast.Constant("Failed")])
    return ast.Try(body=[stmt], handlers=[
        ast.ExceptHandler(ast.Name("Exception", ast.Load()), None, [_record(site, False)]),
        ast.ExceptHandler(ast.Name("BaseException", ast.Load()), _FAILED,
                          [ast.If(not_pytest, [ast.Raise()], []), _record(site, False)]),
    ], orelse=[_record(site, True)], finalbody=[])


def soft_suite(source: bytes) -> tuple[str, int] | None:
    """The suite with every assertion recording and going on, and how many sites; None
    where it does not parse."""
    try:
        tree = parse(source.decode("utf-8", "surrogateescape"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    soft = _Soft()
    tree = soft.visit(tree)
    at = 0
    while at < len(tree.body) and isinstance(tree.body[at], ast.ImportFrom) and tree.body[at].module == "__future__":
        at += 1
    tree.body.insert(at, ast.ImportFrom("_harness_proxy.record", [ast.alias("record", RECORDER)], 0))
    return ast.unparse(ast.fix_missing_locations(tree)), soft.sites


def evaluated_assertions(task: Task, test_file: str, source: bytes, session: SandboxSession) -> AssertionCount | None:
    """Every assertion evaluation of the suite on the correct solution, each on its own;
    None where the run gave nothing that is the recorder's."""
    soft = soft_suite(source)
    if soft is None:
        return None
    text, sites = soft
    if not sites:
        return AssertionCount(passed=0, failed=0)
    ran = run_recording(task, test_file, text, session)
    if ran.status in ("timeout", "incomplete"):
        return None
    records, forged = read_records(ran.records, ran.truncated, sites)
    values = [v for vs in records.values() for v in vs]
    if forged is not None or any(type(v) is not bool for v in values):
        return None
    return AssertionCount(passed=sum(values), failed=len(values) - sum(values))
