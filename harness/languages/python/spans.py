"""Python source text with its syntax tree's positions as character offsets: the tree's
columns are UTF-8 bytes, and what the harness cuts or replaces in a file (a mutant, a
placeholder) is characters of its text."""

from __future__ import annotations

import ast
import bisect
import re


class SourceText:
    def __init__(self, text: str):
        self.text = text
        # Python's own lines: split at "\n" only (str.splitlines also splits at form feeds).
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def offset_chars(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def offset(self, line: int, col_bytes: int) -> int:
        start = self.starts[line - 1]
        row = self.text[start:start + col_bytes]  # at most col_bytes characters hold col_bytes bytes
        return start + len(row.encode("utf-8", "surrogateescape")[:col_bytes].decode("utf-8", "surrogateescape"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.offset(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column), both from 1, of an offset."""
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1
