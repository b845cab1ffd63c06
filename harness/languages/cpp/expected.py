"""The equality assertions of a written Catch2 suite, for correcting its expected values by
execution (testwriting/corrected.py): `REQUIRE(a == b)` or `CHECK(a == b)` with one `==`
at the top of the macro's parentheses. The expected side is the one without a call
(`perfect_numbers::classification::perfect`, `allergy_set{"eggs"}`, `12`), or the right
one when both or neither call. Read on the lexer's tokens, so strings and comments are
never mistaken for code."""

from __future__ import annotations

from ..language import Comparison
from .lexer import Token, tokenize

_ASSERTIONS = frozenset({"REQUIRE", "CHECK"})
_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")
# What makes a side more than one value: other operators at the macro's top level, or a
# second macro argument.
_NOT_ONE = frozenset({"&&", "||", ",", "?", "!=", "<", ">", "<=", ">="})
_PLACEHOLDER = "FILL"
_TYPE = "std::decay_t<decltype("


def _calls(side: list[Token]) -> bool:
    return any(t.text == "(" for t in side)


def _split(inner: list[Token]) -> tuple[list[Token], list[Token]] | None:
    depth, cut = 0, None
    for i, tok in enumerate(inner):
        if tok.text in _OPEN:
            depth += 1
        elif tok.text in _CLOSE:
            depth -= 1
        elif depth == 0 and tok.text == "==":
            if cut is not None:
                return None
            cut = i
        elif depth == 0 and tok.text in _NOT_ONE:
            return None
    if cut is None or cut == 0 or cut == len(inner) - 1:
        return None
    return inner[:cut], inner[cut + 1:]


def comparisons(text: str) -> list[Comparison]:
    tokens = [t for t in tokenize(text) if t.kind not in ("comment", "pp")]
    found = []
    for i, tok in enumerate(tokens[:-1]):
        if tok.kind != "ident" or tok.text not in _ASSERTIONS or tokens[i + 1].text != "(":
            continue
        depth, end = 0, None
        for j in range(i + 1, len(tokens)):
            if tokens[j].text in _OPEN:
                depth += 1
            elif tokens[j].text in _CLOSE:
                depth -= 1
                if depth == 0:
                    end = j
                    break
        if end is None:
            continue
        sides = _split(tokens[i + 2:end])
        if sides is None or any(t.text == _PLACEHOLDER for side in sides for t in side):
            continue
        left, right = sides
        expected, actual = (left, right) if _calls(right) and not _calls(left) else (right, left)
        found.append(Comparison(expected=(expected[0].start, expected[-1].end), actual=(actual[0].start, actual[-1].end)))
    return found


def value_key(written: str) -> str:
    """A filled value without the types it is cast to (fill.py writes it as the other
    side's type, `std::decay_t<decltype(side)>`)."""
    out, i = [], 0
    while (at := written.find(_TYPE, i)) >= 0:
        out.append(written[i:at])
        depth, j = 1, at + len(_TYPE)
        while j < len(written) and depth:
            depth += {"(": 1, ")": -1}.get(written[j], 0)
            j += 1
        i = j + 1 if written[j:j + 1] == ">" else j
    out.append(written[i:])
    return "".join(out)
