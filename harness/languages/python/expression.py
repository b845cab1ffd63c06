"""A Python expression's value, observed in the sandbox: a model's prediction (CruxEval-O,
predict/cruxeval.py) is text to execute, so it runs only there, as the runner, in a process
of its own (assets/value_driver.py) with a wall-clock limit, its output discarded and the
one file it may leave read back capped (sandbox/capture.py, which also ends every process
it started and empties what it wrote). The expression sees builtins alone: no item's code,
so no spelling of a call of the item's function reaches it.

What comes back is a call record of the probe's schema (probe/schema.py), read with its
bounds: the expression's value, or the exception it raised. The process is the
expression's, so it may write any record it likes; but any value a record can hold, an
honest expression could evaluate to, so a forged record earns nothing an honest answer
could not. An expression that ends its process, outlives its limit or writes what the
schema refuses has no value (None)."""

from __future__ import annotations

import json
import shlex
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...paths import package_file
from ...probe.schema import Forged, read_record
from ...sandbox.base import SandboxSession
from ...sandbox.capture import Kept, capture
from .probe.run import BOUNDS

_DRIVER = Path(__file__).parent / "assets" / "value_driver.py"
_VALUE = Kept("value", 1 << 20)
# The exec's own limit, beyond the expression's: the driver's start and the read-back.
_SLACK_S = 20.0


@lru_cache(maxsize=1)
def _programs() -> tuple[str, str]:
    return _DRIVER.read_text(), package_file("languages", "python", "probe", "runtime.py").read_text()


def expression_value(session: SandboxSession, expression: str, timeout_s: float) -> dict[str, Any] | None:
    """The record of `expression`'s value (`{"o": [{"v": value}]}`, or `{"o": [{"x": type}]}`
    when it raised), or None when it gave none that can be read."""
    session.serve("python")  # its first command may be this one, before any Python is staged
    driver, runtime = _programs()
    payload = json.dumps({"expression": expression, "runtime": runtime, "bounds": BOUNDS, "out": _VALUE.name}).encode()
    run = (f"env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 timeout -s KILL {timeout_s:g} "
           f"python3 -I -c {shlex.quote(driver)} >/dev/null 2>&1; code=$?")
    result, got = capture(session, run, [_VALUE], timeout_s=timeout_s + _SLACK_S, stdin=payload)
    if got is None or got.exit_code != 0 or got.truncated(0):
        return None
    lines = got.contents[0].split(b"\n")
    if len(lines) != 2 or lines[1]:
        return None
    try:
        record = read_record(lines[0], "call")
    except Forged:
        return None
    outcomes = record.get("o")
    return record if "x" not in record and isinstance(outcomes, list) and len(outcomes) == 1 else None
