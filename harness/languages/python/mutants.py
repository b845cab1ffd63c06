"""Automatic mutants of Python source: small changes to a correct solution that a good test
suite notices, with the same contract as C++'s (`cpp/mutants.py`): one `mutation.Mutant`
per change, a stable order, a seeded sample under a cap.

Our own operators on the standard library's syntax tree, not a mutation tool's. cosmic-ray
(8.x) and mutmut (3.x) both own the whole loop: cosmic-ray's operators rewrite parso trees
and are driven from its session database and workers, mutmut 3 rewrites every function of a
module into trampolines (libcst) that its own runner switches between. Neither hands back
"replace these characters by those", which is what a `Mutant` is (a span of the original
text, recorded in suite validation and matched by `.meta/equivalent-mutants.toml`), and
either would add a parser to the harness and to the sandbox image for a dozen operators.
`ast` gives every node's exact span; the tokenizer gives the operator tokens between them;
so a mutant differs from the original only at its site and keeps formatting and comments.

The operators, each at its node's own span:

    arithmetic  + <-> -, * <-> /, // -> /, % -> //, ** -> * (and their augmented `+=`...)
    relational  < <-> <=, > <-> >=, == <-> !=, in <-> not in, is <-> is not
    logical     and <-> or, one operator of a chain at a time
    negate      an if/elif/while/ternary/comprehension condition wrapped in `not`; a `not` removed
    boundary    an int shifted by one (up; down when above 0), a float by one each way
    constant    an int above 1 or a non-zero float -> 0; True <-> False; a string emptied,
                an empty one given a character
    delete      an expression statement, an assignment, raise, break, continue or a bare
                return removed (its line(s) with it); `pass` where the body would be empty
                or the line holds more than the statement
    return      a returned value replaced by None

Never mutated: docstrings, `if __name__ == "__main__":` blocks, annotations (no run reads
them), the parts of f-strings (the tree gives them no span of their own) and `...`. Every
mutant compiles (`compile()`); one whose text equals the original's or an earlier mutant's
is dropped. A file that does not parse has no mutants."""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
from typing import Iterator, Mapping

from ...hashing import sha256_text
from ..mutation import Mutant, Operator, decode, sample
from .screen import compile_exec, parse
from .spans import SourceText

_BINARY = {ast.Add: "-", ast.Sub: "+", ast.Mult: "/", ast.Div: "*", ast.FloorDiv: "/", ast.Mod: "//",
           ast.Pow: "*"}
_BINARY_TEXT = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
                ast.Pow: "**"}
_COMPARE = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">", ast.Eq: "!=", ast.NotEq: "==",
            ast.In: "not in", ast.NotIn: "in", ast.Is: "is not", ast.IsNot: "is"}
_DELETABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Break, ast.Continue,
              ast.Return, ast.Delete)
# Annotations and f-strings: what no run reads, and what the tree gives no span of its own.
_SKIPPED_FIELDS = frozenset({"annotation", "returns"})


class _Source(SourceText):
    """The text, its lines, and its operator and keyword tokens by offset."""

    def __init__(self, text: str):
        super().__init__(text)
        self.tokens: list[tuple[int, int, str]] = []
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.OP, tokenize.NAME) and tok.string not in ("(", ")"):
                self.tokens.append((self.offset_chars(*tok.start), self.offset_chars(*tok.end), tok.string))
        self.token_starts = [t[0] for t in self.tokens]

    def between(self, start: int, end: int) -> list[tuple[int, int, str]]:
        """The tokens in [start, end) other than parentheses: an operator between operands."""
        i = bisect.bisect_left(self.token_starts, start)
        out = []
        while i < len(self.tokens) and self.tokens[i][0] < end:
            out.append(self.tokens[i])
            i += 1
        return out


def _is_docstring(stmt: ast.AST) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _is_main_guard(node: ast.AST) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare) or len(node.test.ops) != 1:
        return False
    sides = [node.test.left, *node.test.comparators]
    return isinstance(node.test.ops[0], ast.Eq) and \
        any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and \
        any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


def _nodes(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node a mutant may touch: the tree less docstrings, main guards, annotations
    and f-strings."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.JoinedStr) or _is_main_guard(node):
            continue
        yield node
        children: list[ast.AST] = []
        for name, value in ast.iter_fields(node):
            if name in _SKIPPED_FIELDS:
                continue
            items = value if isinstance(value, list) else [value]
            for k, item in enumerate(items):
                if not isinstance(item, ast.AST):
                    continue
                if name == "body" and k == 0 and isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                                                   ast.AsyncFunctionDef)) and _is_docstring(item):
                    continue
                children.append(item)
        stack.extend(reversed(children))


def _atomic(node: ast.expr) -> bool:
    return isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple,
                             ast.Dict, ast.Set))


def _number_changes(value: int | float) -> Iterator[tuple[str, Operator]]:
    if isinstance(value, bool):
        yield str(not value), Operator.constant
    elif isinstance(value, int):
        yield str(value + 1), Operator.boundary
        if value > 0:
            yield str(value - 1), Operator.boundary
        if value > 1:
            yield "0", Operator.constant
    else:
        yield repr(value + 1), Operator.boundary
        yield repr(value - 1), Operator.boundary
        if value != 0:
            yield "0.0", Operator.constant


