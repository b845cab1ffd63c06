"""Mutants of a Rust solution, made on its tokens (screen.py's tokenizer, so nothing inside a
string, a character, a lifetime or a comment changes): relational, arithmetic (binary + and
-, and their compound assignments) and logical operators swapped, true and false swapped, a
decimal integer shifted by one. `*` and `/` are left alone (`*` is also a dereference), and
so are `<` and `>` after a type's name or `::` (a generic's brackets)."""

from __future__ import annotations

from typing import Mapping

from ..mutation import Mutant, mutants_of_files, token_mutants
from .screen import tokens_or_none

# Longest first: `->`, `=>`, `::`, `..=` and the shifts are never mistaken for a comparison.
_OPERATORS = ("<<=", ">>=", "..=", "...", "->", "=>", "::", "..", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>",
              "+=", "-=", "<", ">", "+", "-")


def _generic(tokens: list, i: int) -> bool:
    """Whether the `<` at `i` opens a generic's brackets, as far as a token before it says."""
    if i == 0:
        return False
    kind, token = tokens[i - 1][0], tokens[i - 1][1]
    return token == ":" or (kind == "word" and (token[:1].isupper() or token in ("impl", "fn", "struct", "enum")))


def mutants_of_source(text: str, name: str) -> list[Mutant]:
    tokens = tokens_or_none(text) or []
    generic = {tokens[i][3] for i in range(len(tokens)) if tokens[i][1] == "<" and _generic(tokens, i)}
    # a `>` that closes one of those: dropped by matching depth in text order
    depth = 0
    for kind, token, _line, at in tokens:
        if at in generic:
            depth += 1
        elif token == ">" and depth and kind == "other":
            generic.add(at)
            depth -= 1
    code = [(kind, token, at) for kind, token, _line, at in tokens
            if kind not in ("line", "block", "string", "raw", "rune", "lifetime")]
    return token_mutants(text, name, code, _OPERATORS, lambda i: code[i][2] not in generic)


def generate_mutants(files: Mapping[str, bytes], *, cap: int | None = None, seed: int = 0) -> list[Mutant]:
    """Mutants of every Rust source among `files` but test files, by file name then position;
    with `cap`, a seeded sample (mutation.sample)."""
    return mutants_of_files(files, lambda name: name.endswith(".rs") and not name.startswith("tests/"), mutants_of_source, cap, seed)
