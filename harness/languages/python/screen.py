"""The static screen of a candidate whose tests run in its own process (inprocess.py).

There the candidate's module is imported by pytest, so whatever it can name, it can change:
pytest, its reports, `sys.exit`, `builtins`, the test's mocks and the frames of the test
that called it. The screen parses the candidate's files (`ast`, in the harness's process,
before anything is staged) and refuses, with the rule and the line, every route to them it
knows; what it cannot parse is refused too. A refusal makes the round `forged` without a run
(TestReport.overruled). It is a whitelist where it can be: a small set of modules, names,
decorators and module-level statements; a denylist only for what honest code writes too
(attributes, dunder methods).

The rules (RULES, each one a reason):
- import: only modules of ALLOWED_MODULES, by their own name; never `*`; a module object
  only as the base of `module.name`, and that name checked against the module itself
  (importing it here, the standard library's): not private, not one that opens files or
  reaches another module (`random._os`, `dataclasses.sys`, `io.open`), not one that reads
  attributes by a name computed at run time (`operator.attrgetter`, `string.Formatter`).
- builtin: `type` (`type(type(x))` is type itself, which makes a class of names computed
  at run time: `isinstance` is what a solution needs), `__import__`, `eval`, `exec`, `compile`, `globals`, `locals`, `vars`, `breakpoint`,
  `open`, `input`, `help`, `exit`, `quit`, and the exceptions that end a run rather than fail
  a test (SystemExit, KeyboardInterrupt, BaseException).
- dunder: any name, attribute or keyword argument `__x__`, but a method's own name, a call by name of a
  data-model method that a call, `with` or `for` makes anyway (`super().__init__(...)`,
  `self._file.__exit__(...)`), `__slots__` in a class body and `from __future__ import`;
  any string constant holding one (a name given to `format` or reflection at run time).
- comparison: a method that decides how the candidate's objects compare or test as true
  (`__eq__`, `__bool__`, `__len__`, `__contains__`, ...): through the proxy a test compares
  values decoded in its own process; here an object that equals everything would pass
  `assertEqual`, so no such method is written.
- internals: attributes of frames, code, tracebacks, generators and coroutines (`f_*`,
  `co_*`, `tb_*`, `gi_*`, `cr_*`, `ag_*`) and of `unittest.mock`'s machinery (`assert_*`,
  `called`, `call_args`, `side_effect`, ...): what would reach the test's stack or make its
  mock's assertions hold.
- reflection: `getattr`/`setattr`/`delattr`/`hasattr` whose name is not a string constant,
  or is one that the rules above refuse; any of these other than called by its name (`g = getattr`, `map(getattr, ...)`).
- mutation: setting or deleting an attribute (`x.a = ...`, `setattr`) of anything but the
  method's own object, its first parameter: through the proxy no object the test lends
  can be changed, here a mock's or a helper's counters could.
- format: `.format`/`.format_map` of anything but a string constant, or of one with a field
  that reads an attribute (`"{0.f_back}"`).
- class: a metaclass or other class keyword; a base `type`.
- decorator: any but `property`, `staticmethod`, `classmethod` and a property's
  `.setter`/`.getter`/`.deleter`.
- scope: `global` of a name the module does not bind at its top level.
- module-level: at the top level only imports, definitions, docstrings and assignments to
  names of values computed from constants (`_constant`: literals, names, `module.name`,
  their displays, operations and calls, `re.compile("...")`, but no call of the module's
  own functions or classes): nothing of the candidate's runs at import, when pytest
  collects the test file.

What it does not stop: anything done through objects the test hands over (a mock file's
public methods are there to be called), and an honest module's time and memory, which the
sandbox's limits bound."""

from __future__ import annotations

import ast
import importlib
import re
import string
import threading
import types
from dataclasses import dataclass
from typing import Iterable, Mapping

