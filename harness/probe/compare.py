"""How observed values compare, in the harness's process: a candidate's values against the
reference's. Values are the JSON the probe wrote (harness_probe.hpp), held to its schema
(schema.py): numbers, text, booleans, null, arrays, and objects for what is neither
(`{"float": "nan"}`, `{"text": ...}` for a type written with operator<<, ...).

A call's record (`{"o": [outcome, ...]}`, see calls.py) compares by a check's mode:
`exact`, `approx` (every number within an absolute or relative tolerance), `unordered`
(every value that is an array compared as a multiset), or `exception` (only whether each
observation threw, and what type). Whenever the expected outcome is a value, the
candidate's must be a value too, and the values are compared; nothing here raises, for
any record the schema admits (bounded integers and depth).
"""

from __future__ import annotations

import json
import math
from typing import Any, Literal

from pydantic import Field

from ..records import Record

Mode = Literal["exact", "approx", "unordered", "exception"]


class Comparison(Record):
    mode: Mode = "exact"
    abs_tol: float = Field(0.0, ge=0, description="approx: absolute tolerance")
    rel_tol: float = Field(0.0, ge=0, description="approx: tolerance relative to the larger magnitude")


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _close(a: float, b: float, abs_tol: float, rel_tol: float) -> bool:
    try:
        return math.isclose(a, b, abs_tol=abs_tol, rel_tol=rel_tol)
    except OverflowError:  # an integer beyond a float's range: only its own value is close to it
        return a == b


def same(a: Any, b: Any, *, abs_tol: float = 0.0, rel_tol: float = 0.0) -> bool:
    """JSON values equal: a boolean is never a number, an integer equals a float of the same
    value, and numbers may differ by the tolerances."""
    if _number(a) and _number(b):
        if abs_tol or rel_tol:
            return _close(a, b, abs_tol, rel_tol)
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y, abs_tol=abs_tol, rel_tol=rel_tol) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], abs_tol=abs_tol, rel_tol=rel_tol) for k in a)
    return a == b


def _canonical(x: Any) -> str:
    def norm(v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, list):
            return [norm(e) for e in v]
        if isinstance(v, dict):
            return {k: norm(e) for k, e in v.items()}
        return v

    return json.dumps(norm(x), sort_keys=True)


def same_unordered(a: Any, b: Any) -> bool:
    """Arrays as multisets, at every level; everything else as `same`."""
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        left = sorted(a, key=_canonical)
        right = sorted(b, key=_canonical)
        return all(same_unordered(x, y) for x, y in zip(left, right))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_unordered(a[k], b[k]) for k in a)
    return same(a, b)


def _outcome_matches(expected: dict, observed: dict, how: Comparison) -> bool:
    """An outcome is exactly a value or an exception (schema.py); a record that is both or
    neither matches nothing."""
    if not (_one_of(expected) and _one_of(observed)) or ("x" in expected) != ("x" in observed):
        return False
    if "x" in expected:
        return expected["x"] == observed["x"]
    if how.mode == "exception":
        return True
    if how.mode == "unordered":
        return same_unordered(expected["v"], observed["v"])
    if how.mode == "approx":
        return same(expected["v"], observed["v"], abs_tol=how.abs_tol, rel_tol=how.rel_tol)
    return same(expected["v"], observed["v"])


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
