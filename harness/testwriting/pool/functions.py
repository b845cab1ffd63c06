"""Which top-level functions of a Python file can be tasks, and what each task's module
holds, decided from the syntax alone: the code is untrusted, and none of it is imported or
run on this machine (the sandbox runs it, as it runs every task's, when the suite is
validated or used).

A function becomes a task when what it needs can be carried into a module of its own that
imports and runs without side effects, as far as its syntax shows. The rules:
- it is a top-level `def`: not a method, not async, not decorated (a decorator runs code at
  import), not a test (`test_*`), not a dunder (the test round's proxy answers those
  itself); it takes an argument (a test has something to vary) and does not raise
  NotImplementedError (an abstract function has nothing to test);
- every global name it reads, and every name its helpers read, is one of: a builtin other
  than those that do I/O or run code (`UNSAFE_BUILTINS`); a name bound by a module-level
  import of a pure standard-library module (`PURE_MODULES`: no file system, process,
  network, randomness or clock); a module-level function or class of its file that passes
  the same rules (a helper; undecorated); a module-level constant bound by one plain
  assignment whose value passes them. A name bound twice, or by any other statement (a
  loop, a `try`, an `if`), a relative import, a star import, a module dunder: left out;
- an import in its body, or a helper's, is of a pure standard-library module too;
- it declares no `global` (state kept between calls) and calls nothing named `now`,
  `today` or `utcnow` (the clock).
Names are resolved with `symtable`, the compiler's own scopes. What the rules cannot see
(an argument's own methods doing I/O, `getattr` on a pure module) the sandbox contains.

The task's module holds, in the file's order, the `__future__` imports, the imports the
function and its helpers use (each cut to the names used), the helpers and constants, and
the function, each exactly as written."""

from __future__ import annotations

import ast
import builtins
import symtable
from dataclasses import dataclass, field

PURE_MODULES = frozenset({
    "__future__", "abc", "array", "ast", "base64", "binascii", "bisect", "calendar", "cmath", "collections", "colorsys",
    "contextlib", "copy", "dataclasses", "datetime", "decimal", "difflib", "enum", "fractions", "functools",
    "graphlib", "hashlib", "heapq", "html", "ipaddress", "itertools", "json", "keyword", "math", "numbers",
    "operator", "pprint", "re", "reprlib", "shlex", "statistics", "string", "struct", "textwrap", "types", "typing",
    "unicodedata", "weakref", "zlib",
})
# What a well-known module outside PURE_MODULES does that a task cannot have.
_WHY_NOT = {
    **dict.fromkeys(("os", "sys", "io", "pathlib", "shutil", "tempfile", "glob", "fnmatch", "pickle", "shelve",
                     "sqlite3", "csv", "logging", "builtins", "importlib", "inspect", "ctypes", "gc"),
                    "the file system, the process or the interpreter"),
    **dict.fromkeys(("socket", "ssl", "http", "urllib", "requests", "httpx", "aiohttp", "smtplib", "ftplib"),
                    "the network"),
    **dict.fromkeys(("random", "secrets", "uuid"), "randomness"),
    **dict.fromkeys(("time", "sched"), "the clock"),
    **dict.fromkeys(("subprocess", "threading", "multiprocessing", "asyncio", "signal", "concurrent"),
                    "processes or threads"),
}
UNSAFE_BUILTINS = {
    **dict.fromkeys(("open", "input", "print", "breakpoint", "help", "exit", "quit"), "I/O"),
    **dict.fromkeys(("eval", "exec", "compile", "__import__", "globals", "locals", "vars"), "code run by name"),
}
_CLOCK = frozenset({"now", "today", "utcnow"})
_BUILTINS = frozenset(dir(builtins))


class LeftOut(Exception):
    """Why a function cannot be a task."""


@dataclass
class _Binding:
    """How a module-level name is bound: by an import (`module` its top-level module), a
    `def`/`class`, a plain assignment, or otherwise (`why`)."""

    node: ast.stmt
    module: str | None = None
    why: str | None = None


@dataclass
class Extracted:
    """A function's task module: the reference, the stub, the lines of each top-level
    definition it holds (for its date)."""

    function: str
    reference: str
    stub: str
    spans: list[tuple[int, int]]
    required: list[str]  # the function's parameters a call must give
    keyword_only: list[str]


@dataclass
class ModuleScan:
    """Every top-level function of one file: those that can be tasks, and why each other
    one (and each method of a top-level class) cannot."""

    functions: list[Extracted] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (function, reason)