# The modules a solution may import: the pure computing modules of the standard library that
# references of exercises use (Aider's 34 use collections, dataclasses, functools, itertools,
# json, operator, random, re, string and io; paasio's reference io alone). None of them reads
# the process's state (sys, os, gc, inspect, threading, importlib, builtins are not here);
# enum and abc are not here either, for their class factories (`Enum("X", [(name, f)])`
# and `ABCMeta(name, bases, namespace)` make a class of names computed at run time).
ALLOWED_MODULES = frozenset({
    "__future__", "bisect", "collections", "collections.abc", "dataclasses", "decimal", "fractions",
    "functools", "heapq", "io", "itertools", "json", "math", "operator", "random", "re", "statistics",
    "string", "textwrap", "typing",
})
# Names of allowed modules that open files, run code given as text, read attributes by a
# name computed at run time or make a class of such names (and any metaclass, below).
_MODULE_NAMES_REFUSED = frozenset({
    "open", "open_code", "FileIO", "attrgetter", "methodcaller", "Formatter", "get_type_hints",
    "ForwardRef", "evaluate_forward_ref", "get_annotations", "load", "dump", "make_dataclass",
})
_BUILTINS_REFUSED = frozenset({
    "type", "eval", "exec", "compile", "globals", "locals", "vars", "breakpoint", "open", "input", "help", "exit",
    "quit", "SystemExit", "KeyboardInterrupt", "BaseException",
})
_REFLECTION = frozenset({"getattr", "setattr", "delattr", "hasattr"})
# Builtins that may only be called where they stand, where their arguments are checked.
_CALLED_ONLY = _REFLECTION
_DECORATORS = frozenset({"property", "staticmethod", "classmethod"})
_PROPERTY_PARTS = frozenset({"setter", "getter", "deleter"})
_COMPARISON = frozenset({
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__len__", "__contains__",
    "__hash__", "__instancecheck__", "__subclasscheck__", "__index__", "__int__", "__float__",
})
# The data model's methods that may be called by name (`super().__init__(...)`,
# `self._file.__exit__(...)`: what a call, `with` or `for` does anyway): those that build,
# enter, iterate and show an object, not those that read or write its attributes by name.
_DATA_MODEL_CALLS = frozenset({
    "__init__", "__new__", "__enter__", "__exit__", "__iter__", "__next__", "__repr__", "__str__",
    "__getitem__", "__setitem__", "__delitem__", "__add__", "__sub__", "__mul__", "__call__", "__del__",
    "__init_subclass__", "__post_init__",
})
_INTERNAL_PREFIXES = ("f_", "co_", "tb_", "gi_", "cr_", "ag_", "assert_", "_mock_")
_MOCK_NAMES = frozenset({
    "called", "call_count", "call_args", "call_args_list", "mock_calls", "method_calls", "return_value",
    "side_effect", "reset_mock", "configure_mock", "attach_mock", "mock_add_spec",
})
_DUNDER = re.compile(r"__\w+__")
# CPython 3.11's parser is not safe in concurrent threads (a SystemError, "AST constructor
# recursion depth mismatch", where the workers of `suite validate` parse at once).
_PARSING = threading.Lock()


def parse(source: bytes | str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, one thread at a time."""
    with _PARSING:
        return ast.parse(source, filename=filename)


def compile_exec(source: str, filename: str) -> None:
    """`compile` a module's source (SyntaxError or ValueError if it does not), one thread at
    a time: the compiler parses first."""
    with _PARSING:
        compile(source, filename, "exec", dont_inherit=True)


@dataclass(frozen=True)
class Refusal:
    """Why a candidate's file is refused: the rule, where, and what."""

    rule: str
    file: str
    line: int
    why: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.file}:{self.line}: {self.why}"


def screen(files: Mapping[str, bytes]) -> list[Refusal]:
    """The refusals of the candidate's .py files, in file and line order (empty: it may run)."""
    refusals: list[Refusal] = []
    for name in sorted(f for f in files if f.endswith(".py")):
        try:
            tree = parse(files[name], name)
        except (SyntaxError, ValueError) as exc:
            # pytest would report it as an import error; refused here, nothing of it runs.
            refusals.append(Refusal("syntax", name, getattr(exc, "lineno", None) or 0, str(exc)[:200]))
            continue
        refusals += sorted(_Screen(name, tree).run(), key=lambda r: r.line)
    return refusals


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _internal(name: str) -> bool:
    return name.startswith(_INTERNAL_PREFIXES) or name in _MOCK_NAMES


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring constants of the module, its classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def _constant(node: ast.expr, own: frozenset[str]) -> bool:
    """A value computed from constants: literals, names, `module.name`, and displays,
    operations, subscripts and calls of them, but a call of the module's own functions and
    classes (`own`), which would run its code at import."""
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name)
    if isinstance(node, ast.Subscript):
        return _constant(node.value, own) and _constant(node.slice, own)
    if isinstance(node, ast.Call):
        return ((isinstance(node.func, ast.Name) and node.func.id not in own
                 or isinstance(node.func, ast.Attribute) and _constant(node.func, own))
                and all(_constant(a, own) for a in node.args) and all(_constant(k.value, own) for k in node.keywords))
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_constant(e, own) for e in node.elts)
    if isinstance(node, ast.Dict):
        return (all(k is not None and _constant(k, own) for k in node.keys)
                and all(_constant(v, own) for v in node.values))
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand, own)
    if isinstance(node, ast.BinOp):
        return _constant(node.left, own) and _constant(node.right, own)
    return False


