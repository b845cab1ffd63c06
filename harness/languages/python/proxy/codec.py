"""The one encoding values cross the pipe in, both ways, with its bounds.

A value is JSON of a tagged form, never a raw JSON number or string, so that what a frame
holds is read one way only: null, true and false are themselves; `["i", digits]` an int,
`["f", repr]` a float, `["s", text]` a str, `["y", hex]` bytes, `["r", start, stop, step]`
(digits each) a range, `["l" | "t" | "S" | "F",
[items]]` a list, tuple, set or frozenset, `["d", [[key, value], ...]]` a dict. Everything
else is a reference the side that reads it resolves: `["h", id, ...]` an object of the
candidate's process, `["c", id]` an object the test process lent, `["x", name]` a builtin
exception class, `["E", class, args]` an exception value.

The encoder never sends what the decoder would refuse: a value over a bound, or of a type
not listed, goes to the side's `other` (the server makes it a remote handle). The decoder
accepts exactly these forms within the bounds, and raises `Malformed` on anything else;
it never evaluates, unpickles or imports."""

from __future__ import annotations

import json
import re
from collections import Counter, OrderedDict, defaultdict
from typing import Any, Callable

MAX_FRAME = 8 * 1024 * 1024       # bytes of one message, newline excluded
MAX_DEPTH = 64                    # containers inside containers
MAX_ITEMS = 100_000               # values in one message
MAX_STR = 1_000_000               # characters of a str, bytes of a bytes
MAX_INT_BITS = 14_000             # about 4,200 digits, under Python's own 4,300 for str(int)
MAX_NAME = 256                    # characters of a class's name
MAX_CLASS_DEPTH = 16              # classes above a class, as its bases name them, and bases of one class

_INT = re.compile(r"-?[0-9]{1,4300}\Z")
_FLOAT = re.compile(r"-?(?:inf|nan|[0-9]{1,20}(?:\.[0-9]{1,20})?(?:e[+-][0-9]{1,3})?)\Z")
_HEX = re.compile(r"(?:[0-9a-f]{2})*\Z")
_CONTAINERS: dict[type, str] = {list: "l", tuple: "t", set: "S", frozenset: "F"}
_BUILDERS: dict[str, Callable[[list], Any]] = {"l": list, "t": tuple, "S": set, "F": frozenset}
# The standard library's dicts that compare as plain dicts travel as dicts; a subclass of
# the candidate's own does not (its __eq__ would be the candidate's).
_DICTS = (dict, OrderedDict, defaultdict, Counter)


class Malformed(Exception):
    """What was read is not a value of this encoding within its bounds."""


class Encoder:
    """One message's encoding: `other` turns what is not plain, or is over a bound, into a
    reference item (or raises)."""

    def __init__(self, other: Callable[[Any], Any]):
        self.other = other
        self.budget = MAX_ITEMS

    def encode(self, value: Any, depth: int = 0) -> Any:
        self.budget -= 1
        kind = type(value)
        if value is None or kind is bool:
            return value
        if kind is int:
            return ["i", str(value)] if value.bit_length() <= MAX_INT_BITS else self.other(value)
        if kind is float:
            return ["f", repr(value)]
        if kind is str:
            return ["s", value] if len(value) <= MAX_STR else self.other(value)
        if kind is bytes:
            return ["y", value.hex()] if len(value) <= MAX_STR else self.other(value)
        if kind is range:
            ends = (value.start, value.stop, value.step)
            return ["r", *map(str, ends)] if max(abs(e).bit_length() for e in ends) <= MAX_INT_BITS else self.other(value)
        if kind in _CONTAINERS or kind in _DICTS:
            # a dict's entry is two values, its key and its value: the decoder counts both
            if depth >= MAX_DEPTH or len(value) * (1 if kind in _CONTAINERS else 2) >= self.budget:
                return self.other(value)
            if kind in _CONTAINERS:
                return [_CONTAINERS[kind], [self.encode(item, depth + 1) for item in value]]
            return ["d", [[self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in value.items()]]
        return self.other(value)


def _reject_constant(token: str) -> Any:
    raise Malformed(f"a bare {token}")


def _small_int(token: str) -> int:
    if len(token) > 18:
        raise Malformed("a bare number over 18 digits")
    return int(token)


def _no_float(token: str) -> Any:
    raise Malformed("a bare float")


def parse(frame: bytes) -> Any:
    """A frame's JSON, or Malformed: no NaN, no bare floats, no long bare numbers, no
    nesting the decoder's recursion cannot hold."""
    if len(frame) > MAX_FRAME:
        raise Malformed("a frame over the size bound")
    try:
        return _JSON_IN.decode(frame.decode())
    except (ValueError, RecursionError, UnicodeDecodeError) as exc:
        raise Malformed(f"not JSON within bounds: {type(exc).__name__}") from None


class Decoder:
    """One message's decoding: `resolve(tag, item)` turns a reference item into the object
    it names on this side (or raises Malformed)."""

    def __init__(self, resolve: Callable[[str, list], Any]):
        self.resolve = resolve
        self.budget = MAX_ITEMS

    def decode(self, item: Any, depth: int = 0) -> Any:
        self.budget -= 1
        if self.budget < 0 or depth > MAX_DEPTH + 1:
            raise Malformed("a value over the size or depth bound")
        if item is None or item is True or item is False:
            return item
        if not (type(item) is list and item and type(item[0]) is str):
            raise Malformed("a value that is not a tagged list")
        tag = item[0]
        if len(item) == 2 and type(item[1]) is str:
            if tag == "i" and _INT.match(item[1]):
                return int(item[1])
            if tag == "f" and _FLOAT.match(item[1]):
                return float(item[1])
            if tag == "s" and len(item[1]) <= MAX_STR:
                return item[1]
            if tag == "y" and len(item[1]) <= 2 * MAX_STR and _HEX.match(item[1]):
                return bytes.fromhex(item[1])
        if tag == "r" and len(item) == 4 and all(type(e) is str and _INT.match(e) for e in item[1:]):
            start, stop, step = map(int, item[1:])
            if step:
                return range(start, stop, step)
        if len(item) == 2 and type(item[1]) is list:
            if tag in _BUILDERS:
                return self._build(_BUILDERS[tag], [self.decode(x, depth + 1) for x in item[1]])
            if tag == "d":
                return self._build(dict, [self._pair(x, depth + 1) for x in item[1]])
        if tag in ("h", "c", "x", "E"):
            return self.resolve(tag, item)
        raise Malformed(f"a value of tag {tag[:8]!r} not in its form")

    def _pair(self, item: Any, depth: int) -> tuple[Any, Any]:
        if not (type(item) is list and len(item) == 2):
            raise Malformed("a dict entry that is not a pair")
        return self.decode(item[0], depth), self.decode(item[1], depth)

    @staticmethod
    def _build(build: Callable[[list], Any], items: list) -> Any:
        try:
            return build(items)
        except TypeError:  # an unhashable key or member: no honest encoder sends one
            raise Malformed("an unhashable member of a set or key of a dict") from None


def dump(message: Any) -> bytes:
    """One frame: the message's JSON and a newline."""
    return _JSON_OUT.encode(message).encode() + b"\n"


# Made once: json.loads and json.dumps given options make a new one at every frame.
_JSON_IN = json.JSONDecoder(parse_constant=_reject_constant, parse_int=_small_int, parse_float=_no_float)
_JSON_OUT = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))