_STRING_PREFIX = re.compile(r"[A-Za-z]*")


def _string_change(src: _Source, node: ast.Constant) -> str:
    start, _ = src.span(node)
    prefix = _STRING_PREFIX.match(src.text, start)
    kept = "".join(c for c in (prefix.group(0) if prefix else "") if c in "bB")  # bytes stay bytes
    return f'{kept}"x"' if not node.value else f'{kept}""'


class _Collector:
    def __init__(self, src: _Source, file: str):
        self.src = src
        self.file = file
        self.found: list[Mutant] = []

    def add(self, op: Operator, start: int, end: int, replacement: str, at: int | None = None) -> None:
        line, col = self.src.position(start if at is None else at)
        self.found.append(Mutant(operator=op, file=self.file, line=line, column=col, start=start, end=end,
                                 original=self.src.text[start:end], replacement=replacement))

    def operator_between(self, left: ast.AST, right: ast.AST, op: Operator, replacement: str) -> None:
        toks = self.src.between(self.src.span(left)[1], self.src.span(right)[0])
        if toks:
            self.add(op, toks[0][0], toks[-1][1], replacement)

    def visit(self, node: ast.AST) -> None:
        src = self.src
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            self.operator_between(node.left, node.right, Operator.arithmetic, _BINARY[type(node.op)])
        elif isinstance(node, ast.AugAssign) and type(node.op) in _BINARY:
            self.operator_between(node.target, node.value, Operator.arithmetic, _BINARY[type(node.op)] + "=")
        elif isinstance(node, ast.Compare):
            for left, op, right in zip([node.left, *node.comparators], node.ops, node.comparators):
                self.operator_between(left, right, Operator.relational, _COMPARE[type(op)])
        elif isinstance(node, ast.BoolOp):
            new = "or" if isinstance(node.op, ast.And) else "and"
            for left, right in zip(node.values, node.values[1:]):
                self.operator_between(left, right, Operator.logical, new)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.add(Operator.negate, src.span(node)[0], src.span(node.operand)[0], "")
        elif isinstance(node, ast.Constant):
            self.constant(node)
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            self.add(Operator.returned, *src.span(node.value), "None")
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            self.negate(node.test)
        elif isinstance(node, ast.comprehension):
            for cond in node.ifs:
                self.negate(cond)
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                self.deletions(body)

    def negate(self, cond: ast.expr) -> None:
        if isinstance(cond, ast.UnaryOp) and isinstance(cond.op, ast.Not):
            return  # its negation is the `not` removed, made where the `not` is
        start, end = self.src.span(cond)
        body = self.src.text[start:end]
        self.add(Operator.negate, start, end, f"not {body}" if _atomic(cond) else f"not ({body})")

    def constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, (bool, int, float)):
            for new, op in _number_changes(value):
                self.add(op, *self.src.span(node), new)
        elif isinstance(value, (str, bytes)):
            self.add(Operator.constant, *self.src.span(node), _string_change(self.src, node))

    def deletions(self, body: list[ast.stmt]) -> None:
        text = self.src.text
        for stmt in body:
            if not isinstance(stmt, _DELETABLE) or _is_docstring(stmt):
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and stmt.value.value is ...:
                continue
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                continue  # a value return is the return operator's; removed, the function falls through
            start, end = self.src.span(stmt)
            line_begin = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", end)
            line_end = len(text) if line_end < 0 else line_end
            alone = text[line_begin:start].strip() == "" and text[end:line_end].strip() == ""
            if len(body) == 1 or not alone:
                self.add(Operator.delete, start, end, "pass")
            else:
                self.add(Operator.delete, line_begin, min(len(text), line_end + 1), "", at=start)


def mutants_of_source(text: str, file: str) -> list[Mutant]:
    """Every mutant of one file's text, in file order (then by operator), each compiling,
    duplicates and no-ops removed."""
    try:
        tree = parse(text, file)
        src = _Source(text)
    except (SyntaxError, ValueError, tokenize.TokenError):
        return []
    collector = _Collector(src, file)
    for node in _nodes(tree):
        collector.visit(node)
    order = list(Operator)
    collector.found.sort(key=lambda m: (m.start, order.index(m.operator), m.end, m.replacement))
    seen = {sha256_text(text)}
    unique = []
    for m in collector.found:
        mutated = m.mutate_text(text)
        digest = sha256_text(mutated)
        if digest in seen:
            continue
        seen.add(digest)
        try:
            compile_exec(mutated, file)
        except (SyntaxError, ValueError):
            continue
        unique.append(m)
    return unique


def is_python_file(name: str) -> bool:
    return name.endswith(".py")


def generate_mutants(files: Mapping[str, bytes], *, cap: int | None = None, seed: int = 0) -> list[Mutant]:
    """Mutants of every Python file among `files` (other files are left alone), ordered by
    file name then position. With `cap`, a sample of at most that many, drawn with `seed`
    and kept in the same order, so the same inputs always give the same list."""
    out: list[Mutant] = []
    for name in sorted(files):
        if is_python_file(name):
            out.extend(mutants_of_source(decode(files[name]), name))
    return sample(out, cap, seed)
