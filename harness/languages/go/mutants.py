"""Mutants of a Go solution, made on its tokens (screen.py's tokenizer, so nothing inside a
string, a rune or a comment changes) by mutation.token_mutants: relational, arithmetic
(binary + and -, and their compound assignments) and logical operators swapped, true and
false swapped, a decimal integer shifted by one. `*` and `/` are left alone: `*` is also a
pointer's."""

from __future__ import annotations

from typing import Mapping

from ..mutation import Mutant, mutants_of_files, token_mutants
from .screen import tokens_or_none

# Longest first: `<-` (a channel's), `<<`, `++`, `:=` are never mistaken for an operator here.
_OPERATORS = ("<<=", ">>=", "&^=", "...", "&&", "||", "==", "!=", "<=", ">=", "<-", "<<", ">>", "++", "--", "+=",
              "-=", ":=", "<", ">", "+", "-")


def mutants_of_source(text: str, name: str) -> list[Mutant]:
    code = [(kind, token, at) for kind, token, _line, at in tokens_or_none(text) or ()
            if kind not in ("line", "block", "string", "raw", "rune")]
    return token_mutants(text, name, code, _OPERATORS)


def generate_mutants(files: Mapping[str, bytes], *, cap: int | None = None, seed: int = 0) -> list[Mutant]:
    """Mutants of every Go file among `files` but test files, by file name then position;
    with `cap`, a seeded sample (mutation.sample)."""
    return mutants_of_files(files, lambda name: name.endswith(".go") and not name.endswith("_test.go"), mutants_of_source, cap, seed)