def _bound_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [a.asname or a.name.split(".")[0] for a in stmt.names if a.name != "*"]
    names = [n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    names += [n.name for n in ast.walk(stmt) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
              and n is not stmt]
    return names


def _bindings(tree: ast.Module) -> tuple[dict[str, _Binding], list[str]]:
    """Each module-level name's binding, and the modules star-imported."""
    out: dict[str, _Binding] = {}
    stars: list[str] = []
    for stmt in tree.body:
        for name in _bound_names(stmt):
            if name in out:
                out[name] = _Binding(stmt, why="is bound more than once at module level")
            elif isinstance(stmt, ast.Import):
                out[name] = _Binding(stmt, module=next(a.name for a in stmt.names
                                                       if (a.asname or a.name.split(".")[0]) == name).split(".")[0])
            elif isinstance(stmt, ast.ImportFrom):
                out[name] = (_Binding(stmt, module=(stmt.module or "").split(".")[0]) if not stmt.level
                             else _Binding(stmt, why="comes from its own package (a relative import)"))
            elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                out[name] = _Binding(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None and all(
                    isinstance(t, ast.Name) for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])):
                out[name] = _Binding(stmt)
            else:
                out[name] = _Binding(stmt, why=f"is set by a module-level {type(stmt).__name__} statement "
                                               "(only imports, defs, classes and plain assignments are carried)")
        if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
            stars.append(stmt.module or ".")
    return out, stars


def _tables(table: symtable.SymbolTable) -> list[symtable.SymbolTable]:
    return [table, *(t for child in table.get_children() for t in _tables(child))]


def _expression_names(node: ast.AST) -> set[str]:
    """The names an expression evaluated at module level reads: those it loads, less those
    its comprehensions and lambdas bind."""
    loaded = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    bound = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in ast.walk(node) if isinstance(n, ast.Lambda) for a in ast.walk(n.args)
              if isinstance(a, ast.arg)}
    return loaded - bound


