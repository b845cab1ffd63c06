"""The equality assertions of a written pytest suite, for correcting its expected values by
execution (testwriting/corrected.py): `assert a == b` with one `==`, and
`self.assertEqual(a, b)`, the two forms whose sides fill.py fills. The expected side is the
one without a call (`"perfect"`, `[1, 2]`, `Colour.RED`), or the right (second) one when
both or neither call. Positions are the syntax tree's, as characters."""

from __future__ import annotations

import ast

from ..language import Comparison
from .placeholders import PLACEHOLDER
from .screen import parse
from .spans import SourceText

_EQUAL = frozenset({"assertEqual", "assertEquals"})


def _sides(node: ast.AST) -> tuple[ast.expr, ast.expr] | None:
    if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 \
            and isinstance(node.test.ops[0], ast.Eq):
        return node.test.left, node.test.comparators[0]
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
            and node.value.func.attr in _EQUAL and len(node.value.args) == 2 and not node.value.keywords:
        return node.value.args[0], node.value.args[1]
    return None


def _calls(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


def expected_and_actual(node: ast.AST) -> tuple[ast.expr, ast.expr] | None:
    """An equality assertion's (expected, actual) sides; None for any other node."""
    sides = _sides(node)
    if sides is None:
        return None
    left, right = sides
    return (left, right) if _calls(right) and not _calls(left) else (right, left)


def comparisons(text: str) -> list[Comparison]:
    try:
        tree = parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    src = SourceText(text)
    found = []
    for node in ast.walk(tree):
        sides = expected_and_actual(node)
        if sides is None or any(isinstance(n, ast.Name) and n.id == PLACEHOLDER for s in sides for n in ast.walk(s)):
            continue
        expected, actual = sides
        found.append(Comparison(expected=src.span(expected), actual=src.span(actual)))
    return sorted(found, key=lambda c: c.expected)
