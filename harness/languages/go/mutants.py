"""Mutants of a Go solution, made on its tokens (screen.py's tokenizer, so nothing inside a
string, a rune or a comment changes): relational, arithmetic (binary + and -, and their
compound assignments) and logical operators swapped, true and false swapped, a decimal
integer shifted by one. `*` and `/` are left alone: `*` is also a pointer's."""

from __future__ import annotations

from typing import Iterator, Mapping

from ..mutation import Mutant, Operator, decode, sample
from .screen import tokens_or_none

# Longest first: `<-` (a channel's), `<<`, `++`, `:=` are never mistaken for an operator here.
_OPERATORS = ("<<=", ">>=", "&^=", "...", "&&", "||", "==", "!=", "<=", ">=", "<-", "<<", ">>", "++", "--", "+=",
              "-=", ":=", "<", ">", "+", "-")
_SWAPS = {"<": ("<=", Operator.relational), "<=": ("<", Operator.relational), ">": (">=", Operator.relational),
          ">=": (">", Operator.relational), "==": ("!=", Operator.relational), "!=": ("==", Operator.relational),
          "&&": ("||", Operator.logical), "||": ("&&", Operator.logical), "+": ("-", Operator.arithmetic),
          "-": ("+", Operator.arithmetic), "+=": ("-=", Operator.arithmetic), "-=": ("+=", Operator.arithmetic)}


def _changes(text: str) -> Iterator[tuple[Operator, int, str, str]]:
    """(operator, offset, original, replacement) of every change, in text order."""
    tokens = tokens_or_none(text) or []
    skip_to = -1
    for kind, token, _line, at in tokens:
        if at < skip_to or kind in ("line", "block", "string", "raw", "rune"):
            continue
        if kind == "word" and token in ("true", "false"):
            yield Operator.constant, at, token, "false" if token == "true" else "true"
        elif kind == "number" and token.isdigit() and (token == "0" or not token.startswith("0")):
            yield Operator.boundary, at, token, str(int(token) + 1)
            if int(token) > 0:
                yield Operator.boundary, at, token, str(int(token) - 1)
        elif kind == "other":
            op = next((o for o in _OPERATORS if text.startswith(o, at)), None)
            if op is None:
                continue
            skip_to = at + len(op)
            if op in _SWAPS:
                replacement, operator = _SWAPS[op]
                yield operator, at, op, replacement


def mutants_of_source(text: str, name: str) -> list[Mutant]:
    out = []
    for operator, at, original, replacement in _changes(text):
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        out.append(Mutant(operator=operator, file=name, line=line, column=column, start=at, end=at + len(original),
                          original=original, replacement=replacement))
    return out


def generate_mutants(files: Mapping[str, bytes], *, cap: int | None = None, seed: int = 0) -> list[Mutant]:
    """Mutants of every Go file among `files` but test files, by file name then position;
    with `cap`, a seeded sample (mutation.sample)."""
    out: list[Mutant] = []
    for name in sorted(files):
        if name.endswith(".go") and not name.endswith("_test.go"):
            out.extend(mutants_of_source(decode(files[name]), name))
    return sample(out, cap, seed)
