"""The Python probe's driver: run by the sandbox's python3 as the builder, in a round laid
out as a test round is (languages/python/testrun.py), with the proxy modules on its path in
place of the candidate's, so that no code of the candidate's runs in this process. It runs
each call (a prelude, then statements and `=> expression` observations, compiled from the
harness's config) in a fresh namespace, writes each call's record to the stream as the C++
probe frames it (probe/stream.py), and a status line last, both to files of the round's
out folder, which only the builder reads. Standard library alone, beside the proxy runtime.

A value is written in the probe's value schema (probe/schema.py), with the forms Python
needs: an int of more than 20 digits `{"int": digits}`, a non-finite float
`{"float": "nan" | "inf" | "-inf"}`, bytes `{"bytes": hex}`, a tuple `{"tuple": [...]}`,
a set or frozenset `{"set": [...]}` and a dict (or the standard library's dicts)
`{"dict": [[key, value], ...]}`, both sorted by their items' encodings so that runs agree,
a range `{"range": [start, stop, step]}` as its items are (range(0) is range(5, 5)), a
class `{"class": name}`, and any other object `{"object": [class name, repr]}`. An object
of the candidate's process (a handle) is its proxy class's name and the repr computed
there, so two of its objects compare as what Python shows of them (an enum member, a
dataclass), an object whose repr holds its address differs from run to run (the reference
is then refused, and the call must observe something of it), and what the candidate's
`__repr__` says is a value it produced, never more: it is never read as the plain value it
spells, and a repr over the proxy's bound (10**6 characters) is null. A value over the
schema's bounds (a string, nesting, a record's size) is `{"digest": sha256}` of its
encoding: equal exactly when the encodings are.

The status line says how the driver ended: `ok`; `import <why>` (a candidate module does
not import); `timeout`, `gone` or `forged` with the proxy's reason (no answer within a
call's bound, the candidate's process ended, it sent what no honest server sends: the
stream stops there); `start` (the candidate's process never started, so none of its code
ran: the sandbox's doing)."""

from __future__ import annotations

import builtins
import hashlib
import importlib
import json
import math
import sys
from collections import Counter, OrderedDict, defaultdict
from typing import Any, Callable

# The standard library's dicts, which compare as plain dicts (the proxy sends them as dicts).
_DICTS = (dict, OrderedDict, defaultdict, Counter)


def canonical(value: Any) -> str:
    """A value's JSON, the same text for the same value, in printable ASCII (JSON leaves
    DEL unescaped, which the stream never holds)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).replace("\x7f", "\\u007f")


def digest(value: Any) -> dict[str, str]:
    return {"digest": hashlib.sha256(canonical(value).encode()).hexdigest()}


def exception_name(exc: BaseException) -> str:
    """A builtin exception by its name, any other by its module and name (a candidate's
    `ValueError` of its own is not the builtin)."""
    cls = type(exc)
    if getattr(builtins, cls.__name__, None) is cls or cls.__module__ == "candidate":  # the proxy's stand-ins
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


class Encoder:
    """Values in the probe's schema (`bounds`: probe/schema.py's); `is_object` tells an
    object of the candidate's process (the proxy's), `repr_of` asks that process for its
    repr."""

    def __init__(self, bounds: dict[str, int], is_object: Callable[[Any], bool], repr_of: Callable[[Any], str | None]):
        self.bounds = bounds
        self.is_object, self.repr_of = is_object, repr_of

    def encode(self, value: Any) -> Any:
        kind = type(value)
        if value is None or kind is bool or kind is str:
            return value
        if kind is int:
            if value.bit_length() > 14_000:  # beyond what str() of an int may print
                return {"digest": hashlib.sha256(hex(value).encode()).hexdigest()}
            text = str(value)
            return value if len(text.lstrip("-")) <= self.bounds["int_digits"] else {"int": text}
        if kind is float:
            return value if math.isfinite(value) else {"float": "nan" if value != value else "inf" if value > 0 else "-inf"}
        if kind is bytes:
            return {"bytes": value.hex()}
        if kind is list:
            return [self.encode(item) for item in value]
        if kind is tuple:
            return {"tuple": [self.encode(item) for item in value]}
        if kind in (set, frozenset):
            return {"set": sorted((self.encode(item) for item in value), key=canonical)}
        if kind in _DICTS:
            pairs = [[self.encode(k), self.encode(v)] for k, v in value.items()]
            return {"dict": sorted(pairs, key=lambda pair: canonical(pair[0]))}
        if kind is range:
            items = len(value)
            start = value.start if items else 0
            step = value.step if items > 1 else 1
            return {"range": [self.encode(start), self.encode(start + step * items), self.encode(step)]}
        if isinstance(value, type):  # the proxy's classes of the candidate's too
            return {"class": str(value.__qualname__)}
        if self.is_object(value):
            return {"object": [type(value).__qualname__, self.repr_of(value)]}
        return {"object": [kind.__qualname__, repr(value)]}

    def fits(self, value: Any, depth: int = 3) -> bool:
        """Within the schema's bounds at this depth (a value sits 3 deep in its record)."""
        if isinstance(value, str):
            return len(value) <= self.bounds["string"]
        if isinstance(value, (list, dict)):
            if depth + 1 > self.bounds["depth"]:
                return False
            items = value if isinstance(value, list) else value.values()
            return all(self.fits(item, depth + 1) for item in items)
        return True

    def value(self, value: Any) -> Any:
        encoded = self.encode(value)
        return encoded if self.fits(encoded) else digest(encoded)

    def record(self, record: dict[str, Any]) -> str:
        """The record's line, its largest values cut to digests until it fits."""
        line = canonical(record)
        values = sorted((o for o in record["o"] if "v" in o), key=lambda o: -len(canonical(o["v"])))
        for outcome in values:
            if len(line) <= self.bounds["record"]:
                break
            outcome["v"] = digest(outcome["v"])
            line = canonical(record)
        return line


