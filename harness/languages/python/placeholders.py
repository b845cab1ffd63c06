"""The `FILL` placeholders of a written pytest suite (fill.py): where each one is, the suite
rewritten so that each records the value it stands for, and the suite with values
written back in their place.

A placeholder is the name `FILL` read as a value. It can be filled where it is one whole
side of the one `==` of an assert statement's test (`assert f(x) == FILL`, `assert FILL ==
f(x)`), or one of the two values of a `self.assertEqual(f(x), FILL)` statement: the site.
In the recording suite the site becomes `__harness_fill__(N, (f(x)))`, a call of the
recorder (proxy/record.py) that writes down the other side's value and holds, so the test
goes on; each value written back replaces the placeholder's own characters and nothing
else. Any other placeholder, and each of an assertion that holds more than one, cannot be
filled, and says why. The positions are the syntax tree's, so strings, comments and
layout are never mistaken for code."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from .screen import parse
from .spans import SourceText

PLACEHOLDER = "FILL"
RECORDER = "__harness_fill__"  # a dunder name: a class body does not mangle it
_PRELUDE = f"from _harness_proxy.record import record as {RECORDER}\n"
_EQUAL = frozenset({"assertEqual", "assertEquals"})
_WHERE = (f"{PLACEHOLDER} must be one whole side of the == of an assert statement, "
          f"or one of the two values of self.assertEqual(...)")


@dataclass(frozen=True)
class Placeholder:
    line: int
    span: tuple[int, int]                # the name's characters
    comment_at: int                      # the start of the line a note on it goes above
    indent: str
    site: tuple[int, int] | None = None  # the assertion the recording suite replaces
    other: tuple[int, int] | None = None  # the other side, whose value fills it
    why: str | None = None               # why it cannot be filled, as the text shows
    test: str | None = None              # the function it is in


@dataclass(frozen=True)
class Suite:
    text: str
    placeholders: list[Placeholder]
    prelude_at: int  # where the recorder's import goes: after any `from __future__` import


def _is_placeholder(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == PLACEHOLDER and isinstance(node.ctx, ast.Load)


def _is_assert_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr.startswith("assert"))


def _site(node: ast.Name, parents: dict[ast.AST, ast.AST]) -> tuple[ast.AST, ast.expr] | None:
    """(the assertion, the other side) where the placeholder can be filled."""
    up = parents.get(node)
    if (isinstance(up, ast.Compare) and len(up.ops) == 1 and isinstance(up.ops[0], ast.Eq)
            and isinstance(parents.get(up), ast.Assert)):
        return up, up.comparators[0] if up.left is node else up.left
    if (isinstance(up, ast.Call) and isinstance(up.func, ast.Attribute) and up.func.attr in _EQUAL
            and isinstance(parents.get(up), ast.Expr) and 2 <= len(up.args) <= 3
            and not any(isinstance(a, ast.Starred) for a in up.args) and any(a is node for a in up.args[:2])):
        return up, up.args[1] if up.args[0] is node else up.args[0]
    return None


def _assertion(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.AST | None:
    """The assert statement or assert-method call the node is in, if any."""
    at = parents.get(node)
    while at is not None and not isinstance(at, ast.stmt):
        if _is_assert_call(at):
            return at
        at = parents.get(at)
    return at if isinstance(at, ast.Assert) else None


def _comment_place(node: ast.AST, parents: dict[ast.AST, ast.AST], src: SourceText) -> tuple[int, str]:
    """The start of the first line of the innermost statement around the node that begins
    its line, and that line's indent; the end of the text where there is none."""
    at: ast.AST | None = node
    while at is not None:
        if isinstance(at, ast.stmt):
            line_start = src.starts[at.lineno - 1]
            prefix = src.text[line_start:src.offset(at.lineno, at.col_offset)]
            if not prefix.strip():
                return line_start, prefix
        at = parents.get(at)
    return len(src.text), ""


def _function(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str | None:
    at = parents.get(node)
    while at is not None and not isinstance(at, (ast.FunctionDef, ast.AsyncFunctionDef)):
        at = parents.get(at)
    return at.name if at is not None else None


def read_suite(text: str) -> Suite:
    """The suite's placeholders in text order; SyntaxError (or ValueError) where it does not parse."""
    tree = parse(text)
    src = SourceText(text)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if not _is_placeholder(node):
            continue
        assert isinstance(node, ast.Name)  # _is_placeholder says so
        at, indent = _comment_place(node, parents, src)
        placeholder = Placeholder(line=node.lineno, span=src.span(node), comment_at=at, indent=indent,
                                  test=_function(node, parents))
        assertion = _assertion(node, parents)
        site = _site(node, parents)
        if assertion is not None and sum(map(_is_placeholder, ast.walk(assertion))) > 1:
            placeholder = replace(placeholder, why=f"more than one {PLACEHOLDER} in one assertion")
        elif site is None:
            placeholder = replace(placeholder, why=_WHERE)
        else:
            placeholder = replace(placeholder, site=src.span(site[0]), other=src.span(site[1]))
        found.append(placeholder)
    prelude_at = 0
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__" and stmt.end_lineno is not None:
            prelude_at = src.starts[stmt.end_lineno] if stmt.end_lineno < len(src.starts) else len(text)
    return Suite(text, sorted(found, key=lambda p: p.span), prelude_at)


def _edited(text: str, edits: list[tuple[int, int, int, str]]) -> str:
    """`text` with each (start, end, order, new) applied; at one offset, in `order`."""
    for start, end, _, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def recording_suite(suite: Suite) -> str:
    """The suite run on the correct solution: each site a call of the recorder with the
    placeholder's number and the other side, the recorder imported first."""
    text = suite.text
    edits = [(p.site[0], p.site[1], i, f"{RECORDER}({i}, ({text[p.other[0]:p.other[1]]}))")
             for i, p in enumerate(suite.placeholders) if p.site is not None and p.other is not None]
    at = suite.prelude_at
    edits.append((at, at, -1, ("\n" if at and text[at - 1] != "\n" else "") + _PRELUDE))
    return _edited(text, edits)


def written_back(suite: Suite, values: dict[int, str], unfilled: dict[int, str]) -> str:
    """The suite with each filled placeholder replaced by its value's literal, and a
    comment line above the statement of each other one that says why it is not."""
    text = suite.text
    edits = []
    for i, p in enumerate(suite.placeholders):
        if i in values:
            edits.append((p.span[0], p.span[1], i, values[i]))
            continue
        why = " ".join(unfilled[i].split())
        if p.comment_at == len(text):  # no statement begins a line: the note goes last
            note = ("" if text.endswith("\n") else "\n") + f"# {PLACEHOLDER} on line {p.line} not filled: {why}\n"
        else:
            note = f"{p.indent}# {PLACEHOLDER} not filled: {why}\n"
        edits.append((p.comment_at, p.comment_at, i, note))
    return _edited(text, edits)
