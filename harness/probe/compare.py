"""How observed values compare, in the harness's process: a candidate's values against the
reference's. Values are the JSON the probe wrote (harness_probe.hpp): numbers, text,
booleans, null, arrays, and objects for what is neither (`{"x": type}` for an exception,
`{"float": "nan"}`, `{"text": ...}` for a type written with operator<<, `{"approx": ...}`).

Two kinds of records are compared:
- a call's record (`{"o": [outcome, ...]}`, see calls.py), by a check's mode: `exact`,
  `approx` (every number within an absolute or relative tolerance), `unordered` (every
  value that is an array compared as a multiset), or `exception` (only whether each
  observation threw, and what type);
- an assertion's record from a task's own test file (the recording Catch2 stand-in): it
  holds when the candidate's operands equal the reference's, or, for operands whose values
  differ between the reference's own runs (random values), when the assertion's relation
  holds on the candidate's operands; Approx and WithinAbs/WithinRel are judged here with
  the reference's bounds.
"""

from __future__ import annotations

import json
import math
import operator
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


def same(a: Any, b: Any, *, abs_tol: float = 0.0, rel_tol: float = 0.0) -> bool:
    """JSON values equal: a boolean is never a number, an integer equals a float of the same
    value, and numbers may differ by the tolerances."""
    if _number(a) and _number(b):
        if abs_tol or rel_tol:
            return math.isclose(a, b, abs_tol=abs_tol, rel_tol=rel_tol)
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
    if "x" in expected or "x" in observed or how.mode == "exception":
        return expected.get("x") == observed.get("x") and ("v" in expected) == ("v" in observed)
    if "v" not in observed:
        return False
    if how.mode == "unordered":
        return same_unordered(expected["v"], observed["v"])
    if how.mode == "approx":
        return same(expected["v"], observed["v"], abs_tol=how.abs_tol, rel_tol=how.rel_tol)
    return same(expected["v"], observed["v"])


def call_matches(expected: dict, observed: dict | None, how: Comparison) -> bool:
    """A call's record against the reference's."""
    if observed is None or expected.get("x") != observed.get("x"):
        return False
    want, got = expected.get("o", []), observed.get("o")
    if not isinstance(got, list) or len(got) != len(want):
        return False
    return all(isinstance(g, dict) and _outcome_matches(w, g, how) for w, g in zip(want, got))


# --- assertions from a task's own test file ----------------------------------------------


def approx_equal(value: Any, approx: list) -> bool:
    """Catch2's Approx: within the margin, or within epsilon * (scale + |target|)."""
    if not _number(value) or len(approx) != 4 or not all(_number(p) for p in approx):
        return False
    target, epsilon, margin, scale = approx

    def within(bound: float) -> bool:
        return target + bound >= value and value + bound >= target

    return within(margin) or within(epsilon * (scale + (0 if math.isinf(target) else abs(target))))


_RELATIONS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge}


def _approx_of(value: Any) -> list | None:
    if isinstance(value, dict) and isinstance(value.get("approx"), list):
        return value["approx"]
    return None


def _relation(op: str, left: Any, right: Any) -> bool | None:
    """The relation evaluated on JSON values, None where it cannot be (operands of types the
    probe could not write, or an order between unlike values)."""
    approx_left, approx_right = _approx_of(left), _approx_of(right)
    if approx_left is not None or approx_right is not None:
        approx, value = (approx_right, left) if approx_right is not None else (approx_left, right)
        if not _number(value):
            return None
        target = approx[0] if _number(approx[0]) else None
        equal = approx_equal(value, approx)
        value_first = approx_right is not None
        if op == "==":
            return equal
        if op == "!=":
            return not equal
        if target is None or op not in ("<=", ">="):
            return None
        below = value < target if value_first else target < value
        above = value > target if value_first else target > value
        return below or equal if op == "<=" else above or equal
    if op in ("==", "!="):
        return same(left, right) == (op == "==")
    if op in _RELATIONS and ((_number(left) and _number(right)) or (isinstance(left, str) and isinstance(right, str))):
        return _RELATIONS[op](left, right)
    return None


_MISSING = object()


def _holds(record: dict) -> bool | None:
    """Whether an assertion holds, judged here from its recorded operands."""
    if record.get("k") == "cmp" and "l" in record and "r" in record:
        result = _relation(str(record.get("op")), record["l"], record["r"])
        return None if result is None else result != bool(record.get("neg"))
    return None


def _within(bounds: Any, value: Any) -> bool | None:
    if not _number(value) or not isinstance(bounds, dict):
        return None
    if isinstance(bounds.get("abs"), list) and len(bounds["abs"]) == 2:
        target, margin = bounds["abs"]
        return value + margin >= target and target + margin >= value
    if isinstance(bounds.get("rel"), list) and len(bounds["rel"]) == 2:
        target, epsilon = bounds["rel"]
        margin = epsilon * max(abs(value), abs(target))
        return value + margin >= target and target + margin >= value
    return None


SIDES = ("l", "r", "v")


def site(record: dict) -> tuple:
    """Where an assertion is in the test file: the records a loop makes share one."""
    return record.get("a"), record.get("e"), record.get("line")


def random_sides(runs: list[list[dict]]) -> list[frozenset[str]]:
    """For each of the first run's records of one test case, the operands whose values
    differ between the reference's runs anywhere at the same assertion: random values,
    which the relation the test asserts judges, not a comparison with the reference's."""
    varying: dict[tuple, set[str]] = {}
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            for side in SIDES:
                if (side in a or side in b) and not same(a.get(side, _MISSING), b.get(side, _MISSING)):
                    varying.setdefault(site(a), set()).add(side)
    return [frozenset(varying.get(site(r), ())) for r in runs[0]]


def assertion_holds(expected: dict, observed: dict | None, random: frozenset[str] = frozenset()) -> bool:
    """A candidate's record of one assertion against the reference's: true when it shows
    what the reference's shows. Operands in `random` vary between the reference's runs;
    for those the assertion's relation, judged here on the candidate's values, decides."""
    if observed is None or observed.get("k") != expected.get("k"):
        return False
    kind = expected.get("k")
    if kind == "cmp":
        if _approx_of(expected.get("l")) is not None or _approx_of(expected.get("r")) is not None:
            # The reference's bound (never the candidate's) against the candidate's value.
            side = "l" if _approx_of(expected.get("l")) is not None else "r"
            return _holds({**observed, side: expected[side]}) == expected.get("ok")
        pinned = [k for k in ("l", "r") if k in expected and k not in random]
        if not all(same(expected[k], observed.get(k, _MISSING)) for k in pinned):
            return False
        if pinned and not any(k in random for k in ("l", "r")):
            return True
        held = _holds(observed)
        return (held if held is not None else observed.get("ok")) == expected.get("ok")
    if kind in ("val", "that"):
        held = _within(expected.get("m"), observed.get("v", _MISSING)) if kind == "that" else None
        if held is not None:
            return held == expected.get("ok")
        if "v" in expected and "v" not in random:
            return same(expected["v"], observed.get("v", _MISSING))
        return observed.get("ok") == expected.get("ok")
    if kind == "throws":
        return observed.get("threw") == expected.get("threw") and observed.get("is") == expected.get("is")
    if kind in ("nothrow", "raised", "escaped"):
        return observed.get("x") == expected.get("x")
    if kind == "fail":
        return True
    return False


def assertion_view(record: dict | None) -> dict | None:
    """What a person needs to see of an assertion's record: what it recorded, not where."""
    if record is None:
        return None
    return {k: v for k, v in record.items() if k not in ("a", "e", "line", "k")}
