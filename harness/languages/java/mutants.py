"""Mutants of a Java solution, made on its tokens (screen.py's tokenizer, so nothing inside a
string, a text block, a character or a comment changes) by mutation.token_mutants, as Go's
are: relational, arithmetic (binary + and -, and their compound assignments) and logical
operators swapped, true and false swapped, a decimal integer shifted by one. A `<` or `>`
of a type's arguments (`List<Integer>`, `Map<K, List<V>>`) is not an operator and is left
alone, and so are `->`, `::`, the shifts, a `+` that joins strings and a case label."""

from __future__ import annotations

from typing import Mapping

from ..mutation import Mutant, mutants_of_files, token_mutants
from ..token_screen import without_comments
from .screen import tokens_or_none

_OPERATORS = (">>>=", "<<=", ">>=", "->", "::", "&&", "||", "==", "!=", "<=", ">=", "++", "--", "+=", "-=",
              "<", ">", "+", "-")


def _type_bracket(code: list[tuple[str, str, int]], i: int) -> bool:
    """Whether the `<` or `>` at code[i] opens or closes type arguments: a `<` right after a
    capitalised name or before one, `?` or `>`; a `>` right after one of those or `>`."""
    def capital(j: int) -> bool:
        return 0 <= j < len(code) and code[j][0] == "word" and code[j][1][:1].isupper()
    near = (code[i - 1][1] if i > 0 else "", code[i + 1][1] if i + 1 < len(code) else "")
    if code[i][1] == "<":
        return capital(i - 1) or capital(i + 1) or near[1] in ("?", ">")
    return code[i][1] == ">" and (capital(i - 1) or near[0] in (">", "?", "<") or near[1] in (">", "(", ")", ",", "{", "::"))


def _concatenation(code: list[tuple[str, str, int]], i: int) -> bool:
    """Whether the `+` or `+=` at code[i] joins strings: a string literal beside it (a `-`
    there would not compile)."""
    return any(0 <= j < len(code) and code[j][0] in ("string", "text") for j in (i - 1, i + 1, i + 2))


def _case_label(code: list[tuple[str, str, int]], i: int) -> bool:
    """Whether the number at code[i] is a case label (`case 1, 2 ->`): shifted by one it is
    often its neighbour's, a duplicate label that does not compile."""
    j = i - 1
    while j >= 0 and (code[j][1] == "," or code[j][0] == "number"):
        j -= 1
    return j >= 0 and code[j][1] == "case"


def mutants_of_source(text: str, name: str) -> list[Mutant]:
    # Literals stay among the tokens (token_mutants changes nothing inside them) so that a
    # `+` beside a string is seen as the concatenation it is.
    code = [(kind, token, at) for kind, token, _line, at in without_comments(tokens_or_none(text))]

    def mutable(i: int) -> bool:
        token, at = code[i][1], code[i][2]
        if code[i][0] == "number":
            return not _case_label(code, i)
        if token == "+":
            return not _concatenation(code, i)
        # `>>` and `>>>` are read as `>`s here (a type's `List<List<T>>` ends so), never swapped.
        return token not in "<>" or not (
            _type_bracket(code, i) or text.startswith((">>", "<<"), at) or text[at - 1] in "<>")
    return token_mutants(text, name, code, _OPERATORS, mutable)


def generate_mutants(files: Mapping[str, bytes], *, cap: int | None = None, seed: int = 0) -> list[Mutant]:
    """Mutants of every Java file among `files` but test files, by file name then position;
    with `cap`, a seeded sample (mutation.sample)."""
    return mutants_of_files(files, lambda name: name.endswith(".java") and not name.endswith("Test.java"), mutants_of_source, cap, seed)