class Driver:
    def __init__(self, config: dict[str, Any], proxies: Any):
        self.config = config
        self.proxies = proxies
        self.encoder = Encoder(config["bounds"], lambda v: isinstance(v, proxies.RemoteObject), self._repr)
        self.stream = open(config["stream"], "w", encoding="ascii")

    def _repr(self, value: Any) -> str | None:
        text = self.proxies.request("repr", value)
        if type(text) is str:
            return text
        if isinstance(text, self.proxies.RemoteObject):
            return None  # over the proxy's bound
        self.proxies.ref(value)[0].forge("an answer to repr that is not a str")
        return None

    def write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()

    def _ends_probe(self, exc: BaseException) -> bool:
        """No answer, or a forgery: the session is over. An answer over the proxy's bounds
        where the call needed a plain one (an `int()` of a huge int) is an outcome."""
        return isinstance(exc, self.proxies.ProxyError) and not isinstance(exc, self.proxies.OverBounds)

    def call(self, prelude: Any, steps: list[tuple[bool, Any]]) -> dict[str, Any]:
        """One call's record; a ProxyError that ends the session ends the probe."""
        namespace: dict[str, Any] = {"__name__": "__harness_call__"}
        outcomes: list[dict[str, Any]] = []
        try:
            exec(prelude, namespace)
            for observe, code in steps:
                if not observe:
                    exec(code, namespace)
                    continue
                try:
                    outcomes.append({"v": self.encoder.value(eval(code, namespace))})
                except BaseException as exc:  # the candidate's SystemExit stand-in too: an outcome
                    if self._ends_probe(exc):
                        raise
                    outcomes.append({"x": exception_name(exc)})
        except BaseException as exc:
            if self._ends_probe(exc):
                raise
            return {"o": outcomes, "x": exception_name(exc)}
        return {"o": outcomes}

    def run(self) -> str:
        """Every call, or the status that stopped them."""
        config = self.config
        calls = [[(observe, compile(code, f"<call {i}>", "eval" if observe else "exec")) for observe, code in steps]
                 for i, steps in enumerate(config["calls"])]
        prelude = compile(config["prelude"], "<prelude>", "exec")
        self.write(f"probe 1 {len(calls)}")
        try:
            for module in config["modules"]:
                try:
                    importlib.import_module(module)
                except self.proxies.ProxyError:
                    raise
                except BaseException as exc:  # the candidate's module raised at import
                    return f"import {module}: {exception_name(exc)}: {exc}"
            for i, steps in enumerate(calls):
                self.write(f"case {i} {f'call {i}'.encode().hex()}")
                self.write(f"rec {i} 0 {self.encoder.record(self.call(prelude, steps))}")
                self.write(f"end {i} 1")
        except self.proxies.ProxyError as exc:
            kind = {"CallTimeout": "timeout", "Forged": "forged", "NotStarted": "start"}.get(type(exc).__name__, "gone")
            return f"{kind} {exc}"
        self.write(f"done {len(calls)}")
        return "ok"


def main(argv: list[str]) -> None:
    """`python3 runtime.py CONFIG`: the status line goes to the config's `status` file."""
    import _harness_proxy.proxies as proxies  # type: ignore[import-not-found]  # the round's proxy runtime, on this path in the sandbox alone

    with open(argv[0], encoding="utf-8") as f:
        config = json.load(f)
    status = Driver(config, proxies).run()
    with open(config["status"], "w", encoding="utf-8") as f:
        f.write(status.replace("\n", " ")[:4000] + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
