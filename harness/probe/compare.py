"""How observed values compare, in the harness's process: a candidate's values against the
reference's. Values are the JSON the probe wrote (harness_probe.hpp, Python's driver), held
to its schema (schema.py): numbers, text, booleans, null, arrays, and objects for what is
neither (`{"float": "nan"}`, `{"text": ...}` for a type written with operator<<, Python's
`{"tuple": [...]}`, `{"set": [...]}`, `{"dict": [[key, value], ...]}`, `{"int": digits}`, ...).
Exact equality is Python's == on the values these stand for (an int equals a float of the
same value, a tuple never equals a list, a set's members and a dict's entries count in any
order, a big int is read as the int it is), but a boolean is never a number and a NaN
equals a NaN: a value is compared as what it is, not as what arithmetic makes of it.

A call's record (`{"o": [outcome, ...]}`, see calls.py) compares by a check's mode:
`exact`, `approx` (every number within an absolute or relative tolerance), `unordered`
(every value that is an array compared as a multiset), `exception` (only whether each
observation threw, and what type), or `tokens` (a program's standard output, the paper's rule
for it: the same whitespace-separated tokens in order, two tokens that both read as numbers
equal within the absolute tolerance). Whenever the expected outcome is a value, the
candidate's must be a value too, and the values are compared; nothing here raises, for
any record the schema admits (bounded integers and depth).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Literal

from pydantic import Field

from ..records import Record

Mode = Literal["exact", "approx", "unordered", "exception", "tokens"]
# How a prediction writes its values: JSON (C++'s items) or Python literals (Python's), read
# back in the harness's process as the probe's values (predict/prompt.py).
AnswerForm = Literal["json", "python"]
_DIGITS = re.compile(r"-?[0-9]{1,4300}")  # what int() reads without Python's limit on digits


class Comparison(Record):
    mode: Mode = "exact"
    abs_tol: float = Field(0.0, ge=0, description="approx: absolute tolerance")
    rel_tol: float = Field(0.0, ge=0, description="approx: tolerance relative to the larger magnitude")
    answer: AnswerForm = Field("json", exclude_if=lambda v: v == "json",
                               description="the form a prediction writes values in (left out when JSON)")


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _numeric(x: Any) -> int | float | None:
    """A number's value: a JSON number, or a Python int written as `{"int": digits}` (at most
    schema.MAX_BIG_INT_DIGITS, which int() reads)."""
    if _number(x):
        return x
    if isinstance(x, dict) and x.keys() == {"int"} and isinstance(x["int"], str) and _DIGITS.fullmatch(x["int"]):
        return int(x["int"])
    return None


def _close(a: float, b: float, abs_tol: float, rel_tol: float) -> bool:
    try:
        return math.isclose(a, b, abs_tol=abs_tol, rel_tol=rel_tol)
    except OverflowError:  # an integer beyond a float's range: only its own value is close to it
        return a == b


def _equal(a: Any, b: Any, how: Comparison, unordered: bool) -> bool:
    x, y = _numeric(a), _numeric(b)
    if x is not None and y is not None:
        return _close(x, y, how.abs_tol, how.rel_tol) if how.abs_tol or how.rel_tol else x == y
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        if len(a) != len(b):
            return False
        if unordered:
            a, b = sorted(a, key=_canonical), sorted(b, key=_canonical)
        return all(_equal(p, q, how, unordered) for p, q in zip(a, b))
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return False
        if a.keys() == {"set"} and isinstance(a["set"], list) and isinstance(b["set"], list):
            return _equal(a["set"], b["set"], how, True)  # members in any order, as Python's ==
        if a.keys() == {"dict"} and isinstance(a["dict"], list) and isinstance(b["dict"], list):
            return _same_pairs(a["dict"], b["dict"], how, unordered)
        return all(_equal(a[k], b[k], how, unordered) for k in a)
    return a == b


def _same_pairs(a: list, b: list, how: Comparison, unordered: bool) -> bool:
    """A dict's [key, value] pairs in any order, each key with its own value."""
    if len(a) != len(b) or not all(isinstance(p, list) and len(p) == 2 for p in a + b):
        return False
    a, b = sorted(a, key=lambda p: _canonical(p[0])), sorted(b, key=lambda p: _canonical(p[0]))
    return all(_equal(p[0], q[0], how, unordered) and _equal(p[1], q[1], how, unordered) for p, q in zip(a, b))


def same(a: Any, b: Any, *, abs_tol: float = 0.0, rel_tol: float = 0.0) -> bool:
    """Values equal: a boolean is never a number, an integer equals a float of the same
    value (as Python's == says), and numbers may differ by the tolerances; a set's
    members and a dict's entries in any order, a tuple never a list."""
    return _equal(a, b, Comparison(mode="approx" if abs_tol or rel_tol else "exact", abs_tol=abs_tol, rel_tol=rel_tol),
                  False)


def _canonical(x: Any) -> str:
    def norm(v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, list):
            return [norm(e) for e in v]
        if isinstance(v, dict):
            big = _numeric(v)
            return big if big is not None else {k: norm(e) for k, e in v.items()}
        return v

    return json.dumps(norm(x), sort_keys=True)


def same_unordered(a: Any, b: Any) -> bool:
    """Arrays as multisets, at every level; everything else as `same`."""
    return _equal(a, b, Comparison(mode="unordered"), True)


def _outcome_matches(expected: dict, observed: dict, how: Comparison) -> bool:
    """An outcome is exactly a value or an exception (schema.py); a record that is both or
    neither matches nothing."""
    if not (_one_of(expected) and _one_of(observed)) or ("x" in expected) != ("x" in observed):
        return False
    if "x" in expected:
        return expected["x"] == observed["x"]
    if how.mode == "exception":
        return True
    if how.mode == "tokens":
        return _same_tokens(expected["v"], observed["v"], how.abs_tol)
    return _equal(expected["v"], observed["v"], how, how.mode == "unordered")


def _token_number(token: str) -> float | None:
    try:
        x = float(token)
    except ValueError:  # also what float() refuses: a token of digits beyond its limit reads as text
        return None
    return x if math.isfinite(x) else None


def _same_tokens(a: Any, b: Any, abs_tol: float) -> bool:
    """Two outputs as their whitespace-separated tokens: equal as text, or both numbers
    within `abs_tol`."""
    if not (isinstance(a, str) and isinstance(b, str)):
        return False
    left, right = a.split(), b.split()
    if len(left) != len(right):
        return False
    for p, q in zip(left, right):
        if p == q:
            continue
        x, y = _token_number(p), _token_number(q)
        if x is None or y is None or not abs(x - y) <= abs_tol:
            return False
    return True


def _one_of(outcome: dict) -> bool:
    return outcome.keys() in ({"v"}, {"x"})


def call_matches(expected: dict, observed: dict | None, how: Comparison) -> bool:
    """A call's record against the reference's."""
    if observed is None or expected.get("x") != observed.get("x"):
        return False
    want, got = expected.get("o", []), observed.get("o")
    if not isinstance(got, list) or len(got) != len(want):
        return False
    return all(isinstance(g, dict) and _outcome_matches(w, g, how) for w, g in zip(want, got))