class _Module:
    """One parsed file and the closure of what its functions need."""

    def __init__(self, source: str, filename: str):
        self.source = source
        self.tree = ast.parse(source, filename)
        self.symbols = symtable.symtable(source, filename, "exec")
        self.bindings, self.stars = _bindings(self.tree)
        self.future = [s for s in self.tree.body if isinstance(s, ast.ImportFrom) and s.module == "__future__"]

    def _table(self, node: ast.FunctionDef | ast.ClassDef) -> symtable.SymbolTable:
        lines = (node.lineno, *(d.lineno for d in node.decorator_list))  # Pythons differ on which they give
        found = next((t for t in self.symbols.get_children() if t.get_name() == node.name and t.get_lineno() in lines),
                     None)
        if found is None:  # never seen; a rule that cannot be checked is not taken as met
            raise LeftOut(f"the compiler's scope of {node.name} was not found")
        return found

    def _reads(self, node: ast.stmt) -> set[str]:
        """The module-level names a top-level statement reads, when it runs or is called."""
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            return _expression_names(node.value) if node.value is not None else set()
        assert isinstance(node, (ast.FunctionDef, ast.ClassDef))
        names: set[str] = set()
        for table in _tables(self._table(node)):
            for sym in table.get_symbols():
                if sym.is_declared_global():
                    raise LeftOut(f"declares global {sym.get_name()} (state kept between calls)")
                if sym.is_global() and sym.is_referenced():
                    names.add(sym.get_name())
        # What the def or class statement itself evaluates at module level.
        heads: list[ast.AST] = list(node.decorator_list)
        if isinstance(node, ast.ClassDef):
            heads += [*node.bases, *node.keywords]
        else:
            heads += [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            if not self.future_annotations:
                heads += [a.annotation for a in ast.walk(node.args) if isinstance(a, ast.arg) and a.annotation]
                heads += [node.returns] if node.returns else []
        for head in heads:
            names |= _expression_names(head)
        return names

    @property
    def future_annotations(self) -> bool:
        return any(a.name == "annotations" for s in self.future for a in s.names)

    def needs(self, name: str, seen: dict[str, None]) -> None:
        """Add to `seen`, in no order, the module-level names `name`'s statement needs,
        itself included; LeftOut says which rule one of them breaks."""
        if name in seen:
            return
        binding = self.bindings[name]
        if binding.why:
            raise LeftOut(f"uses {name}, which {binding.why}")
        seen[name] = None
        if binding.module is not None:
            _pure_module(binding.module)
            return
        node = binding.node
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.decorator_list:
            raise LeftOut(f"uses {name}, which is decorated (a decorator runs code at import)")
        for inner in ast.walk(node):
            if isinstance(inner, ast.Attribute) and inner.attr in _CLOCK:
                raise LeftOut(f"reads the clock (.{inner.attr})")
            if isinstance(inner, (ast.Import, ast.ImportFrom)) and inner is not node:  # an import in a body
                _pure_import(inner)
        for read in sorted(self._reads(node)):
            if read in self.bindings:
                try:
                    self.needs(read, seen)
                except LeftOut as exc:  # say which name leads to the rule it breaks
                    raise LeftOut(str(exc) if str(exc).startswith(f"uses {read}") else f"uses {read}, which {exc}")
            elif read.startswith("__") and read.endswith("__"):
                raise LeftOut(f"reads its module's {read}")
            elif read in UNSAFE_BUILTINS:
                raise LeftOut(f"calls {read} ({UNSAFE_BUILTINS[read]})")
            elif read not in _BUILTINS:
                where = f"perhaps from `from {self.stars[0]} import *`" if self.stars else "its file does not define it"
                raise LeftOut(f"uses {read}, which {where}")

    def _segment(self, node: ast.stmt) -> str:
        text = ast.get_source_segment(self.source, node)
        assert text is not None
        return text

    def _import_text(self, stmt: ast.Import | ast.ImportFrom, wanted: dict[str, None]) -> str | None:
        names = [a for a in stmt.names if (a.asname or a.name.split(".")[0]) in wanted]
        if not names:
            return None
        cut = ast.Import(names=names) if isinstance(stmt, ast.Import) else ast.ImportFrom(stmt.module, names, 0)
        return ast.unparse(cut)

    def render(self, wanted: dict[str, None], replace: dict[int, str] | None = None) -> str:
        """The statements `wanted` names, in file order (one statement's text replaced by
        `replace`, keyed by its line)."""
        imports = [ast.unparse(s) for s in self.future]
        rest: list[str] = []
        for stmt in self.tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)) and stmt not in self.future:
                text = self._import_text(stmt, wanted)
                if text:
                    imports.append(text)
            elif any(name in wanted for name in _bound_names(stmt)):
                rest.append((replace or {}).get(stmt.lineno) or self._segment(stmt))
        return "\n\n\n".join(p for p in ("\n".join(imports), *rest) if p) + "\n"

    def stub_text(self, node: ast.FunctionDef) -> str:
        """The function with its body cut to its docstring and a raise of
        NotImplementedError, its signature and docstring as written."""
        body = node.body
        doc = body[0] if ast.get_docstring(node, clean=False) is not None else None
        first_code = body[1] if doc and len(body) > 1 else (None if doc else body[0])
        if body[0].lineno == node.lineno or (first_code is not None and doc is not None
                                             and first_code.lineno == doc.end_lineno):
            cut = ast.FunctionDef(node.name, node.args, [*([doc] if doc else []), _raise()], [], node.returns,
                                  node.type_comment, lineno=node.lineno)
            return ast.unparse(ast.fix_missing_locations(cut))
        lines = self.source.splitlines()
        last = doc.end_lineno if doc is not None else body[0].lineno - 1
        assert last is not None
        head = "\n".join(lines[node.lineno - 1:last])
        return f"{head}\n{' ' * body[0].col_offset}raise NotImplementedError"

    def extract(self, node: ast.FunctionDef) -> Extracted:
        if node.decorator_list:
            raise LeftOut("decorated (a decorator runs code at import)")
        if node.name.startswith("test"):
            raise LeftOut("a test")
        if node.name.startswith("__") and node.name.endswith("__"):
            raise LeftOut("a dunder name (the test round's proxy answers those itself)")
        args = node.args
        if not (args.posonlyargs or args.args or args.kwonlyargs or args.vararg or args.kwarg):
            raise LeftOut("takes no arguments (nothing for a test to vary)")
        if any(isinstance(n, ast.Raise) and n.exc is not None and "NotImplementedError" in ast.unparse(n.exc)
               for n in ast.walk(node)):
            raise LeftOut("raises NotImplementedError (not implemented)")
        wanted: dict[str, None] = {}
        self.needs(node.name, wanted)
        spans = [(s.lineno, s.end_lineno or s.lineno) for s in self.tree.body
                 if isinstance(s, (ast.FunctionDef, ast.ClassDef)) and s.name in wanted]
        positional = [*args.posonlyargs, *args.args]
        required = [a.arg for a in positional[:len(positional) - len(args.defaults)]]
        keyword_only = [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
        return Extracted(function=node.name, reference=self.render(wanted),
                         stub=self.render(wanted, {node.lineno: self.stub_text(node)}),
                         spans=spans, required=required, keyword_only=keyword_only)


def _pure_module(module: str) -> None:
    if module not in PURE_MODULES:
        raise LeftOut(f"uses {module} ({_WHY_NOT.get(module, 'a module that is not a pure standard-library one')})")


def _pure_import(stmt: ast.Import | ast.ImportFrom) -> None:
    if isinstance(stmt, ast.ImportFrom) and stmt.level:
        raise LeftOut("imports from its own package (a relative import)")
    for module in ([a.name for a in stmt.names] if isinstance(stmt, ast.Import) else [stmt.module or ""]):
        _pure_module(module.split(".")[0])


def _raise() -> ast.Raise:
    return ast.Raise(exc=ast.Name("NotImplementedError", ast.Load()), cause=None)


def scan(source: str, filename: str) -> ModuleScan:
    """Every top-level function of a file's source, as a task or a reason; a file that does
    not parse raises SyntaxError."""
    module = _Module(source, filename)
    out = ModuleScan()
    for stmt in module.tree.body:
        if isinstance(stmt, ast.ClassDef):
            out.left_out += [(f"{stmt.name}.{m.name}", "a method (only top-level functions are tasks)")
                             for m in stmt.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        elif isinstance(stmt, ast.AsyncFunctionDef):
            out.left_out.append((stmt.name, "a coroutine (async def)"))
        elif isinstance(stmt, ast.FunctionDef):
            try:
                out.functions.append(module.extract(stmt))
            except LeftOut as exc:
                out.left_out.append((stmt.name, str(exc)))
    return out
