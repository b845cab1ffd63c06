"""What a mutant is, in any language: one small change to one file of a correct solution,
made by one of a few operators that each language's generator applies in its own way
(`cpp/mutants.py` on C++ tokens, `python/mutants.py` on Python's syntax tree). Suite validation counts the ones its tests kill, the
repair curriculum starts from the ones that fail, test writing scores suites by them."""

from __future__ import annotations

import random
import re
from enum import Enum
from typing import Iterator, Mapping, Sequence

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


# One token as a tokenizer of the C family reads it: kind ("word", "number", "other" for
# punctuation, comment and literal kinds otherwise), text, line, offset in characters.
Token = tuple[str, str, int, int]
_NOT_CODE = ("line", "block", "string", "raw", "rune", "lifetime")


def _token_changes(text: str, tokens: Sequence[Token], operators: Sequence[str],
                   swaps: Mapping[str, tuple[str, Operator]]) -> Iterator[tuple[Operator, int, str, str]]:
    """(operator, offset, original, replacement) of every change, in text order."""
    skip_to = -1
    for kind, token, _line, at in tokens:
        if at < skip_to or kind in _NOT_CODE:
            continue
        if kind == "word" and token in ("true", "false"):
            yield Operator.constant, at, token, "false" if token == "true" else "true"
        elif kind == "number" and token.isdigit() and (token == "0" or not token.startswith("0")):
            yield Operator.boundary, at, token, str(int(token) + 1)
            if int(token) > 0:
                yield Operator.boundary, at, token, str(int(token) - 1)
        elif kind == "other":
            op = next((o for o in operators if text.startswith(o, at)), None)
            if op is None:
                continue
            skip_to = at + len(op)
            if op in swaps:
                replacement, operator = swaps[op]
                yield operator, at, op, replacement


def token_mutants(text: str, tokens: Sequence[Token], name: str, operators: Sequence[str],
                  swaps: Mapping[str, tuple[str, Operator]]) -> list[Mutant]:
    """Mutants of a file made on its tokens, so nothing inside a string, a character or a
    comment changes: each operator in `swaps` swapped (`operators` lists every operator
    longest first, so that a longer one is never read as a shorter), true and false swapped,
    a decimal integer shifted by one."""
    out = []
    for operator, at, original, replacement in _token_changes(text, tokens, operators, swaps):
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        out.append(Mutant(operator=operator, file=name, line=line, column=column, start=at, end=at + len(original),
                          original=original, replacement=replacement))
    return out
