"""What a mutant is, in any language: one small change to one file of a correct solution,
made by one of a few operators that each language's generator applies in its own way
(`cpp/mutants.py` on C++ tokens, `python/mutants.py` on Python's syntax tree, Go's
and Java's on their tokenizers' tokens through `token_mutants`). Suite validation counts the ones its tests kill, the
repair curriculum starts from the ones that fail, test writing scores suites by them."""

from __future__ import annotations

import random
import re
from enum import Enum
from typing import Callable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from ..hashing import sha256_json


class Operator(str, Enum):
    arithmetic = "arithmetic"    # + <-> -, * <-> /, and their compound assignments
    relational = "relational"    # < <-> <=, > <-> >=, == <-> !=
    logical = "logical"          # && <-> ||
    boundary = "boundary"        # an integer or floating constant shifted by one
    constant = "constant"        # a constant replaced by zero; true <-> false
    negate = "negate"            # the condition of an if or while negated
    delete = "delete"            # an expression statement removed
    returned = "return"          # a returned value replaced by None (Python)


class Mutant(BaseModel):
    """One change to one file: replace `original` at [start, end) (character offsets in the
    file's text) by `replacement`. Line and column are 1-based, for people."""

    model_config = ConfigDict(frozen=True)

    operator: Operator
    file: str
    line: int
    column: int
    start: int
    end: int
    original: str
    replacement: str

    @property
    def label(self) -> str:
        """A short name usable as a folder name, unique among a file's mutants: one operator
        can change one place in more than one way (a constant 1 shifted to 0 and to 2), so the
        change itself is in the name, as a digest."""
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", self.file)
        change = sha256_json([self.start, self.end, self.replacement])[:6]
        return f"{stem}-L{self.line}C{self.column}-{self.operator.value}-{change}"

    def describe(self) -> str:
        if self.operator is Operator.delete:
            return f"{self.file}:{self.line}:{self.column} delete: {_squash(self.original)!r}"
        return f"{self.file}:{self.line}:{self.column} {self.operator.value}: {self.original!r} -> {self.replacement!r}"

    def mutate_text(self, text: str) -> str:
        if text[self.start:self.end] != self.original:
            raise ValueError(f"{self.file}: mutant {self.describe()} does not match this text")
        return text[: self.start] + self.replacement + text[self.end:]

    def apply(self, files: Mapping[str, bytes]) -> dict[str, bytes]:
        """The given files with this mutant applied to its own file."""
        out = dict(files)
        out[self.file] = encode(self.mutate_text(decode(files[self.file])))
        return out


def sample(mutants: list[Mutant], cap: int | None, seed: int) -> list[Mutant]:
    """At most `cap` of `mutants`, drawn with `seed` and kept in their order, so the same
    inputs always give the same list; all of them without a cap."""
    if cap is None or len(mutants) <= cap:
        return mutants
    keep = sorted(random.Random(seed).sample(range(len(mutants)), cap))
    return [mutants[i] for i in keep]


def _squash(text: str) -> str:
    return " ".join(text.split())


# Files are bytes; surrogateescape lets any byte survive a decode/encode round trip.
def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


# The swaps of the generators that work on a tokenizer's tokens (Go's, Java's).
_SWAPS = {"<": ("<=", Operator.relational), "<=": ("<", Operator.relational), ">": (">=", Operator.relational),
          ">=": (">", Operator.relational), "==": ("!=", Operator.relational), "!=": ("==", Operator.relational),
          "&&": ("||", Operator.logical), "||": ("&&", Operator.logical), "+": ("-", Operator.arithmetic),
          "-": ("+", Operator.arithmetic), "+=": ("-=", Operator.arithmetic), "-=": ("+=", Operator.arithmetic)}


def token_mutants(text: str, name: str, code: Sequence[tuple[str, str, int]], operators: Sequence[str],
                  mutable: Callable[[int], bool] = lambda i: True) -> list[Mutant]:
    """Mutants of a file from its code tokens ((kind, text, offset), comments and literals
    left out, so nothing inside them changes): `operators` are the language's, longest first
    (a token that starts one is never read as a shorter one); of them the relational,
    arithmetic (binary + and -, and their compound assignments) and logical ones are
    swapped, true and false swapped, a decimal integer shifted by one. `mutable(i)` says
    whether code[i] may change (Java's `<` of a type argument is no operator, and a case
    label shifted by one may be its neighbour's)."""
    out: list[Mutant] = []
    skip_to = -1
    for i, (kind, token, at) in enumerate(code):
        changes: list[tuple[Operator, str, str]] = []
        if at < skip_to:
            continue
        if kind == "word" and token in ("true", "false"):
            changes.append((Operator.constant, token, "false" if token == "true" else "true"))
        elif kind == "number" and token.isdigit() and (token == "0" or not token.startswith("0")):
            changes.append((Operator.boundary, token, str(int(token) + 1)))
            if int(token) > 0:
                changes.append((Operator.boundary, token, str(int(token) - 1)))
        elif kind == "other":
            op = next((o for o in operators if text.startswith(o, at)), None)
            if op is None:
                continue
            skip_to = at + len(op)
            if op in _SWAPS:
                changes.append((_SWAPS[op][1], op, _SWAPS[op][0]))
        if changes and not mutable(i):
            continue
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        out.extend(Mutant(operator=operator, file=name, line=line, column=column, start=at, end=at + len(original),
                          original=original, replacement=replacement) for operator, original, replacement in changes)
    return out


def mutants_of_files(files: Mapping[str, bytes], is_source: Callable[[str], bool],
                     of_source: Callable[[str, str], list[Mutant]], cap: int | None, seed: int) -> list[Mutant]:
    """Mutants of every file among `files` that `is_source` names (a language's sources, its
    tests left out), by file name then position; with `cap`, a seeded sample."""
    out: list[Mutant] = []
    for name in sorted(files):
        if is_source(name):
            out.extend(of_source(decode(files[name]), name))
    return sample(out, cap, seed)
