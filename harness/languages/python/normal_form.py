"""Python's normal form, for near-duplicate detection (`Language.normal_form`): two attempts
that differ only in comments, layout or the names of their own locals share one.

The normal form of a file is its token stream (the standard library's `tokenize`) without
comments, blank or continued lines and the spacing between tokens; the block structure
stays (an indent, a dedent and the end of each logical line are tokens of their own, since
in Python they are what the code does). Every name the code binds itself (an assignment's
target, a parameter, a loop or `with` variable, a function or class it defines, an
exception it names) is replaced by its order of first appearance, except the names the
task's own files use (its interface) and names bound by imports (which module is imported
is what the code does). Text that does not tokenize is its text with its whitespace
squashed; text that does not parse keeps its names."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from .screen import parse

_DROPPED = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER})
_MARKERS = {tokenize.NEWLINE: "<newline>", tokenize.INDENT: "<indent>", tokenize.DEDENT: "<dedent>"}
_NAME = re.compile(r"[^\W\d]\w*")


def _tokens(text: str) -> list[tokenize.TokenInfo] | None:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


def _bound(text: str, keep: set[str]) -> set[str]:
    """The names the code binds itself, but those bound by imports and those in `keep`."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    out: set[str] = set()
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.alias):
            imported.add((node.asname or node.name).split(".")[0])
    return out - imported - keep


def normal_form(text: str, keep: set[str]) -> str:
    tokens = _tokens(text)
    if tokens is None:
        return " ".join(text.split())
    local = _bound(text, keep)
    renamed: dict[str, str] = {}
    out = []
    for tok in tokens:
        if tok.type in _DROPPED:
            continue
        if tok.type in _MARKERS:
            out.append(_MARKERS[tok.type])
        elif tok.type == tokenize.NAME and tok.string in local:
            out.append(renamed.setdefault(tok.string, f"_{len(renamed)}"))
        else:
            out.append(tok.string)
    return " ".join(out)


def names(text: str) -> set[str]:
    """Every name of a text (every word, where it does not tokenize)."""
    tokens = _tokens(text)
    if tokens is None:
        return set(_NAME.findall(text))
    return {tok.string for tok in tokens if tok.type == tokenize.NAME}
