"""The schema of a probe's records: what the probe runtimes (C++'s
languages/cpp/probe/assets/include/harness_probe.hpp and the recording Catch2 stand-in;
Python's driver, languages/python/probe/runtime.py) write, and nothing else. The stream is the candidate's
process talking, so it is hostile: a record is parsed with bounds (size, nesting depth,
string length, digits of an integer) that no recursion or arithmetic of the harness can
trip over, and then held to the exact shapes an honest probe emits. A record outside them
is `Forged`: the candidate's verdict is `forged`, with the reason.

A value is JSON as `encode` writes it: null, a boolean, an integer of at most 20 digits
(the probe writes C++ integers of up to 64 bits), a finite number (a NaN or an infinity is
written as an object, never as a bare token), printable ASCII text (the probe escapes
every other byte), an array of values, or one of the objects the encoder writes:
`{"float": "nan" | "inf" | "-inf"}`, `{"pointer": "set"}`, `{"text": string}`, and an
Approx operand, `{"approx": [target, epsilon, margin, scale]}`. Python's values add the
forms JSON alone would lose: `{"int": digits}` (21 to 4,300 digits, as Python prints an
int), `{"bytes": hex}`, `{"tuple": [values]}`, `{"set": [values]}`, `{"dict": [[key,
value], ...]}`, `{"range": [start, stop, step]}` (integers), `{"class": name}`,
`{"object": [class name, repr or null]}` (an object of the candidate's, or of no other
form), and `{"digest": sha256 hex}` (a value over these bounds, by its encoding's hash).

A call's record (calls.py) is `{"o": [outcome, ...]}`, plus `"x": type` when a statement
threw, where an outcome is exactly `{"v": value}` or `{"x": type}`: never both, never
neither. An assertion's record (the recording stand-in, for a task's own test file) has
the fixed keys of its kind."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Literal

MAX_RECORD = 1 << 20    # bytes of one record line
MAX_DEPTH = 48          # arrays and objects nested in one record
MAX_STRING = 1 << 16    # characters of one string
MAX_INT_DIGITS = 20     # digits of an integer: 2**64 has 20
MAX_BIG_INT_DIGITS = 4300  # digits of a Python int written as {"int": digits}: what str() of an int prints
MAX_NUMBER = 40         # characters of a number as written (%.17Lg needs 26)

RecordKind = Literal["call", "assertion"]

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb"[\[\]{}]")
_UNPRINTABLE = re.compile(rb"[^\x20-\x7e]")
_BIG_INT = re.compile(r"-?[1-9][0-9]{%d,%d}" % (MAX_INT_DIGITS, MAX_BIG_INT_DIGITS - 1))
_HEX = re.compile(r"(?:[0-9a-f]{2})*")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_OPS = frozenset({"==", "!=", "<", ">", "<=", ">="})


class Forged(ValueError):
    """A record no honest probe writes; the message says what is wrong with it."""


def _too_deep(line: bytes) -> bool:
    if line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        return False
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub(b'""', line)):
        depth += 1 if bracket.group() in (b"[", b"{") else -1
        if depth > MAX_DEPTH:
            return True
    return False


def _refuse(what: str) -> Callable[..., Any]:
    def refuse(*_: Any) -> Any:
        raise Forged(what)

    return refuse


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise Forged(f"an integer of {len(text.lstrip('-'))} digits (the probe writes at most {MAX_INT_DIGITS})")
    return int(text)


def _number(text: str) -> float:
    if len(text) > MAX_NUMBER:
        raise Forged(f"a number written with {len(text)} characters")
    value = float(text)
    if not math.isfinite(value) and "e" not in text.lower():
        raise Forged("a number that is not finite")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise Forged("an object with a key twice")
    return out


def bounded_json(text: bytes) -> Any:
    """JSON a candidate or a model wrote, within the bounds (size, depth, digits, no NaN,
    no key twice); Forged when outside them or not JSON. Nothing here recurses without a
    bound or raises anything else."""
    if len(text) > MAX_RECORD:
        raise Forged(f"{len(text)} bytes of JSON (at most {MAX_RECORD})")
    if _too_deep(text):
        raise Forged(f"values nested more than {MAX_DEPTH} deep")
    try:
        return json.loads(text, object_pairs_hook=_object, parse_int=_integer, parse_float=_number,
                          parse_constant=_refuse("NaN or Infinity as a bare token"))
    except Forged:
        raise
    except (ValueError, RecursionError) as exc:
        raise Forged(f"not JSON ({type(exc).__name__})") from None


def parse(line: bytes) -> Any:
    """One record's JSON as the probe writes it: printable ASCII, within the bounds."""
    if _UNPRINTABLE.search(line):
        raise Forged("bytes the probe never writes (it escapes everything but printable ASCII)")
    return bounded_json(line)


# --- shapes -------------------------------------------------------------------------------


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise Forged(f"{what} is not text")
    if len(value) > MAX_STRING:
        raise Forged(f"{what} is a string of {len(value)} characters (at most {MAX_STRING})")
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _values(value: Any) -> bool:
    """An array of values (each held to the schema, or Forged)."""
    if not isinstance(value, list):
        return False
    for element in value:
        check_value(element)
    return True


def _whole(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, dict) and value.keys() == {"int"} and _VALUE_OBJECTS["int"](value["int"]))


def _bounded_text(value: Any, what: str) -> bool:
    return isinstance(value, str) and isinstance(_text(value, what), str)


