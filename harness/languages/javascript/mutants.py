"""Mutants of a JavaScript solution, made on its tokens (tokens.py: nothing inside a string,
a template's text, a regular expression or a comment changes): relational (strict and
loose), arithmetic (binary + and -, their compound assignments, ++ and --) and logical
operators swapped, true and false swapped, a decimal integer shifted by one."""

from __future__ import annotations

from typing import Iterator, Mapping

from ..mutation import Mutant, Operator, mutants_of_files
from .tokens import tokens

_SWAPS = {"<": ("<=", Operator.relational), "<=": ("<", Operator.relational), ">": (">=", Operator.relational),
          ">=": (">", Operator.relational), "===": ("!==", Operator.relational), "!==": ("===", Operator.relational),
          "==": ("!=", Operator.relational), "!=": ("==", Operator.relational),
          "&&": ("||", Operator.logical), "||": ("&&", Operator.logical), "+": ("-", Operator.arithmetic),
          "-": ("+", Operator.arithmetic), "+=": ("-=", Operator.arithmetic), "-=": ("+=", Operator.arithmetic),
          "++": ("--", Operator.arithmetic), "--": ("++", Operator.arithmetic)}


def _changes(text: str) -> Iterator[tuple[Operator, int, str, str]]:
    """(operator, offset, original, replacement) of every change, in text order."""
    for kind, token, at in tokens(text) or []:
        if kind == "word" and token in ("true", "false"):
            yield Operator.constant, at, token, "false" if token == "true" else "true"
        elif kind == "number" and token.isdigit() and (token == "0" or not token.startswith("0")):
            yield Operator.boundary, at, token, str(int(token) + 1)
            if int(token) > 0:
                yield Operator.boundary, at, token, str(int(token) - 1)
        elif kind == "other" and token in _SWAPS:
            replacement, operator = _SWAPS[token]
            yield operator, at, token, replacement


def mutants_of_source(text: str, name: str) -> list[Mutant]:
    out = []
    for operator, at, original, replacement in _changes(text):
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        out.append(Mutant(operator=operator, file=name, line=line, column=column, start=at, end=at + len(original),
                          original=original, replacement=replacement))
    return out


def generate_mutants(files: Mapping[str, bytes], *, cap: int | None = None, seed: int = 0) -> list[Mutant]:
    """Mutants of every JavaScript file among `files` but spec files, by file name then
    position; with `cap`, a seeded sample (mutation.sample)."""
    def is_source(name: str) -> bool:
        return name.endswith((".js", ".mjs", ".cjs")) and not name.endswith((".spec.js", ".test.js"))

    return mutants_of_files(files, is_source, mutants_of_source, cap, seed)