def _module_name_problem(module: str, name: str) -> str | None:
    """Why `module.name` is refused, None if it is not."""
    if name.startswith("_") or name in _MODULE_NAMES_REFUSED:
        return f"{module}.{name} is not allowed"
    if module == "__future__":
        return None
    try:
        value = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None  # not there: the import fails when it runs, as it would anywhere
    if isinstance(value, types.ModuleType) and value.__name__ not in ALLOWED_MODULES:
        return f"{module}.{name} is the module {value.__name__}, not allowed"
    if isinstance(value, type) and issubclass(value, type):
        return f"{module}.{name} is a metaclass, which makes classes of names computed at run time"
    return None


class _Screen(ast.NodeVisitor):
    refused_builtins = _BUILTINS_REFUSED
    dunder_string = _DUNDER

    def __init__(self, file: str, tree: ast.Module):
        self.file, self.tree = file, tree
        self.refusals: list[Refusal] = []
        self.docstrings = _docstrings(tree)
        self.modules: set[str] = set()       # names bound to a module object by `import`
        self.allowed_dunder: set[int] = set()  # ids of nodes whose dunder is allowed
        self.top_level: set[str] = set()
        self.called: set[int] = set()        # ids of names called where they stand
        self.own: list[str | None] = []       # the first parameter of each enclosing method
        self.methods: set[int] = set()       # ids of the functions defined in a class body

    def refuse(self, rule: str, node: ast.AST, why: str) -> None:
        self.refusals.append(Refusal(rule, self.file, getattr(node, "lineno", 0), why))

    def run(self) -> list[Refusal]:
        own = frozenset(s.name for s in self.tree.body
                        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
        for stmt in self.tree.body:
            self.top_level.update(_bound(stmt))
            if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, ast.Expr) and id(stmt.value) in self.docstrings:
                continue
            if isinstance(stmt, ast.Assign) and _constant(stmt.value, own) and all(_names(t) for t in stmt.targets):
                continue
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and (
                    stmt.value is None or _constant(stmt.value, own)):
                continue
            self.refuse("module-level", stmt, f"a top-level {type(stmt).__name__} that is not a definition, "
                        "an import or a constant")
        self.visit(self.tree)
        return self.refusals

    # Imports ----------------------------------------------------------------------------
    def allows(self, module: str) -> bool:
        return module in ALLOWED_MODULES

    def module_name_problem(self, module: str, name: str) -> str | None:
        return _module_name_problem(module, name)

    def value_of(self, module: str, name: str) -> object:
        return _getattr_or_none(module, name)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not self.allows(alias.name):
                self.refuse("import", node, f"imports {alias.name}")
            elif alias.asname is None and "." in alias.name:
                self.refuse("import", node, f"imports {alias.name} without a name of its own")
            else:
                self.modules.add(alias.asname or alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or not self.allows(module):
            self.refuse("import", node, f"imports from {'.' * node.level}{module}")
            return
        for alias in node.names:
            if alias.name == "*":
                self.refuse("import", node, f"imports * from {module}")
            elif (problem := self.module_name_problem(module, alias.name)) is not None:
                self.refuse("import", node, problem)
            elif isinstance(self.value_of(module, alias.name), types.ModuleType):
                self.modules.add(alias.asname or alias.name)

    # Names and attributes ----------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.modules:
            self.refuse("import", node, f"the module {node.id} used other than as `{node.id}.name`")
        elif _is_dunder(node.id) and id(node) not in self.allowed_dunder:
            self.refuse("dunder", node, f"the name {node.id}")
        elif node.id in self.refused_builtins:
            self.refuse("builtin", node, f"the name {node.id}")
        elif node.id in _CALLED_ONLY and id(node) not in self.called:
            self.refuse("reflection", node, f"{node.id} other than called by its name")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        base = node.value
        if isinstance(base, ast.Name) and base.id in self.modules:
            module = self.module_of(base.id)
            if (problem := self.module_name_problem(module, node.attr)) is not None:
                self.refuse("import", node, problem)
            elif isinstance(value := self.value_of(module, node.attr), types.ModuleType):
                self.refuse("import", node, f"the module {value.__name__} reached as an attribute")
        else:
            self.visit(base)
        self.check_attr_name(node, node.attr)
        if node.attr in ("format", "format_map"):
            if not (isinstance(base, ast.Constant) and isinstance(base.value, str)):
                self.refuse("format", node, f".{node.attr} of something other than a string constant")
            elif _reads_attributes(base.value):
                self.refuse("format", node, "a format field that reads an attribute")

    def module_of(self, bound: str) -> str:
        for stmt in ast.walk(self.tree):
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if (alias.asname or alias.name) == bound:
                        return alias.name
            if isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    if (alias.asname or alias.name) == bound:
                        return f"{stmt.module}.{alias.name}"
        return bound

    def check_attr_name(self, node: ast.AST, name: str) -> None:
        if _is_dunder(name) and id(node) not in self.allowed_dunder:
            self.refuse("dunder", node, f"the attribute {name}")
        elif _internal(name):
            self.refuse("internals", node, f"the attribute {name}")

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and id(node) not in self.docstrings and self.dunder_string.search(node.value):
            self.refuse("dunder", node, "a string constant that names a dunder")

    # Calls -------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _DATA_MODEL_CALLS:
            self.allowed_dunder.add(id(func))
        if isinstance(func, ast.Name):
            self.called.add(id(func))
        for keyword in node.keywords:
            if keyword.arg is not None and _is_dunder(keyword.arg):
                self.refuse("dunder", node, f"the keyword {keyword.arg}")
        if isinstance(func, ast.Name) and func.id in _REFLECTION:
            if func.id in ("setattr", "delattr"):
                self.check_own(node, node.args[0] if node.args else None)
            name = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self.refuse("reflection", node, f"{func.id} with a name that is not a string constant")
            elif _is_dunder(name.value) or _internal(name.value):
                self.refuse("reflection", node, f"{func.id} of {name.value}")
        self.generic_visit(node)

    # Definitions -------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name in _COMPARISON:
            self.refuse("comparison", node, f"defines {node.name}")
        self.check_decorators(node)
        params = node.args.posonlyargs + node.args.args
        self.own.append(params[0].arg if params and id(node) in self.methods else None)
        for child in ast.iter_child_nodes(node):
            if child not in node.decorator_list:
                self.visit(child)
        self.own.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.own.append(None)
        self.generic_visit(node)
        self.own.pop()

    def check_own(self, node: ast.AST, target: ast.expr | None) -> None:
        """An attribute set or deleted on anything but the method's own object (its first
        parameter) changes what the test handed over: the proxy lets no lent object change."""
        own = self.own[-1] if self.own else None
        if not (isinstance(target, ast.Name) and own is not None and target.id == own):
            what = ast.unparse(target)[:60] if target is not None else "nothing"
            self.refuse("mutation", node, f"sets or deletes an attribute of {what}, not of its own object")

    def visit_Assign(self, node: ast.Assign) -> None:
        self.check_targets(node.targets)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.check_targets([node.target])
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.check_targets([node.target])
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        self.check_targets(node.targets)
        self.generic_visit(node)

    def check_targets(self, targets: list[ast.expr]) -> None:
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                    self.check_own(sub, sub.value)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for keyword in node.keywords:
            self.refuse("class", node, f"a class keyword {keyword.arg or '**'}")
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id == "type":
                self.refuse("class", node, "a subclass of type")
        self.check_decorators(node)
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.methods.add(id(stmt))
            if isinstance(stmt, ast.Assign) and [getattr(t, "id", None) for t in stmt.targets] == ["__slots__"]:
                self.allowed_dunder.add(id(stmt.targets[0]))
        for child in ast.iter_child_nodes(node):
            if child not in node.decorator_list and child not in node.keywords:
                self.visit(child)

    def check_decorators(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            plain = isinstance(decorator, ast.Name) and decorator.id in _DECORATORS
            part = (isinstance(decorator, ast.Attribute) and decorator.attr in _PROPERTY_PARTS
                    and isinstance(decorator.value, ast.Name) and decorator.value.id not in self.modules)
            if not (plain or part):
                self.refuse("decorator", decorator, f"the decorator {ast.unparse(decorator)[:80]}")

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            if name not in self.top_level:
                self.refuse("scope", node, f"global {name}, which the module does not bind")


def _names(target: ast.expr) -> bool:
    """Whether an assignment's target binds names only (`A`, `A, B`)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_names(e) for e in target.elts)
    return isinstance(target, ast.Name)


def _bound(stmt: ast.stmt) -> Iterable[str]:
    """The names a top-level statement binds."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield stmt.name
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for alias in stmt.names:
            yield (alias.asname or alias.name).split(".")[0]
    elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
            yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))


def _getattr_or_none(module: str, name: str) -> object:
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def _reads_attributes(template: str) -> bool:
    """Whether a format string has a field (or a nested one) that reads an attribute."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return True  # str.format would refuse it too
    return any(field is not None and ("." in field or _reads_attributes(spec or ""))
               for _, field, spec, _ in fields)