# Each object form's content: true when it is one the encoders write; false or Forged when not.
_VALUE_OBJECTS: dict[str, Callable[[Any], bool]] = {
    "float": lambda v: v in ("nan", "inf", "-inf"),
    "pointer": lambda v: v == "set",
    "text": lambda v: _bounded_text(v, "a value's text"),
    "approx": lambda v: isinstance(v, list) and len(v) == 4 and all(_is_number(p) for p in v),
    "int": lambda v: isinstance(v, str) and _BIG_INT.fullmatch(v) is not None,
    "bytes": lambda v: _bounded_text(v, "bytes") and _HEX.fullmatch(v) is not None,
    "tuple": _values,
    "set": _values,
    "dict": lambda v: isinstance(v, list) and all(isinstance(p, list) and len(p) == 2 and _values(p) for p in v),
    "range": lambda v: isinstance(v, list) and len(v) == 3 and all(map(_whole, v)) and v[2] != 0,
    "class": lambda v: _bounded_text(v, "a class's name"),
    "object": lambda v: isinstance(v, list) and len(v) == 2 and _bounded_text(v[0], "a class's name")
    and (v[1] is None or _bounded_text(v[1], "a repr")),
    "digest": lambda v: isinstance(v, str) and _SHA256.fullmatch(v) is not None,
}


def check_value(value: Any) -> None:
    """A value as the probe's encoder writes one (depth is bounded by `parse`)."""
    if value is None or isinstance(value, (bool, int, float)):
        return
    if isinstance(value, str):
        _text(value, "a value")
        return
    if isinstance(value, list):
        for element in value:
            check_value(element)
        return
    if isinstance(value, dict) and len(value) == 1:
        (key, inner), = value.items()
        if key in _VALUE_OBJECTS and _VALUE_OBJECTS[key](inner):
            return
    raise Forged(f"a value the probe's encoder never writes: {json.dumps(value)[:80]}")


def check_outcome(outcome: Any) -> None:
    """Exactly `{"v": value}` or `{"x": type}`."""
    if isinstance(outcome, dict) and outcome.keys() == {"v"}:
        check_value(outcome["v"])
    elif isinstance(outcome, dict) and outcome.keys() == {"x"}:
        _text(outcome["x"], "an exception's type")
    else:
        raise Forged(f"an outcome that is not exactly one value or one exception: {json.dumps(outcome)[:80]}")


def check_call(record: Any) -> None:
    if not isinstance(record, dict) or not isinstance(record.get("o"), list) or not record.keys() <= {"o", "x"}:
        raise Forged("a call's record that is not {\"o\": [...]} with at most an exception beside it")
    for outcome in record["o"]:
        check_outcome(outcome)
    if "x" in record:
        _text(record["x"], "a call's exception type")


# For each kind of assertion record: the keys it always has, and those it may have.
_SITE = frozenset({"a", "e", "line"})
_ASSERTIONS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "cmp": (frozenset({"op", "neg", "ok"}) | _SITE, frozenset({"l", "r"})),
    "val": (frozenset({"neg", "ok"}) | _SITE, frozenset({"v"})),
    "that": (frozenset({"m", "ok"}) | _SITE, frozenset({"v"})),
    "throws": (frozenset({"threw", "ok"}) | _SITE, frozenset({"as", "is", "x"})),
    "nothrow": (frozenset({"ok"}) | _SITE, frozenset({"x"})),
    "raised": (frozenset({"x"}) | _SITE, frozenset()),
    "fail": (_SITE, frozenset()),
    "escaped": (frozenset({"x"}), frozenset()),
}
_FLAGS = ("neg", "ok", "threw", "is")
_TEXTS = ("a", "e", "as", "x")


def _matcher(m: Any) -> None:
    if isinstance(m, dict) and len(m) == 1:
        (key, inner), = m.items()
        if key in ("abs", "rel") and isinstance(inner, list) and len(inner) == 2 and all(map(_is_number, inner)):
            return
        if key == "describe":
            _text(inner, "a matcher's description")
            return
    raise Forged("a matcher the stand-in never writes")


def check_assertion(record: Any) -> None:
    if not isinstance(record, dict) or record.get("k") not in _ASSERTIONS:
        raise Forged("an assertion's record of no kind the stand-in writes")
    always, maybe = _ASSERTIONS[record["k"]]
    keys = record.keys() - {"k"}
    if not always <= keys or not keys <= always | maybe or ("as" in keys) != ("is" in keys):
        raise Forged(f"a {record['k']} record with the keys {sorted(keys)}")
    for key in _FLAGS:
        if key in record and not isinstance(record[key], bool):
            raise Forged(f"{key} is not true or false")
    for key in _TEXTS:
        if key in record:
            _text(record[key], key)
    if "line" in record and (not isinstance(record["line"], int) or isinstance(record["line"], bool)):
        raise Forged("a line number that is not an integer")
    if "op" in record and record["op"] not in _OPS:
        raise Forged("an operator the stand-in never writes")
    if "m" in record:
        _matcher(record["m"])
    for side in ("l", "r", "v"):
        if side in record:
            check_value(record[side])


CHECKS: dict[RecordKind, Callable[[Any], None]] = {"call": check_call, "assertion": check_assertion}


def read_record(line: bytes, kind: RecordKind) -> dict[str, Any]:
    """One record line's JSON held to its kind's shape; Forged otherwise."""
    record = parse(line)
    CHECKS[kind](record)
    return record
